package claims

import (
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/wire"
)

func jid(proc int64) queue.JobID { return queue.JobID{Cluster: 1, Proc: proc} }

func slot(t *testing.T, machine string) *classad.Ad {
	t.Helper()
	ad, err := classad.ParseNew(`[Machine = "` + machine + `"]`)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

func machine(ad *classad.Ad) string { s, _ := classad.EvalString(ad, "Machine"); return s }

// Matches reserve the jobs of a request in order, skip jobs reserved or
// run by a claim, and stop at the schedd's max_jobs_running, counting the
// jobs running and those being claimed.
func TestReserve(t *testing.T) {
	r := New(time.Now)
	r.Remember("alice", map[string][]queue.JobID{"1": {jid(0), jid(1), jid(2), jid(3)}})
	c := &Claim{ID: "c0"}
	r.Add(c)
	r.Attach(c, jid(1)) // runs already (claim reuse took it)
	if !r.TryReserve(jid(2)) {
		t.Fatal("job 2 could not be reserved")
	}
	got, ok := r.Reserve("alice", "1", 0)
	if !ok || got != jid(0) {
		t.Fatalf("first match reserved %v %v, want 1.0", got, ok)
	}
	got, ok = r.Reserve("alice", "1", 0)
	if !ok || got != jid(3) {
		t.Fatalf("second match reserved %v %v, want 1.3 (1.1 runs, 1.2 is reserved)", got, ok)
	}
	if _, ok := r.Reserve("alice", "1", 0); ok {
		t.Fatal("a third match found a job")
	}
	r.Remember("alice", map[string][]queue.JobID{"1": {jid(4)}})
	if _, ok := r.Reserve("alice", "1", 4); ok {
		t.Fatal("reserved past max 4 (1 running, 3 reserved)")
	}
	r.Unreserve(jid(0))
	if _, ok := r.Reserve("alice", "1", 4); !ok {
		t.Fatal("a reservation ended, and the next match found no room")
	}
	if r.Running() != 1 || r.Matchable(jid(1)) || r.Matchable(jid(4)) {
		t.Fatalf("running %d, 1.1 matchable %v, 1.4 matchable %v", r.Running(), r.Matchable(jid(1)), r.Matchable(jid(4)))
	}
	r.Detach(c)
	if r.Running() != 0 || !r.Matchable(jid(1)) {
		t.Fatal("a detached job still counts as running")
	}
}

// A job blocked until its old claim's lease is over matches again then.
func TestBlock(t *testing.T) {
	now := time.Unix(1000, 0)
	r := New(func() time.Time { return now })
	r.Block(jid(0), now.Add(time.Minute))
	if r.Matchable(jid(0)) {
		t.Fatal("a blocked job is matchable")
	}
	now = now.Add(time.Minute)
	if !r.Matchable(jid(0)) {
		t.Fatal("a job whose block is over is not matchable")
	}
}

// Replication: replicas are reserved per machine, never where the job
// runs; the winner becomes the job's first instance and the others are
// returned to vacate; one instance alone sends outputs.
func TestInstances(t *testing.T) {
	r := New(time.Now)
	first := &Claim{ID: "c0", Slot: slot(t, "a")}
	r.Add(first)
	r.Attach(first, jid(0))
	if r.ReserveReplica(jid(0), 2, slot(t, "a"), machine, 0) {
		t.Fatal("a replica was reserved on the machine the job runs on")
	}
	if !r.ReserveReplica(jid(0), 2, slot(t, "b"), machine, 0) {
		t.Fatal("no replica on another machine")
	}
	if r.Size(jid(0)) != 2 {
		t.Fatalf("size %d, want 2 (first + one being claimed)", r.Size(jid(0)))
	}
	rep := &Claim{ID: "c1", Slot: slot(t, "b")}
	reps, ok := r.AddReplica(jid(0), rep, func() int { return 1 })
	r.UnreserveReplica(jid(0), "b")
	if !ok || len(reps) != 1 || rep.Replica != 1 {
		t.Fatalf("AddReplica: %v %v, replica %d", reps, ok, rep.Replica)
	}
	if c, others, isReplica := r.Instance(jid(0), "c1"); c != rep || others != 1 || !isReplica {
		t.Fatalf("Instance(c1) = %v %d %v", c, others, isReplica)
	}
	if err := r.SendOutputs(jid(0), "c1"); err != nil {
		t.Fatal(err)
	}
	if err := r.SendOutputs(jid(0), "c0"); !wire.IsCode(err, wire.CodeConflict) {
		t.Fatalf("a second instance sending outputs: %v, want a conflict", err)
	}
	losers := r.Promote(jid(0), rep)
	if len(losers) != 1 || losers[0] != first {
		t.Fatalf("losers %v, want the first instance", losers)
	}
	if c := r.Of(jid(0), "c1"); c != rep || r.Running() != 1 || r.Known("c0") {
		t.Fatalf("after the win: first %v, running %d, loser known %v", c, r.Running(), r.Known("c0"))
	}
	if _, _, dropped := r.DropInstance(jid(0), rep); dropped {
		t.Fatal("the only instance was dropped")
	}
}

// A first instance that stops while a replica runs gives way to it.
func TestDropFirstInstance(t *testing.T) {
	r := New(time.Now)
	first := &Claim{ID: "c0", Slot: slot(t, "a")}
	r.Add(first)
	r.Attach(first, jid(0))
	rep := &Claim{ID: "c1", Slot: slot(t, "b")}
	if _, ok := r.AddReplica(jid(0), rep, func() int { return 1 }); !ok {
		t.Fatal("no replica")
	}
	carrier, left, dropped := r.DropInstance(jid(0), first)
	if !dropped || carrier != rep || len(left) != 0 {
		t.Fatalf("DropInstance = %v %v %v", carrier, left, dropped)
	}
	if st := r.State(first); st.Busy || r.Of(jid(0), "c1") != rep || r.Running() != 1 {
		t.Fatalf("after the drop: first busy %v, carrier first %v, running %d", st.Busy, r.Of(jid(0), "c1") == rep, r.Running())
	}
}

// Unavailable is what Matchable refuses for a reservation or a block,
// in one snapshot: reserved jobs and jobs blocked until later, not a job
// whose reservation or block is over.
func TestUnavailable(t *testing.T) {
	now := time.Unix(1000, 0)
	r := New(func() time.Time { return now })
	for _, p := range []int64{0, 1, 2} {
		r.TryReserve(jid(p))
	}
	r.Unreserve(jid(1))
	r.Block(jid(3), now.Add(time.Minute))
	r.Block(jid(4), now.Add(-time.Second))
	got := r.Unavailable()
	want := map[queue.JobID]bool{jid(0): true, jid(2): true, jid(3): true}
	if len(got) != len(want) {
		t.Fatalf("unavailable %v, want %v", got, want)
	}
	for p := range int64(5) {
		if got[jid(p)] != want[jid(p)] || got[jid(p)] == r.Matchable(jid(p)) {
			t.Errorf("1.%d: unavailable %v, matchable %v", p, got[jid(p)], r.Matchable(jid(p)))
		}
	}
}

// A running job whose claim is unknown is an orphan, unless it is on its
// way to or from a claim: reserved for one, or its startd being asked.
func TestOrphaned(t *testing.T) {
	r := New(time.Now)
	claimed := &Claim{ID: "c1"}
	r.Add(claimed)
	r.Attach(claimed, jid(1))
	other := &Claim{ID: "c2"}
	r.Add(other)
	r.Attach(other, jid(2)) // the job runs on c2, its ad still names c9
	r.TryReserve(jid(3))
	r.Await([]queue.JobID{jid(4)})
	for _, c := range []struct {
		name            string
		id              queue.JobID
		claim           string
		orphan, pending bool
	}{
		{"its claim is known", jid(1), "c1", false, false},
		{"it runs on another claim", jid(2), "c9", false, false},
		{"reserved for a claim", jid(3), "c8", false, true},
		{"its startd is being asked", jid(4), "c7", false, true},
		{"nothing knows it", jid(5), "c6", true, false},
	} {
		orphan, pending := r.Orphaned(c.id, c.claim)
		if orphan != c.orphan || pending != c.pending {
			t.Errorf("%s: orphan %v pending %v, want %v %v", c.name, orphan, pending, c.orphan, c.pending)
		}
	}
}
