package factory

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
)

// The rule of HTCondor's schedd (users' manual, "Submitting Lots of
// Jobs"; condor_submit man page, max_materialize and max_idle): procs
// materialize while the cluster's present jobs are under
// JobMaterializeLimit and its jobs not running (held ones too) under
// JobMaterializeMaxIdle.
func TestWant(t *testing.T) {
	for _, c := range []struct {
		name   string
		l      Limits
		left   int64
		counts queue.Counts
		batch  int64
		want   int64
	}{
		{"fresh, max_idle", Limits{MaxIdle: 10}, 100, queue.Counts{}, 1000, 10},
		{"fresh, max_materialize", Limits{Limit: 7}, 100, queue.Counts{}, 1000, 7},
		{"fewer left than room", Limits{MaxIdle: 10}, 3, queue.Counts{}, 1000, 3},
		{"batch bounds", Limits{MaxIdle: 10}, 100, queue.Counts{}, 4, 4},
		{"idle full", Limits{MaxIdle: 10}, 100, queue.Counts{Idle: 10, Running: 50}, 1000, 0},
		{"held count as idle", Limits{MaxIdle: 10}, 100, queue.Counts{Idle: 4, Held: 6}, 1000, 0},
		{"one started", Limits{MaxIdle: 10}, 100, queue.Counts{Idle: 9, Running: 1}, 1000, 1},
		{"present bounds", Limits{Limit: 5, MaxIdle: 10}, 100, queue.Counts{Running: 4}, 1000, 1},
		{"completed still present", Limits{Limit: 5}, 100, queue.Counts{Completed: 5}, 1000, 0},
		{"over the limit", Limits{Limit: 5}, 100, queue.Counts{Idle: 9}, 1000, 0},
		{"none left", Limits{MaxIdle: 10}, 0, queue.Counts{}, 1000, 0},
	} {
		if got := c.l.Want(c.left, c.counts, c.batch); got != c.want {
			t.Errorf("%s: Want = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestLimitsOf(t *testing.T) {
	for _, c := range []struct {
		ad   string
		want Limits
		ok   bool
		err  string
	}{
		{`[ Cmd = "x" ]`, Limits{}, false, ""},
		{`[ JobMaterializeMaxIdle = 10 ]`, Limits{MaxIdle: 10}, true, ""},
		{`[ JobMaterializeLimit = 3; JobMaterializeMaxIdle = 10 ]`, Limits{Limit: 3, MaxIdle: 10}, true, ""},
		{`[ JobMaterializeMaxIdle = 0 ]`, Limits{}, false, "positive integer"},
		{`[ JobMaterializeLimit = "x" ]`, Limits{}, false, "positive integer"},
	} {
		l, ok, err := LimitsOf(mustAd(t, c.ad))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.ad, err, c.err)
			}
			continue
		}
		if err != nil || ok != c.ok || l != c.want {
			t.Errorf("%s: %+v %v %v, want %+v %v", c.ad, l, ok, err, c.want, c.ok)
		}
	}
}

