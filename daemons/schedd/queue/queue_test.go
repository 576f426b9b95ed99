package queue

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

func open(t testing.TB, path string, o Options) *Queue {
	t.Helper()
	q, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func mustAd(t testing.TB, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

// submit queues a cluster of n jobs for owner, each with its own Out.
func submit(t testing.TB, q *Queue, owner string, n int) int64 {
	t.Helper()
	id, err := q.NewCluster(owner)
	if err != nil {
		t.Fatal(err)
	}
	ad := mustAd(t, fmt.Sprintf(`[ ClusterId = %d; Owner = %q; JobStatus = 1; Cmd = "/bin/true"; RequestMemory = 128 ]`, id, owner))
	procs := make([]*classad.Ad, n)
	for i := range procs {
		procs[i] = mustAd(t, fmt.Sprintf(`[ ProcId = %d; Out = "out.%d" ]`, i, i))
	}
	if err := q.Update(func(tx *Tx) error { _, err := tx.Submit(id, owner, ad, procs, nil); return err }); err != nil {
		t.Fatal(err)
	}
	return id
}

// snapshot prints every job of the queue, one line each.
func snapshot(q *Queue) string {
	var b strings.Builder
	q.Read(func(r *Reader) {
		for c := range r.Clusters {
			for j := range c.Jobs {
				v := j.View()
				fmt.Fprintf(&b, "%s %s %d %s\n", v.ID, v.Owner, v.Status, v.Ad().String())
			}
		}
	})
	return b.String()
}

// Everything committed is there after a reopen, as it was.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	q := open(t, path, Options{})
	c1 := submit(t, q, "alice", 3)
	c2 := submit(t, q, "bob", 2)
	err := q.Update(func(tx *Tx) error {
		j := tx.Job(JobID{c1, 1})
		tx.SetInt(j, attr.JobStatus, attr.Held)
		tx.SetString(j, attr.HoldReason, "because")
		tx.Delete(j, "RequestMemory") // a cluster attribute, hidden for this job only
		tx.Leave(tx.Job(JobID{c2, 0}))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(q)
	if !strings.Contains(before, "1.1 alice 5 ") || strings.Contains(before, "2.0 ") {
		t.Fatalf("before reopen:\n%s", before)
	}
	if line := lineOf(before, "1.1 "); strings.Contains(line, "RequestMemory") || !strings.Contains(lineOf(before, "1.0 "), "RequestMemory = 128") {
		t.Errorf("deleted attribute: %s", line)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q = open(t, path, Options{})
	defer q.Close()
	if after := snapshot(q); after != before {
		t.Errorf("after reopen:\n%s\nwant\n%s", after, before)
	}
	q.Read(func(r *Reader) {
		per, all := r.Counts()
		if all.Idle != 3 || all.Held != 1 || per["bob"].Idle != 1 || per["alice"].Held != 1 {
			t.Errorf("counts %+v %+v", per, all)
		}
	})
	var hist []string
	q.History(func(ad []byte) bool { hist = append(hist, string(ad)); return true })
	if len(hist) != 1 || !strings.Contains(hist[0], `"Owner": "bob"`) || !strings.Contains(hist[0], `"ProcId": 0`) {
		t.Errorf("history %q", hist)
	}
	if id, _ := q.NewCluster("carol"); id != 3 {
		t.Errorf("next cluster after reopen: %d, want 3", id)
	}
}

func lineOf(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// A submit must use a cluster id handed out and not used yet; a failed
// update changes nothing.
func TestRefusals(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{})
	defer q.Close()
	used := submit(t, q, "alice", 1)
	fresh, _ := q.NewCluster("alice")
	ad := mustAd(t, `[ Owner = "alice"; JobStatus = 1 ]`)
	one := []*classad.Ad{mustAd(t, `[ ProcId = 0 ]`)}
	tests := []struct {
		name  string
		fn    func(tx *Tx) error
		error string
	}{
		{"reused id", func(tx *Tx) error { _, err := tx.Submit(used, "alice", ad, one, nil); return err }, "was used already"},
		{"unknown id", func(tx *Tx) error { _, err := tx.Submit(99, "alice", ad, one, nil); return err }, "not handed out"},
		{"no jobs", func(tx *Tx) error { _, err := tx.Submit(fresh, "alice", ad, nil, nil); return err }, "at least one job"},
		{"twice", func(tx *Tx) error {
			if _, err := tx.Submit(fresh, "alice", ad, one, nil); err != nil {
				return err
			}
			_, err := tx.Submit(fresh, "alice", ad, one, nil)
			return err
		}, "submitted twice"},
		{"failure after a change", func(tx *Tx) error {
			tx.SetInt(tx.Job(JobID{used, 0}), attr.JobStatus, attr.Held)
			return fmt.Errorf("changed my mind")
		}, "changed my mind"},
	}
	before := snapshot(q)
	for _, tt := range tests {
		err := q.Update(tt.fn)
		if err == nil || !strings.Contains(err.Error(), tt.error) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.error)
		}
	}
	if after := snapshot(q); after != before {
		t.Errorf("a refused change changed the queue:\n%s", after)
	}
}

// Concurrent changes share transactions, and each is durable when its
// Update returns.
func TestGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	q := open(t, path, Options{})
	c := submit(t, q, "alice", 200)
	var wg sync.WaitGroup
	for p := range 200 {
		wg.Go(func() {
			err := q.Update(func(tx *Tx) error {
				tx.Set(tx.Job(JobID{c, int64(p)}), "Mark", ast.Int(int64(p)))
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	txs, changes := q.Stats()
	if changes != 202 || txs >= changes {
		t.Errorf("%d changes in %d transactions", changes, txs)
	}
	q.Close()
	q = open(t, path, Options{})
	defer q.Close()
	q.Read(func(r *Reader) {
		for j := range r.Cluster(c).Jobs {
			v := j.View()
			if e, ok := v.Lookup("Mark"); !ok || ast.String(e) != fmt.Sprint(j.ID.Proc) {
				t.Errorf("%s: Mark = %v", j.ID, e)
			}
		}
	})
}

// The history keeps the newest jobs, newest first.
func TestHistoryRetention(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{HistoryRetain: 5})
	defer q.Close()
	c := submit(t, q, "alice", 12)
	for p := range 12 {
		q.Update(func(tx *Tx) error { tx.Leave(tx.Job(JobID{c, int64(p)})); return nil })
	}
	var procs []string
	q.History(func(ad []byte) bool {
		a, err := classad.ParseJSON(ad)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := a.Lookup("ProcId")
		procs = append(procs, ast.String(e))
		return true
	})
	if strings.Join(procs, " ") != "11 10 9 8 7" {
		t.Errorf("history procs %v", procs)
	}
	q.Read(func(r *Reader) {
		if r.Cluster(c) != nil {
			t.Errorf("the emptied cluster is still there")
		}
	})
}

// A store in use by another schedd is refused with a clear message.
func TestLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	q := open(t, path, Options{})
	defer q.Close()
	if _, err := Open(path, Options{LockTimeout: 50 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "in use by another schedd") {
		t.Errorf("second open: %v", err)
	}
}

func TestSelectors(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"12", "12", ""}, {"12.3", "12.3", ""}, {"0", "", "not a job id"}, {"1.x", "", "not a job id"}, {"a", "", "not a job id"}, {"1.-1", "", "not a job id"},
	}
	for _, tt := range tests {
		s, err := ParseSelector(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v", tt.in, err)
			}
			continue
		}
		if err != nil || s.String() != tt.want {
			t.Errorf("%s: %v %v", tt.in, s, err)
		}
	}
}

// full is a disk that fills and empties on demand: the queue's Fault.
type full struct{ on atomic.Bool }

func (f *full) fault() error {
	if f.on.Load() {
		return syscall.ENOSPC
	}
	return nil
}

// state prints the queue as a reader sees it: jobs, counts, history
// length and the next cluster id's reservation.
func state(q *Queue) string {
	var n int
	q.History(func([]byte) bool { n++; return true })
	var counts string
	q.Read(func(r *Reader) {
		per, all := r.Counts()
		subs, _ := r.SubmitterCounts()
		counts = fmt.Sprintf("%+v %+v %+v idle clusters %v", per, all, subs, idleClusters(r, "alice", "bob", "carol"))
	})
	return fmt.Sprintf("%s%s\nhistory %d", snapshot(q), counts, n)
}

// A failed commit is counted only once memory shows the queue without
// it: the schedd, seeing the count, looks for the jobs the failure left
// running, and a count seen before the undo let it find none and stop
// looking (a job then stayed Running with no claim; the CI found it).
func TestFailureCountedAfterTheUndo(t *testing.T) {
	var disk full
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{Fault: disk.fault})
	c := submit(t, q, "alice", 1)
	undo := q.cm.rollback
	var atUndo int64 = -1
	q.cm.rollback = func(take func() []*commit) {
		atUndo = q.Failures()
		undo(take)
	}
	disk.on.Store(true)
	err := q.Update(func(tx *Tx) error {
		tx.SetInt(tx.Job(JobID{c, 0}), attr.JobStatus, attr.Held)
		return nil
	})
	if err == nil {
		t.Fatal("a commit on a full disk succeeded")
	}
	if atUndo != 0 || q.Failures() != 1 {
		t.Errorf("failures %d while the change was undone, %d after; want 0 then 1", atUndo, q.Failures())
	}
}

// A commit that fails (a full disk) changes nothing, in memory as on disk:
// the change is refused with the write's error, readers see the queue as
// it was, and once the disk has room the same change goes through, with
// no restart (issue 15, finding 3).
func TestFailedCommitChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	var disk full
	q := open(t, path, Options{Fault: disk.fault})
	a := submit(t, q, "alice", 3)
	b := submit(t, q, "bob", 1)
	held := func(tx *Tx) error {
		j := tx.Job(JobID{a, 0})
		tx.SetInt(j, attr.JobStatus, attr.Held)
		tx.SetString(j, attr.HoldReason, "full")
		return nil
	}
	leaveAll := func(tx *Tx) error {
		for p := range 3 {
			tx.Leave(tx.Job(JobID{a, int64(p)}))
		}
		tx.Leave(tx.Job(JobID{b, 0}))
		return nil
	}
	var reserved int64
	changes := []struct {
		name   string
		change func() error
	}{
		{"new cluster", func() error { _, err := q.NewCluster("carol"); return err }},
		{"submit", func() error {
			ad := mustAd(t, fmt.Sprintf(`[ ClusterId = %d; Owner = "carol"; JobStatus = 1 ]`, reserved))
			return q.Update(func(tx *Tx) error {
				_, err := tx.Submit(reserved, "carol", ad, []*classad.Ad{mustAd(t, `[ ProcId = 0 ]`)}, nil)
				return err
			})
		}},
		{"hold", func() error { return q.Update(held) }},
		{"leave, emptying clusters", func() error { return q.Update(leaveAll) }},
	}
	var err error
	if reserved, err = q.NewCluster("carol"); err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		before := state(q)
		disk.on.Store(true)
		err := c.change()
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") {
			t.Fatalf("%s on a full disk: %v", c.name, err)
		}
		if q.Err() == nil {
			t.Errorf("%s: the queue does not say its last commit failed", c.name)
		}
		if after := state(q); after != before {
			t.Fatalf("%s failed but memory changed:\n%s\nwant\n%s", c.name, after, before)
		}
		disk.on.Store(false)
		if err := c.change(); err != nil {
			t.Fatalf("%s once the disk has room: %v", c.name, err)
		}
		if q.Err() != nil {
			t.Errorf("%s: still failed after a commit went through: %v", c.name, q.Err())
		}
	}
	if _, ok := q.Reservation(reserved + 1); !ok {
		t.Errorf("the cluster id handed out after the failed one is not %d", reserved+1)
	}
	want := state(q)
	q.Close()
	q = open(t, path, Options{})
	defer q.Close()
	if got := state(q); got != want {
		t.Errorf("after reopen:\n%s\nwant\n%s", got, want)
	}
}

