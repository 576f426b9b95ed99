package queue

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	bolt "go.etcd.io/bbolt"

	"github.com/kite-sched/kite/internal/attr"
)

// crash closes q as a crash would leave its files: every acknowledged
// change in the log, and in bbolt only what the checkpoints done so far
// put there (no checkpoint starts on the way out).
func crash(t *testing.T, q *Queue) {
	t.Helper()
	q.cm.mu.Lock()
	q.cm.gaveUp = true
	q.cm.mu.Unlock()
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
}

// storedProcs counts the jobs bbolt itself holds at path.
func storedProcs(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	db.View(func(tx *bolt.Tx) error { n = tx.Bucket(bucketProcs.name()).Stats().KeyN; return nil })
	return n
}

// reopenAs opens the queue at path and checks that it shows what memory
// showed before its close or crash.
func reopenAs(t *testing.T, path, before string) *Queue {
	t.Helper()
	q := open(t, path, Options{})
	if after := snapshot(q); after != before {
		t.Errorf("after the reopen:\n%s\nwant\n%s", after, before)
	}
	return q
}

// changes submits, holds one job and moves another to the history, each
// change acknowledged on its own, and returns the queue as memory shows
// it.
func changes(t *testing.T, q *Queue) string {
	t.Helper()
	c1 := submit(t, q, "alice", 3)
	c2 := submit(t, q, "bob", 2)
	for _, fn := range []func(tx *Tx) error{
		func(tx *Tx) error { tx.SetInt(tx.Job(JobID{c1, 1}), attr.JobStatus, attr.Held); return nil },
		func(tx *Tx) error { tx.SetString(tx.Job(JobID{c1, 1}), attr.HoldReason, "because"); return nil },
		func(tx *Tx) error { tx.Leave(tx.Job(JobID{c2, 0})); return nil },
	} {
		if err := q.Update(fn); err != nil {
			t.Fatal(err)
		}
	}
	return snapshot(q)
}

// A change is acknowledged once the write-ahead log holds it; a crash
// before bbolt does loses nothing: the next Open puts the log's changes
// into bbolt before it loads the queue. With a checkpoint due after every
// write, the crash comes with the log's files rotated many times and
// checkpoints under way.
func TestCrashKeepsWhatWasAcknowledged(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bytes int64 // a checkpoint is due at this much in the log's file
	}{
		{"no checkpoint", checkpointBytes},
		{"checkpoints all along", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "queue.db")
			q := open(t, path, Options{})
			q.cm.mu.Lock()
			q.cm.checkpointBytes = tc.bytes
			q.cm.mu.Unlock()
			before := changes(t, q)
			crash(t, q)
			if tc.bytes == checkpointBytes {
				if n := storedProcs(t, path); n != 0 {
					t.Fatalf("bbolt holds %d jobs before the reopen; the test needs them in the log alone", n)
				}
			}
			q = reopenAs(t, path, before)
			var hist []string
			if err := q.History(func(ad []byte) bool { hist = append(hist, string(ad)); return true }); err != nil {
				t.Fatal(err)
			}
			if len(hist) != 1 || !strings.Contains(hist[0], `"Owner": "bob"`) {
				t.Errorf("history %q", hist)
			}
			if id, _ := q.NewCluster("carol"); id != 3 {
				t.Errorf("next cluster after the crash: %d, want 3", id)
			}
			crash(t, q) // the Open put them there
			if n := storedProcs(t, path); n != 4 {
				t.Errorf("bbolt holds %d jobs after the reopen, want 4", n)
			}
		})
	}
}