func mustAd(t testing.TB, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

// TestProcs checks that a factory makes each proc from its run, and
// reads back from its records as it was.
func TestProcs(t *testing.T) {
	f, err := New(9, Limits{MaxIdle: 2}, []Run{
		{N: 3, Ad: mustAd(t, `[ Args = "a" ]`)},
		{N: 1, Ad: mustAd(t, `[ ]`)},
		{N: 2, Ad: mustAd(t, `[ Args = "c"; Out = "o" ]`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Next, f.Paused = 4, true
	back, err := decode(9, f.spec(), f.state())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`[ Args = "a"; ProcId = 0 ]`, `[ Args = "a"; ProcId = 1 ]`, `[ Args = "a"; ProcId = 2 ]`,
		`[ ProcId = 3 ]`, `[ Args = "c"; Out = "o"; ProcId = 4 ]`, `[ Args = "c"; Out = "o"; ProcId = 5 ]`,
	}
	for _, g := range []*Factory{f, back} {
		if g.Total != 6 || g.Next != 4 || !g.Paused || g.Limits != f.Limits {
			t.Fatalf("factory %+v", g)
		}
		for p, w := range want {
			ad, err := g.Proc(int64(p))
			if err != nil {
				t.Fatal(err)
			}
			if got := ad.String(); got != w {
				t.Errorf("proc %d: %s, want %s", p, got, w)
			}
		}
		if _, err := g.Proc(6); err == nil {
			t.Error("proc 6 of 6 made")
		}
	}
}

func TestBadRecords(t *testing.T) {
	f, err := New(9, Limits{MaxIdle: 2}, []Run{{N: 3, Ad: mustAd(t, `[ ]`)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ spec, state string }{
		{`{`, `{"Next":0}`},
		{string(f.spec()), `{"Next":4}`},
		{string(f.spec()), `{"Next":-1}`},
		{`{"Total":3,"Starts":[1],"Offs":[0,3],"Rows":"W10="}`, `{"Next":0}`},
		{`{"Total":3,"Starts":[0],"Offs":[0,9],"Rows":"W10="}`, `{"Next":0}`},
	} {
		if _, err := decode(9, []byte(c.spec), []byte(c.state)); err == nil {
			t.Errorf("spec %s state %s: read", c.spec, c.state)
		}
	}
	for _, key := range []string{"factory/x", "factory/00000000000000090", "factory/0000000000000009/other"} {
		if _, _, err := clusterOfKey(key); err == nil {
			t.Errorf("key %q read", key)
		}
	}
	if _, err := New(1, Limits{}, nil); err == nil {
		t.Error("a factory of no procs")
	}
}

// pool drives a factory's cluster through a queue as the schedd does.
type pool struct {
	t    *testing.T
	path string
	q    *queue.Queue
	s    *Set
	id   int64
}

func (p *pool) open() {
	q, err := queue.Open(p.path, queue.Options{NoSync: true})
	if err != nil {
		p.t.Fatal(err)
	}
	s, err := Load(q, 1000)
	if err != nil {
		p.t.Fatal(err)
	}
	q.SetHook(s.Hook)
	p.q, p.s = q, s
}

func (p *pool) restart() {
	if err := p.q.Close(); err != nil {
		p.t.Fatal(err)
	}
	p.open()
}

// submit queues a factory of n procs.
func (p *pool) submit(n int64, l Limits) {
	id, err := p.q.NewCluster("alice")
	if err != nil {
		p.t.Fatal(err)
	}
	p.id = id
	f, err := New(id, l, []Run{{N: n, Ad: mustAd(p.t, `[ ]`)}})
	if err != nil {
		p.t.Fatal(err)
	}
	first, err := p.s.Start(f)
	if err != nil {
		p.t.Fatal(err)
	}
	ad := mustAd(p.t, fmt.Sprintf(`[ ClusterId = %d; Owner = "alice"; JobStatus = 1 ]`, id))
	p.update(func(tx *queue.Tx) error {
		c, err := tx.Submit(id, "alice", ad, first, nil)
		if err == nil {
			p.s.Add(tx, c, f, len(first))
		}
		return err
	})
}

func (p *pool) update(fn func(tx *queue.Tx) error) {
	p.t.Helper()
	if err := p.q.Update(fn); err != nil {
		p.t.Fatal(err)
	}
}

// jobs lists the cluster's jobs as id:status.
func (p *pool) jobs() string {
	var out []string
	p.q.Read(func(r *queue.Reader) {
		c := r.Cluster(p.id)
		if c == nil {
			return
		}
		for j := range c.Jobs {
			out = append(out, fmt.Sprintf("%d:%d", j.ID.Proc, j.Status()))
		}
	})
	return strings.Join(out, " ")
}

// each applies fn to the jobs whose status is from.
func (p *pool) each(from int64, n int, fn func(tx *queue.Tx, j *queue.Job)) {
	p.update(func(tx *queue.Tx) error {
		var picked []*queue.Job
		for j := range tx.Cluster(p.id).Jobs {
			if j.Status() == from && len(picked) < n {
				picked = append(picked, j)
			}
		}
		for _, j := range picked {
			fn(tx, j)
		}
		return nil
	})
}

func start(tx *queue.Tx, j *queue.Job) { tx.SetInt(j, attr.JobStatus, attr.Running) }
func finish(tx *queue.Tx, j *queue.Job) {
	tx.SetInt(j, attr.JobStatus, attr.Completed)
	tx.Leave(j)
}
func hold(tx *queue.Tx, j *queue.Job) { tx.SetInt(j, attr.JobStatus, attr.Held) }

// TestMaterialize runs a factory through starts, exits, holds, a pause,
// and restarts of the queue: each proc is made once, in order, within
// the limits, and the factory and its cluster go once all are done.
func TestMaterialize(t *testing.T) {
	p := &pool{t: t, path: filepath.Join(t.TempDir(), "q.db")}
	p.open()
	p.submit(7, Limits{Limit: 4, MaxIdle: 2})
	steps := []struct {
		do   func()
		want string
	}{
		{func() {}, "0:1 1:1"},
		{func() { p.each(attr.Idle, 1, start) }, "0:2 1:1 2:1"},
		{p.restart, "0:2 1:1 2:1"},
		{func() { p.each(attr.Idle, 2, start) }, "0:2 1:2 2:2 3:1"}, // present bounds at 4
		{func() { p.each(attr.Running, 1, finish) }, "1:2 2:2 3:1 4:1"},
		{func() { p.each(attr.Idle, 1, hold) }, "1:2 2:2 3:5 4:1"}, // held counts as idle
		{func() { p.pause(true) }, "1:2 2:2 3:5 4:1"},
		{func() { p.each(attr.Running, 2, finish) }, "3:5 4:1"},
		{p.restart, "3:5 4:1"},
		{func() { p.pause(false) }, "3:5 4:1"}, // idle is full
		{func() { p.each(attr.Idle, 1, start) }, "3:5 4:2 5:1"},
		{func() { p.each(attr.Held, 1, finish) }, "4:2 5:1 6:1"},
		{func() { p.each(attr.Idle, 2, start) }, "4:2 5:2 6:2"},
		{p.restart, "4:2 5:2 6:2"},
		{func() { p.each(attr.Running, 3, finish) }, ""},
	}
	for i, s := range steps {
		s.do()
		if got := p.jobs(); got != s.want {
			t.Fatalf("step %d: jobs %q, want %q", i, got, s.want)
		}
	}
	if p.s.Len() != 0 {
		t.Errorf("%d factories left", p.s.Len())
	}
	p.q.Read(func(r *queue.Reader) {
		if r.Cluster(p.id) != nil {
			t.Error("the done cluster stays in the queue")
		}
	})
	p.restart()
	if p.s.Len() != 0 {
		t.Errorf("%d factories after a restart", p.s.Len())
	}
}

func (p *pool) pause(paused bool) {
	p.update(func(tx *queue.Tx) error {
		_, err := p.s.Pause(tx, p.id, paused)
		return err
	})
}

// TestRemove: a rm of the cluster removes its factory; the cluster,
// empty, leaves the queue, and stays gone after a restart.
func TestRemove(t *testing.T) {
	p := &pool{t: t, path: filepath.Join(t.TempDir(), "q.db")}
	p.open()
	p.submit(100, Limits{MaxIdle: 3})
	p.pause(true)
	p.each(attr.Idle, 3, finish)
	p.q.Read(func(r *queue.Reader) {
		if c := r.Cluster(p.id); c == nil || !c.Open() {
			t.Fatal("a paused factory's empty cluster left the queue")
		}
	})
	p.restart()
	p.update(func(tx *queue.Tx) error {
		if !p.s.Remove(tx, p.id) {
			t.Error("no factory removed")
		}
		return nil
	})
	p.restart()
	p.q.Read(func(r *queue.Reader) {
		if r.Cluster(p.id) != nil {
			t.Error("the removed factory's cluster stays")
		}
	})
	if p.s.Len() != 0 || p.jobs() != "" {
		t.Errorf("after rm: %d factories, jobs %q", p.s.Len(), p.jobs())
	}
}

// TestFailedCommit: procs materialized in a transaction whose commit
// fails are taken back with it, and the factory makes them again.
func TestFailedCommit(t *testing.T) {
	var full bool
	p := &pool{t: t, path: filepath.Join(t.TempDir(), "q.db")}
	q, err := queue.Open(p.path, queue.Options{NoSync: true, Fault: func() error {
		if full {
			return fmt.Errorf("no space left on device")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(q, 1000)
	if err != nil {
		t.Fatal(err)
	}
	q.SetHook(s.Hook)
	p.q, p.s = q, s
	p.submit(5, Limits{MaxIdle: 2})
	full = true
	err = q.Update(func(tx *queue.Tx) error {
		start(tx, tx.Job(queue.JobID{Cluster: p.id, Proc: 0}))
		return nil
	})
	if err == nil {
		t.Fatal("the commit did not fail")
	}
	if got := p.jobs(); got != "0:1 1:1" || s.Get(p.id).Next != 2 {
		t.Fatalf("after a failed commit: jobs %q, next %d", got, s.Get(p.id).Next)
	}
	full = false
	p.each(attr.Idle, 1, start)
	if got := p.jobs(); got != "0:2 1:1 2:1" {
		t.Fatalf("jobs %q", got)
	}
	p.restart()
	if got := p.jobs(); got != "0:2 1:1 2:1" || p.s.Get(p.id) == nil || p.s.Get(p.id).Next != 3 {
		t.Fatalf("after a restart: jobs %q", got)
	}
}

// TestPerOwner: the schedd's max_jobs_per_owner caps materialization
// (HTCondor's MAX_JOBS_PER_OWNER does for factories, see
// docs/htcondor-reference-2.md §4 and §8.4).
func TestPerOwner(t *testing.T) {
	p := &pool{t: t, path: filepath.Join(t.TempDir(), "q.db")}
	p.open()
	p.s.PerOwner = 3
	p.submit(10, Limits{MaxIdle: 2})
	for i, want := range []string{"0:2 1:1 2:1", "0:2 1:2 2:1"} {
		p.each(attr.Idle, 1, start)
		if got := p.jobs(); got != want {
			t.Fatalf("start %d: jobs %q, want %q", i, got, want)
		}
	}
	p.each(attr.Running, 1, finish)
	if got := p.jobs(); got != "1:2 2:1 3:1" {
		t.Fatalf("after an exit: jobs %q", got)
	}
}