// Changes queued behind a failed commit fail with it: memory shows each
// on top of the failed one, so all are undone, newest first.
func TestFailedCommitTakesQueuedOnes(t *testing.T) {
	var disk full
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{Fault: disk.fault})
	defer q.Close()
	c := submit(t, q, "alice", 50)
	before := state(q)
	disk.on.Store(true)
	var wg sync.WaitGroup
	for p := range 50 {
		wg.Go(func() {
			err := q.Update(func(tx *Tx) error {
				j := tx.Job(JobID{c, int64(p)})
				tx.SetInt(j, "Try", int64(p))
				if p%2 == 0 {
					tx.Leave(j)
				}
				return nil
			})
			if err == nil {
				t.Errorf("change %d acknowledged on a full disk", p)
			}
		})
	}
	wg.Wait()
	if after := state(q); after != before {
		t.Fatalf("memory changed:\n%s\nwant\n%s", after, before)
	}
}

// A job that left the queue as a reader sees it is in the history read
// right after, though its commit may still be under way.
func TestHistoryAfterLeaving(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{})
	defer q.Close()
	const n = 100
	c := submit(t, q, "alice", n)
	go func() {
		for p := range n {
			q.Update(func(tx *Tx) error { tx.Leave(tx.Job(JobID{c, int64(p)})); return nil })
		}
	}()
	for p := range n {
		id := JobID{c, int64(p)}
		for gone := false; !gone; {
			q.Read(func(r *Reader) { gone = r.Job(id) == nil })
		}
		found := false
		q.History(func(ad []byte) bool {
			a, _ := classad.ParseJSON(ad)
			e, _ := a.Lookup("ProcId")
			found = ast.String(e) == strconv.Itoa(p)
			return !found
		})
		if !found {
			t.Fatalf("job %v left the queue but is not in the history", id)
		}
	}
}

