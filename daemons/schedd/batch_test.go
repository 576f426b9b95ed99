package schedd

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// queueJobs puts clusters of per idle jobs of owner straight into a
// schedd's queue.
func queueJobs(t testing.TB, q *queue.Queue, owner string, clusters, per int) {
	t.Helper()
	for range clusters {
		id, err := q.NewCluster(owner)
		if err != nil {
			t.Fatal(err)
		}
		ad := mustParse(fmt.Sprintf(`[ ClusterId = %d; Owner = %q; JobStatus = 1; Cmd = "/bin/true" ]`, id, owner))
		procs := make([]*classad.Ad, per)
		for p := range procs {
			procs[p] = mustParse(fmt.Sprintf(`[ ProcId = %d ]`, p))
		}
		if err := q.Update(func(tx *queue.Tx) error { _, err := tx.Submit(id, owner, ad, procs, nil); return err }); err != nil {
			t.Fatal(err)
		}
	}
}

// rm, hold and release change large selections a batch a transaction,
// each durable on its own, and count across batches what they matched and
// changed, resuming inside clusters and across them (issue 15, finding 4).
func TestActInBatches(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	cfg.actBatch = 10
	h := startSchedd(t, p, cfg)
	q := h.s.Queue()
	queueJobs(t, q, "alice", 3, 25)
	queueJobs(t, q, "bob", 1, 5)
	act := func(a wire.Act) wire.ActResult {
		t.Helper()
		var res wire.ActResult
		if err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathAct, a, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	_, c0 := q.Stats()
	even := wire.JobSelection{Constraint: "ProcId % 2 == 0"}
	if res := act(wire.Act{Action: wire.ActHold, JobSelection: even}); res != (wire.ActResult{Matched: 42, Changed: 39, Denied: 3}) {
		t.Errorf("hold of the even procs: %+v", res)
	}
	if _, c1 := q.Stats(); c1-c0 < 4 {
		t.Errorf("39 holds in batches of 10 took %d commits", c1-c0)
	}
	if res := act(wire.Act{Action: wire.ActRelease, JobSelection: wire.JobSelection{IDs: []string{"2", "3.24"}}}); res != (wire.ActResult{Matched: 26, Changed: 14}) {
		t.Errorf("release of cluster 2 and 3.24: %+v", res)
	}
	if res := act(wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{Owners: []string{"alice"}}}); res != (wire.ActResult{Matched: 75, Changed: 75}) {
		t.Errorf("rm of alice's jobs: %+v", res)
	}
	got := summary(h.query("alice", wire.JobQuery{}), "ClusterId", "ProcId", "JobStatus")
	if want := "4 0 1\n4 1 1\n4 2 1\n4 3 1\n4 4 1"; got != want {
		t.Errorf("queue after:\n%s\nwant\n%s", got, want)
	}
	if hist := streamQuery(t, h.client("alice", auth.Read), wire.PathHistory, wire.HistoryQuery{}); len(hist) != 75 {
		t.Errorf("history: %d jobs, want 75", len(hist))
	}
}

// A schedd told to stop during a large rm stops between two batches: what
// the batches changed is durable, the rest is left as it was, and the
// answer says how many changed.
func TestActStopsBetweenBatches(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	cfg.actBatch = 10
	var armed atomic.Bool
	var commits atomic.Int32
	var h *harness
	cfg.storeFault = func() error {
		if armed.Load() && commits.Add(1) == 2 {
			h.cancel() // the stop comes while a batch commits
		}
		return nil
	}
	h = startSchedd(t, p, cfg)
	queueJobs(t, h.s.Queue(), "alice", 1, 75)
	armed.Store(true)
	err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathAct,
		wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{"1"}}}, nil)
	changed := -1
	if err != nil {
		fmt.Sscanf(err.Error()[strings.Index(err.Error(), "stopping: ")+len("stopping: "):], "%d of the jobs changed", &changed)
	}
	if changed <= 0 || changed >= 75 || changed%10 != 0 {
		t.Errorf("rm during a stop: %v, want a refusal that says how many whole batches changed", err)
	}
	h.cancel() // in case the rm ended first
	if err := <-h.done; err != nil && err != context.Canceled {
		t.Fatal(err)
	}
	h.cancel = nil
	q, err := queue.Open(QueuePath(cfg.Spool), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	q.Read(func(r *queue.Reader) {
		if c := r.Cluster(1); c == nil || c.Len() != 75-changed {
			t.Errorf("after the stop the queue holds %v, want the %d jobs the answer did not count", c, 75-changed)
		}
	})
}
