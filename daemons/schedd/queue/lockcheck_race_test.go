//go:build race

package queue

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// In race builds a wait for commits, or for the lock, by a goroutine that
// holds the queue's lock panics at once, naming the misuse, rather than
// hanging a schedd under the one interleaving that deadlocks.
func TestLockMisusePanics(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), Options{NoSync: true})
	defer q.Close()
	noAux := func(string, []byte) error { return nil }
	for _, tc := range []struct {
		name, want string
		misuse     func()
	}{
		{"Aux in an Update", "Aux (which waits for commits)", func() {
			q.Update(func(*Tx) error { return q.Aux("x/", noAux) })
		}},
		{"History in a Read", "History (which waits for commits)", func() {
			q.Read(func(*Reader) { q.History(func([]byte) bool { return true }) })
		}},
		{"a Read in a Read", "Read by a goroutine that holds the queue's lock already", func() {
			q.Read(func(*Reader) { q.Read(func(*Reader) {}) })
		}},
		{"an Update in a Read", "Update or Stage (which wait for the lock)", func() {
			q.Read(func(*Reader) { q.Update(func(*Tx) error { return nil }) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := func() (p any) {
				defer func() { p = recover() }()
				tc.misuse()
				return nil
			}()
			if msg := fmt.Sprint(got); !strings.Contains(msg, tc.want) {
				t.Errorf("panic %q, want one naming %q", msg, tc.want)
			}
		})
	}
	// The lock was left as it should be: a later Update and Read go on.
	if err := q.Update(func(tx *Tx) error { tx.PutAux("x/1", []byte("1")); return nil }); err != nil {
		t.Fatal(err)
	}
	q.Read(func(*Reader) {})
}
