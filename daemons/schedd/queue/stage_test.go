package queue

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/kite-sched/kite/internal/attr"
)

// The writers that wait while the lock is held are staged in one turn of
// it, in the order they came, each in its own transaction: a failing one
// changes nothing, a panicking one panics in its own caller, the others
// commit, and every caller returns once its change is durable.
func TestWaitingWritersStageInOneTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{NoSync: true})
		defer q.Close()
		c := submit(t, q, "alice", 8)
		groups := q.Groups()

		// A writer holds the lock until told to go on.
		inside, release := make(chan struct{}), make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- q.Update(func(tx *Tx) error {
				close(inside)
				<-release
				tx.SetInt(tx.Job(JobID{c, 0}), attr.JobStatus, attr.Running)
				return nil
			})
		}()
		<-inside

		// Five more come, one after the other, and wait in line: the
		// third fails, the fourth panics.
		var ran []int
		type result struct {
			err      error
			panicked any
		}
		results := make([]chan result, 5)
		for i := range results {
			results[i] = make(chan result, 1)
			go func() {
				var r result
				defer func() {
					r.panicked = recover()
					results[i] <- r
				}()
				r.err = q.Update(func(tx *Tx) error {
					ran = append(ran, i)
					switch i {
					case 2:
						tx.SetInt(tx.Job(JobID{c, int64(i + 1)}), attr.JobStatus, attr.Held)
						return errors.New("refused")
					case 3:
						panic("boom")
					}
					tx.SetInt(tx.Job(JobID{c, int64(i + 1)}), attr.JobStatus, attr.Running)
					return nil
				})
			}()
			synctest.Wait() // in line behind the ones before
		}
		if len(ran) != 0 {
			t.Fatalf("functions ran while the lock was held: %v", ran)
		}
		close(release)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		want := []result{{}, {}, {err: errors.New("refused")}, {panicked: "boom"}, {}}
		for i, ch := range results {
			got := <-ch
			if fmt.Sprint(got.err) != fmt.Sprint(want[i].err) || got.panicked != want[i].panicked {
				t.Errorf("writer %d: %+v, want %+v", i, got, want[i])
			}
		}
		if !slices.Equal(ran, []int{0, 1, 2, 3, 4}) {
			t.Errorf("functions ran in the order %v, want the order they came", ran)
		}
		if n := q.Groups() - groups; n != 2 {
			t.Errorf("%d turns of the lock staged the six writers, want 2 (the first, then the five waiting)", n)
		}
		var statuses []int64
		q.Read(func(r *Reader) {
			for j := range r.Cluster(c).Jobs {
				statuses = append(statuses, j.Status())
			}
		})
		wantStatus := []int64{attr.Running, attr.Running, attr.Running, attr.Idle, attr.Idle, attr.Running, attr.Idle, attr.Idle}
		if !slices.Equal(statuses, wantStatus) {
			t.Errorf("statuses %v, want %v", statuses, wantStatus)
		}
	})
}

// A writer alone stages at once, in a turn of its own.
func TestLoneWriterStagesAtOnce(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{NoSync: true})
	defer q.Close()
	c := submit(t, q, "alice", 1)
	groups := q.Groups()
	if err := q.Update(func(tx *Tx) error {
		tx.SetInt(tx.Job(JobID{c, 0}), attr.JobStatus, attr.Held)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n := q.Groups() - groups; n != 1 {
		t.Errorf("%d turns for one writer", n)
	}
	q.stager.mu.Lock()
	defer q.stager.mu.Unlock()
	if q.stager.leading || len(q.stager.waiting) != 0 {
		t.Errorf("the stager kept a leader (%v) or a line (%d) with no writer", q.stager.leading, len(q.stager.waiting))
	}
}

// IdleJobs yields a cluster's idle jobs in order, whatever made them
// idle again: a change, a commit that failed, a job that left and came
// back; the walks in between skip the running jobs at the front.
func TestIdleJobs(t *testing.T) {
	var fail func() error
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{NoSync: true, Fault: func() error {
		if fail != nil {
			return fail()
		}
		return nil
	}})
	defer q.Close()
	c := submit(t, q, "alice", 6)
	set := func(proc int64, status int64) error {
		return q.Update(func(tx *Tx) error { tx.SetInt(tx.Job(JobID{c, proc}), attr.JobStatus, status); return nil })
	}
	idle := func() (procs []int64, from int64) {
		q.Read(func(r *Reader) {
			cl := r.Cluster(c)
			for j := range cl.IdleJobs {
				procs = append(procs, j.ID.Proc)
			}
			from = cl.idleFrom.Load()
		})
		return procs, from
	}
	steps := []struct {
		name   string
		change func() error
		want   []int64
		from   int64
	}{
		{"submitted", func() error { return nil }, []int64{0, 1, 2, 3, 4, 5}, 0},
		{"three running", func() error { return errors.Join(set(0, attr.Running), set(1, attr.Running), set(2, attr.Running)) }, []int64{3, 4, 5}, 3},
		{"one back to idle", func() error { return set(1, attr.Idle) }, []int64{1, 3, 4, 5}, 1},
		{"it runs again, the next held", func() error { return errors.Join(set(1, attr.Running), set(3, attr.Held)) }, []int64{4, 5}, 4},
		{"a start that failed to commit, walked past before it failed", func() error {
			var during []int64
			fail = func() error {
				during, _ = idle()
				return errors.New("disk full")
			}
			defer func() { fail = nil }()
			if set(4, attr.Running) == nil {
				return errors.New("the commit did not fail")
			}
			if !slices.Equal(during, []int64{5}) {
				return fmt.Errorf("idle jobs %v before the commit failed, want [5]", during)
			}
			return nil
		}, []int64{4, 5}, 4},
		{"all running", func() error { return errors.Join(set(4, attr.Running), set(5, attr.Running)) }, nil, 6},
		{"the first released", func() error { return set(0, attr.Idle) }, []int64{0}, 0},
	}
	for _, s := range steps {
		if err := s.change(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got, from := idle(); !slices.Equal(got, s.want) || from != s.from {
			t.Errorf("%s: idle jobs %v from %d, want %v from %d", s.name, got, from, s.want, s.from)
		}
	}
}

// Changes staged while the queue is held (a startd's job ends that came
// in one request) share one commit, and none is durable before the hold
// is released.
func TestHoldSharesOneCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{NoSync: true})
		defer q.Close()
		c := submit(t, q, "alice", 3)
		before, _ := q.Stats()
		release := q.Hold()
		done := make(chan error, 3)
		for p := range 3 {
			wait, err := q.Stage(func(tx *Tx) error {
				tx.SetInt(tx.Job(JobID{c, int64(p)}), attr.JobStatus, attr.Running)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			go func() { done <- wait() }()
		}
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("a change durable while the queue was held (%v)", err)
		default:
		}
		release()
		release() // a second release changes nothing
		for range 3 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		if txs, _ := q.Stats(); txs != before+1 {
			t.Errorf("%d transactions for three changes staged while held, want 1", txs-before)
		}
	})
}
