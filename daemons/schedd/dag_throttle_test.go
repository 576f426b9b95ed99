package schedd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// submitDAGBody submits a DAG file's text as alice, from dir, with the
// throttles of body.
func (h *harness) submitDAGBody(dir, text string, body wire.DAGSubmit) int64 {
	h.t.Helper()
	c := h.client("alice", auth.Write)
	file := writeFile(h.t, dir, "flow.dag", text)
	body.File, body.Files = file, map[string]string{file: text}
	var nc wire.NewCluster
	if err := c.Call(context.Background(), "POST", wire.PathNewCluster, nil, &nc); err != nil {
		h.t.Fatal(err)
	}
	var res wire.SubmitResult
	if err := c.Call(context.Background(), "POST", wire.PathSubmitDAG+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res); err != nil {
		h.t.Fatal(err)
	}
	return res.Cluster
}

// armedTimer is a timer the schedd armed on a fake clock.
type armedTimer struct {
	d time.Duration
	f func()
}

// fakeClock is a schedd clock that moves only when the test moves it;
// the timers the schedd arms come on a channel for the test to fire.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers chan armedTimer
}

func newFakeClock(cfg *Config) *fakeClock {
	c := &fakeClock{now: time.Unix(1_800_000_000, 0), timers: make(chan armedTimer, 64)}
	cfg.Now = func() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
	cfg.afterFunc = func(d time.Duration, f func()) func() bool {
		c.timers <- armedTimer{d, f}
		return func() bool { return true }
	}
	return c
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// timer waits for the next timer the schedd arms.
func (c *fakeClock) timer(t *testing.T) armedTimer {
	t.Helper()
	select {
	case tm := <-c.timers:
		return tm
	case <-time.After(10 * time.Second):
		t.Fatal("the schedd armed no timer")
	}
	return armedTimer{}
}

// With MaxSubmits (htcondor dag throttle --submissions; DAGMan's
// DAGMAN_MAX_SUBMITS_PER_INTERVAL per DAGMAN_USER_LOG_SCAN_INTERVAL,
// configuration/dagman.rst) a DAG submits at most that many node jobs in
// each submit interval of 5 s, and the pump wakes itself at the
// interval's end. Five ready nodes, one with a PRE script (its submit
// comes after the script, through the pump's resume), at most two per
// interval, on a clock that moves only when the test moves it: each node
// job's QDate is the interval it was submitted in.
func TestDAGSubmitsPerInterval(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	clock := newFakeClock(&cfg)
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	writeFile(t, dir, "job.sub", "executable = /bin/true\nqueue\n")
	text := "JOB A job.sub\nJOB B job.sub\nJOB C job.sub\nJOB D job.sub\nJOB P job.sub\nSCRIPT PRE P /bin/true\n"
	id := h.submitDAGBody(dir, text, wire.DAGSubmit{MaxSubmits: 2})

	// submitted counts the nodes that have their job (P, its PRE script
	// done, is STATUS_SUBMITTED while its submit waits).
	submitted := func() int {
		n := 0
		for _, nd := range h.dags(wire.DAGQuery{IDs: []int64{id}})[0].Nodes {
			if nd.Cluster != 0 {
				n++
			}
		}
		return n
	}
	// Each full interval arms one timer, at its end; until it fires, no
	// node job more is submitted (the QDates below).
	for k := 1; k <= 2; k++ {
		tm := clock.timer(t)
		if tm.d != 5*time.Second {
			t.Errorf("interval %d: the pump wakes in %v, want 5s", k, tm.d)
		}
		eventually(t, fmt.Sprintf("interval %d's node jobs", k), func() bool { return submitted() == 2*k })
		clock.advance(5 * time.Second)
		tm.f()
	}
	eventually(t, "every node submitted", func() bool { return submitted() == 5 })

	var jobs []*classad.Ad
	eventually(t, "five node jobs", func() bool {
		jobs = h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{Constraint: fmt.Sprintf("DAGManJobId == %d", id)}})
		return len(jobs) == 5
	})
	perInterval := map[int64]int{}
	for _, j := range jobs {
		q, _ := classad.EvalInt(j, attr.QDate)
		perInterval[q]++
	}
	if len(perInterval) != 3 || slices.Max(mapValues(perInterval)) > 2 {
		t.Errorf("node jobs per interval (by QDate): %v, want at most 2 in each of 3", perInterval)
	}
	ad := dagAdOf(t, h, id)
	if v, _ := classad.EvalInt(ad, attr.DAGManMaxSubmits); v != 2 {
		t.Errorf("%s = %d, want 2", attr.DAGManMaxSubmits, v)
	}
}

