package queue

import (
	"path/filepath"
	"strings"
	"testing"
)

// A record added to the history (a finished DAG's ad) comes after the
// jobs that left before it (a job leaving in the same transaction comes
// after it), is kept across a reopen, and is not there when its commit
// fails.
func TestAddHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	var disk full
	q := open(t, path, Options{Fault: disk.fault})
	c := submit(t, q, "alice", 2)
	add := func(rec string, leave int64) error {
		return q.Update(func(tx *Tx) error {
			if leave >= 0 {
				tx.Leave(tx.Job(JobID{c, leave}))
			}
			tx.AddHistory([]byte(rec))
			return nil
		})
	}
	if err := add(`{"DAG":1}`, 0); err != nil {
		t.Fatal(err)
	}
	disk.on.Store(true)
	if err := add(`{"DAG":2}`, -1); err == nil {
		t.Fatal("a commit on a full disk succeeded")
	}
	disk.on.Store(false)
	if err := add(`{"DAG":3}`, 1); err != nil {
		t.Fatal(err)
	}
	want := `1 {"DAG":3} 0 {"DAG":1}` // a job leaves at the commit, after the record
	if got := historyOf(t, q); got != want {
		t.Errorf("history %s, want %s", got, want)
	}
	q.Close()
	q = open(t, path, Options{})
	defer q.Close()
	if got := historyOf(t, q); got != want {
		t.Errorf("history after a reopen %s, want %s", got, want)
	}
}

// historyOf lists the history, newest first: records that are not jobs
// whole, a job by its ProcId.
func historyOf(t *testing.T, q *Queue) string {
	t.Helper()
	var out []string
	err := q.History(func(rec []byte) bool {
		s := string(rec)
		if i := strings.Index(s, `"ProcId":`); i >= 0 {
			s = strings.TrimSpace(strings.TrimRight(strings.SplitN(s[i+len(`"ProcId":`):], ",", 2)[0], "}"))
		}
		out = append(out, s)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}
