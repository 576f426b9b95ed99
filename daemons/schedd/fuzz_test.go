package schedd

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// Whatever a submit's body holds, the schedd answers without a panic, and
// a refused submit leaves the queue as it was.
func FuzzSubmit(f *testing.F) {
	f.Add([]byte(`[{"Cmd": "/bin/true"}, {"ProcId": 0}]`))
	f.Add([]byte(`[{"JobStatus": "\/Expr(1 + 1)\/"}, {"ProcId": "0"}]`))
	f.Add([]byte(`[{}, {"ProcId": 0, "Owner": null}, {"ProcId": 2}]`))
	f.Add([]byte(`[{"ClusterId": 1, "JobUniverse": 5.0}, {"ProcId": 0, "Requirements": "\/Expr(TARGET.Memory > \/)\/"}]`))
	p := pooltest.New(f)
	s, err := New(p.Env("schedd"), testConfig(f))
	if err != nil {
		f.Fatal(err)
	}
	s.q, err = queue.Open(filepath.Join(f.TempDir(), "q.db"), queue.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.q.Close() })
	caller := auth.Identity{Name: "alice", Levels: auth.Write}
	f.Fuzz(func(t *testing.T, body []byte) {
		id, err := s.q.NewCluster("alice")
		if err != nil {
			t.Fatal(err)
		}
		hr := httptest.NewRequest("POST", wire.PathSubmit+"?cluster="+itoa(int(id)), bytes.NewReader(body))
		before := jobCount(s.q)
		_, err = s.handleSubmit(context.Background(), &wire.Request{HTTP: hr, Caller: caller})
		if err != nil && jobCount(s.q) != before {
			t.Fatalf("a refused submit changed the queue: %v", err)
		}
	})
}

func jobCount(q *queue.Queue) int {
	var n int
	q.Read(func(r *queue.Reader) { _, all := r.Counts(); n = all.Total() })
	return n
}