func mapValues(m map[int64]int) []int {
	var out []int
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// dagAdOf is a running DAG's ad.
func dagAdOf(t *testing.T, h *harness, id int64) *classad.Ad {
	t.Helper()
	infos := h.dags(wire.DAGQuery{IDs: []int64{id}, AdsOnly: true})
	if len(infos) != 1 {
		t.Fatalf("DAG %d: %d infos", id, len(infos))
	}
	ad, err := classad.ParseJSON(infos[0].Ad)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

// With MaxHold (condor_submit_dag -MaxHold, htcondor dag throttle --hold;
// DAGMAN_MAX_HOLD_SCRIPTS) at most that many HOLD scripts run at once;
// the others wait, noted in the .dagman.out, and start as one ends or as
// the throttle is raised. Four nodes whose jobs go on hold at once, each
// with a HOLD script that waits for its gate file.
func TestDAGHoldScriptLimit(t *testing.T) {
	p := pooltest.New(t)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	writeFile(t, dir, "job.sub", "executable = /bin/true\nqueue\n")
	runs := filepath.Join(dir, "runs.txt")
	script := writeFile(t, dir, "hold.sh", "#!/bin/sh\necho \"start $1\" >> "+runs+"\nwhile [ ! -e "+dir+"/gate-$1 ]; do sleep 0.02; done\necho \"end $1\" >> "+runs+"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, n := range []string{"A", "B", "C", "D"} {
		fmt.Fprintf(&text, "JOB %s job.sub\nSCRIPT HOLD %s %s $JOB\n", n, n, script)
	}
	id := h.submitDAGBody(dir, text.String(), wire.DAGSubmit{MaxHold: 2})
	var ids []string
	eventually(t, "four node jobs", func() bool {
		ids = ids[:0]
		for _, nd := range h.dags(wire.DAGQuery{IDs: []int64{id}})[0].Nodes {
			if nd.Cluster != 0 {
				ids = append(ids, strconv.FormatInt(nd.Cluster, 10))
			}
		}
		return len(ids) == 4
	})
	h.act(wire.ActHold, ids...)

	lines := func(prefix string) []string {
		b, err := os.ReadFile(runs)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, prefix) {
				out = append(out, strings.TrimPrefix(l, prefix))
			}
		}
		return out
	}
	deferred := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "flow.dag.dagman.out"))
		return strings.Count(string(b), "HOLD script deferred")
	}
	eventually(t, "two HOLD scripts started, two deferred", func() bool { return len(lines("start ")) == 2 && deferred() == 2 })
	if started := lines("start "); len(started) != 2 {
		t.Fatalf("HOLD scripts started: %q, want 2", started)
	}
	// One ends: one that waits starts.
	first := lines("start ")[0]
	writeFile(t, dir, "gate-"+first, "")
	eventually(t, "a third HOLD script", func() bool { return len(lines("start ")) == 3 })
	if n := len(lines("end ")); n != 1 {
		t.Errorf("%d HOLD scripts ended, want 1", n)
	}
	// The throttle raised to no limit: the last starts.
	none := 0
	var out wire.DAGThrottles
	if err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathDAGThrottle,
		wire.DAGThrottle{ID: id, MaxHold: &none}, &out); err != nil || out.MaxHold != 0 {
		t.Fatalf("throttle: %+v %v", out, err)
	}
	eventually(t, "the fourth HOLD script", func() bool { return len(lines("start ")) == 4 })
	for _, n := range []string{"A", "B", "C", "D"} {
		writeFile(t, dir, "gate-"+n, "")
	}
	eventually(t, "every HOLD script ended", func() bool { return len(lines("end ")) == 4 })
	started := lines("start ")
	slices.Sort(started)
	if !slices.Equal(started, []string{"A", "B", "C", "D"}) {
		t.Errorf("HOLD scripts started: %q, want each node's once", started)
	}
}