// A reader of the history that stalls mid-stream (a client that stops
// reading the answer) holds no store transaction while it stalls, so a
// commit that must grow the file completes (bbolt remaps the file only
// when no read transaction is open; one held open stalled every commit).
// The reader still gets every record once, newest first.
func TestHistoryReleasesTheStoreBetweenBatches(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{})
	defer q.Close()
	n := historyBatchRecords + historyBatchRecords/2
	c := submit(t, q, "alice", n)
	if err := q.Update(func(tx *Tx) error {
		for p := range n {
			tx.Leave(tx.Job(JobID{c, int64(p)}))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var procs []string
	stalled := false
	err := q.History(func(ad []byte) bool {
		a, err := classad.ParseJSON(ad)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := a.Lookup("ProcId")
		procs = append(procs, ast.String(e))
		if len(procs) != historyBatchRecords/2 || stalled {
			return true
		}
		stalled = true
		if open := q.db.Stats().OpenTxN; open != 0 {
			t.Fatalf("%d read transaction(s) open while the reader stalls", open)
		}
		// A commit big enough to make bbolt grow and remap the file.
		big := strings.Repeat("x", 8<<20)
		id, err := q.NewCluster("bob")
		if err != nil {
			t.Fatal(err)
		}
		bigAd := mustAd(t, fmt.Sprintf(`[ ClusterId = %d; Owner = "bob"; JobStatus = 1; Cmd = "/bin/true"; Big = %q ]`, id, big))
		if err := q.Update(func(tx *Tx) error {
			_, err := tx.Submit(id, "bob", bigAd, []*classad.Ad{mustAd(t, `[ ProcId = 0 ]`)}, nil)
			return err
		}); err != nil {
			t.Fatalf("a commit while the reader stalls: %v", err)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if !stalled || len(procs) != n {
		t.Fatalf("%d records, want %d", len(procs), n)
	}
	for i, p := range procs {
		if want := strconv.Itoa(n - 1 - i); p != want {
			t.Fatalf("record %d is proc %s, want %s", i, p, want)
		}
	}
}

// idleClusters lists, by submitter, the ids of the clusters the idle
// index holds, in its order.
func idleClusters(r *Reader, subs ...string) map[string][]int64 {
	out := map[string][]int64{}
	for _, sub := range subs {
		for c := range r.IdleClusters(sub) {
			out[sub] = append(out[sub], c.ID)
		}
	}
	return out
}

// The walk for a claim's next job visits only a submitter's clusters that
// have idle jobs, by JobPrio (highest first) then oldest first: the index
// follows every change of status, and a reopened queue rebuilds it.
func TestIdleClusters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	q := open(t, path, Options{})
	a1 := submit(t, q, "alice", 2)
	a2 := submit(t, q, "alice", 1)
	b := submit(t, q, "bob", 1)
	urgent, err := q.NewCluster("alice")
	if err != nil {
		t.Fatal(err)
	}
	ad := mustAd(t, fmt.Sprintf(`[ ClusterId = %d; Owner = "alice"; JobStatus = 1; JobPrio = 5 ]`, urgent))
	if err := q.Update(func(tx *Tx) error {
		_, err := tx.Submit(urgent, "alice", ad, []*classad.Ad{mustAd(t, `[ ProcId = 0 ]`)}, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	check := func(step string, want map[string][]int64) {
		t.Helper()
		q.Read(func(r *Reader) {
			if got := idleClusters(r, "alice", "bob"); !maps.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%s: idle clusters %v, want %v", step, got, want)
			}
		})
	}
	check("submitted", map[string][]int64{"alice": {urgent, a1, a2}, "bob": {b}})
	if err := q.Update(func(tx *Tx) error { tx.Leave(tx.Job(JobID{urgent, 0})); return nil }); err != nil {
		t.Fatal(err)
	}
	check("the urgent one left", map[string][]int64{"alice": {a1, a2}, "bob": {b}})
	set := func(id JobID, status int64) {
		t.Helper()
		if err := q.Update(func(tx *Tx) error { tx.SetInt(tx.Job(id), attr.JobStatus, status); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	set(JobID{a2, 0}, attr.Running)
	set(JobID{a1, 0}, attr.Running)
	check("one of a1 and all of a2 running", map[string][]int64{"alice": {a1}, "bob": {b}})
	set(JobID{a1, 1}, attr.Held)
	set(JobID{b, 0}, attr.Running)
	check("nothing idle", map[string][]int64{})
	set(JobID{a2, 0}, attr.Idle)
	check("a2 back to idle", map[string][]int64{"alice": {a2}})
	q.Close()
	q = open(t, path, Options{})
	defer q.Close()
	check("reopened", map[string][]int64{"alice": {a2}})
}
