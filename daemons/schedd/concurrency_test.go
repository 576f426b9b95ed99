package schedd

import (
	"slices"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// A claim runs next only jobs with the concurrency limits of the job the
// negotiator matched it for: the negotiator counted those and no others,
// so a job asking for more of a limit than the pool has never runs on a
// claim reused after a smaller one (issue 15, finding 7; HTCondor's
// schedd does not reuse a claim across different concurrency limits).
func TestClaimReuseKeepsConcurrencyLimits(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/true\nconcurrency_limits = sw_a:1\nqueue\n")
	h.mustSubmit("alice", dir, "executable = /bin/true\nconcurrency_limits = sw_a:2\nqueue\n")
	h.mustSubmit("alice", dir, "executable = /bin/true\nconcurrency_limits = SW_A:1\nqueue\n")
	var reqs wire.ResourceRequests
	if err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org", Significant: []string{"ConcurrencyLimits"}}, &reqs); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, r := range reqs.Requests {
		if c, _ := classad.EvalInt(r.Ad, "ClusterId"); c == 1 {
			id = r.ID
		}
	}
	if err := h.daemonCall(wire.PathMatches, wire.Matches{Submitter: "alice@test.org", Matches: []wire.Match{{Request: id, Slot: startd.slot}}}, nil); err != nil {
		t.Fatal(err)
	}
	if a := startd.next(t); a != "c1 1.0" {
		t.Fatalf("activation %q", a)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventExited})
	if a := startd.next(t); a != "c1 3.0" {
		t.Fatalf("claim reuse: %q, want 3.0 (the same limits), not 2.0", a)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "3.0", Event: wire.EventExited})
	eventually(t, "the claim released", func() bool { return slices.Contains(startd.releases(), "c1") })
	if got := summary(h.query("alice", wire.JobQuery{}), "ClusterId", "JobStatus"); got != "2 1" {
		t.Errorf("queue: %q, want 2.0 still idle", got)
	}
}