// A DAG's MaxHold, MaxSubmits and hold claim time (its CONFIG file's
// DAGMAN_HOLD_CLAIM_TIME) are kept in its record: they outlive a restart
// of the schedd, as DAGMan's edited throttles persist across crashes
// (dagman-interaction.rst "Editing DAG Throttles"). A DAGMAN_HOLD_CLAIM_TIME
// of 0 leaves KeepClaimIdle off node jobs that have children, where the
// schedd's dag_hold_claim_time (here 20 s) would set it
// (configuration/dagman.rst, DAGMAN_HOLD_CLAIM_TIME).
func TestDAGThrottlesDurable(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	cfg.DAGHoldClaim = 20 * time.Second
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	writeFile(t, dir, "job.sub", "executable = /bin/true\nqueue\n")
	zero, four := 0, 4
	text := "JOB A job.sub\nJOB B job.sub\nJOB C job.sub\nPARENT A B CHILD C\n"
	id := h.submitDAGBody(dir, text, wire.DAGSubmit{MaxJobs: 1, MaxHold: 2, MaxSubmits: 3, HoldClaimTime: &zero})
	dir2 := t.TempDir()
	writeFile(t, dir2, "job.sub", "executable = /bin/true\nqueue\n")
	other := h.submitDAGBody(dir2, text, wire.DAGSubmit{})
	c := h.client("alice", auth.Write)
	if err := c.Call(context.Background(), "POST", wire.PathDAGThrottle, wire.DAGThrottle{ID: id, MaxHold: &four}, nil); err != nil {
		t.Fatal(err)
	}
	keep := func(dagID int64, want int) string {
		t.Helper()
		var ads []*classad.Ad
		eventually(t, fmt.Sprintf("%d node jobs of DAG %d", want, dagID), func() bool {
			ads = h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{Constraint: fmt.Sprintf("DAGManJobId == %d", dagID)}})
			return len(ads) == want
		})
		return summary(ads, attr.DAGNodeName, attr.KeepClaimIdle)
	}
	if got := keep(id, 1); got != `"A" undefined` && got != `"B" undefined` {
		t.Errorf("before the restart, the node job: %q, want no KeepClaimIdle", got)
	}
	h.stop()
	h = startSchedd(t, p, cfg)
	ad := dagAdOf(t, h, id)
	for name, want := range map[string]int64{attr.DAGManMaxJobs: 1, attr.DAGManMaxHold: 4, attr.DAGManMaxSubmits: 3} {
		if v, _ := classad.EvalInt(ad, name); v != want {
			t.Errorf("after a restart, %s = %d, want %d", name, v, want)
		}
	}
	// The second parent is submitted after the restart, still without.
	if err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathDAGThrottle, wire.DAGThrottle{ID: id, MaxJobs: &zero}, nil); err != nil {
		t.Fatal(err)
	}
	if got := keep(id, 2); got != "\"A\" undefined\n\"B\" undefined" && got != "\"B\" undefined\n\"A\" undefined" {
		t.Errorf("after the restart, the node jobs: %q, want no KeepClaimIdle", got)
	}
	if got := keep(other, 2); !strings.Contains(got, `"A" 20`) || !strings.Contains(got, `"B" 20`) {
		t.Errorf("a DAG without DAGMAN_HOLD_CLAIM_TIME: %q, want KeepClaimIdle 20", got)
	}
}
