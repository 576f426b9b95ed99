package queue

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// The literals a transaction sets, allocated together, are each their
// own: every attribute reads back the value it was set to, after the
// commit and after a reopen.
func TestLiteralsOfATransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	q := open(t, path, Options{NoSync: true})
	id := submit(t, q, "alice", 2)
	const n = 70 // more than one block of each size
	err := q.Update(func(tx *Tx) error {
		for p := range int64(2) {
			j := tx.Job(JobID{id, p})
			for i := range n {
				name := fmt.Sprintf("A%d", i)
				switch i % 4 {
				case 0:
					tx.SetInt(j, name, int64(i)+100*p)
				case 1:
					tx.SetReal(j, name, float64(i)+100*float64(p)+0.5)
				case 2:
					tx.SetString(j, name, fmt.Sprint(i, "/", p))
				case 3:
					tx.SetBool(j, name, (i+int(p))%2 == 0)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(q *Queue) {
		t.Helper()
		for p := range int64(2) {
			v, _ := view(q, JobID{id, p})
			for i := range n {
				var want string
				switch i % 4 {
				case 0:
					want = fmt.Sprint(int64(i) + 100*p)
				case 1:
					want = ast.String(ast.Real(float64(i) + 100*float64(p) + 0.5))
				case 2:
					want = fmt.Sprintf("%q", fmt.Sprint(i, "/", p))
				case 3:
					want = fmt.Sprint((i+int(p))%2 == 0)
				}
				e, _ := v.Lookup(fmt.Sprintf("A%d", i))
				if got := ast.String(e); got != want {
					t.Errorf("job %d.%d: A%d = %s, want %s", id, p, i, got, want)
				}
			}
		}
	}
	check(q)
	q.Close()
	q = open(t, path, Options{NoSync: true})
	defer q.Close()
	check(q)
}

// A transaction allocates its literals in blocks of 1, 2, 4, ... up to
// maxLiteralBlock: a job's end, some forty literals, costs six
// allocations.
func TestLiteralBlocks(t *testing.T) {
	allocs := testing.AllocsPerRun(10, func() {
		var tx Tx
		for i := range 40 {
			tx.literal(ast.Literal{Kind: ast.IntLit, Int: int64(i)})
		}
	})
	if allocs != 6 {
		t.Errorf("%v allocations for 40 literals, want 6", allocs)
	}
}

func view(q *Queue, id JobID) (View, bool) {
	var v View
	found := false
	q.Read(func(r *Reader) {
		if j := r.Job(id); j != nil {
			v, found = j.View(), true
		}
	})
	return v, found
}