// A checkpoint that fails (a full disk) leaves the changes in the log:
// they are acknowledged all the same, a read of the store says it lacks
// them, and a close that gives the checkpoint up leaves them for the
// next Open, with every change after them: no later checkpoint may put
// the later changes into bbolt without them (the disk here has room again
// once the close has given the first up).
func TestFailedCheckpointKeepsTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	q := open(t, path, Options{})
	var tries atomic.Int64
	var room atomic.Bool
	q.cm.mu.Lock()
	q.cm.checkpointFault = func() error {
		tries.Add(1)
		q.cm.mu.Lock()
		closing := q.cm.closing
		q.cm.mu.Unlock()
		if room.Load() {
			return nil
		}
		room.Store(closing) // the try of the close fails, those after it would not
		return errors.New("no room")
	}
	q.cm.mu.Unlock()
	submit(t, q, "alice", 2)
	err := q.History(func([]byte) bool { return true })
	if err == nil || !strings.Contains(err.Error(), "lacks the latest changes") || !strings.Contains(err.Error(), "no room") {
		t.Fatalf("history with the checkpoint failing: %v", err)
	}
	before := changes(t, q) // acknowledged: the log takes them
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if tries.Load() == 0 {
		t.Fatal("no checkpoint was tried")
	}
	if n := storedProcs(t, path); n != 0 {
		t.Fatalf("bbolt holds %d jobs; the checkpoints failed", n)
	}
	reopenAs(t, path, before).Close()
}

// A commit that writes nothing (a hook's AfterCommit alone) is
// acknowledged without a record in the log, and no checkpoint takes it
// as one: the store's mark of the last record it holds only grows (one
// set back to 0 made the next Open look for records long overwritten and
// refuse to start; a schedd killed under a DAG's load found it).
func TestCommitWithoutWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	q := open(t, path, Options{})
	submit(t, q, "alice", 1)
	history := func() {
		t.Helper()
		if err := q.History(func([]byte) bool { return true }); err != nil {
			t.Fatal(err)
		}
	}
	history() // a checkpoint: the mark at the submit's record, the second
	ran := false
	if err := q.Update(func(tx *Tx) error { tx.AfterCommit(func() { ran = true }); return nil }); err != nil || !ran {
		t.Fatalf("a commit of nothing: %v, after it ran: %v", err, ran)
	}
	history()
	crash(t, q)
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		if mark := getU64(tx.Bucket(bucketMeta.name()), keyLogApplied); mark != 2 {
			t.Errorf("the store's mark %d, want 2 (the records of NewCluster and the submit)", mark)
		}
		return nil
	})
}

// A commit of a checkpoint's size or more goes to bbolt directly, after
// every change before it, and the changes after it go to the log as
// before: a crash after them all loses nothing, in order.
func TestLargeCommitGoesToTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	q := open(t, path, Options{})
	q.cm.mu.Lock()
	q.cm.checkpointBytes = 4 << 10
	q.cm.mu.Unlock()
	submit(t, q, "alice", 1) // to the log
	big := submit(t, q, "bob", 100)
	if err := q.Update(func(tx *Tx) error { // to the log, over the large one
		tx.SetInt(tx.Job(JobID{big, 7}), attr.JobStatus, attr.Held)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(q)
	crash(t, q)
	if n := storedProcs(t, path); n != 101 {
		t.Fatalf("bbolt holds %d jobs after the crash, want 101 (the first submit checkpointed before the large one)", n)
	}
	reopenAs(t, path, before).Close()
	if !strings.Contains(lineOf(before, "2.7 "), "bob 5 ") {
		t.Errorf("the change after the large commit: %s", lineOf(before, "2.7 "))
	}
}

// A read of the store (Aux, History) made while a caller holds the queue
// (Hold: a startd's batch of job ends being staged) does not wait for the
// release: the commits before it are written and checkpointed, and it
// sees them. The holder may be waiting for the lock that the reader
// holds: the schedd once hung when a DAG retired (its transaction read
// the finished DAGs' records) under a batch of job ends.
func TestStoreReadDuringAHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{NoSync: true})
		defer q.Close()
		c := submit(t, q, "alice", 1)
		release := q.Hold()
		defer release()
		wait, err := q.Stage(func(tx *Tx) error {
			tx.PutAux("note/1", []byte("staged"))
			tx.Leave(tx.Job(JobID{c, 0}))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		err = q.Aux("note/", func(key string, val []byte) error {
			notes = append(notes, key+"="+string(val))
			return nil
		})
		if err != nil || !slices.Equal(notes, []string{"note/1=staged"}) {
			t.Errorf("Aux during a hold: %q, %v; want the staged record", notes, err)
		}
		left := 0
		if err := q.History(func([]byte) bool { left++; return true }); err != nil || left != 1 {
			t.Errorf("History during a hold: %d jobs, %v; want the one that left", left, err)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
	})
}
