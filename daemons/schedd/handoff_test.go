package schedd

import (
	"slices"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// A startd that takes the claim's next job with the answer to a job's end
// report (wire.JobUpdate.TakesNext) gets it there, committed as running,
// and no activation; the same report again (its first answer lost) gets
// the same job; once the startd reports on that job, the old report gets
// nothing. A startd that does not take it gets an activation, as before.
func TestNextJobInTheAnswer(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	h := startSchedd(t, p, testConfig(t))
	h.mustSubmit("alice", t.TempDir(), "executable = /bin/true\nqueue 3\n")
	if a := h.matchFirst(t, startd); a != "c1 1.0" {
		t.Fatalf("activation %q", a)
	}
	end := func(job string) (wire.JobUpdateResult, error) {
		var res wire.JobUpdateResult
		err := h.daemonCall(wire.PathJobUpdate, wire.JobUpdate{ClaimID: "c1", Job: job, Event: wire.EventExited, TakesNext: true}, &res)
		return res, err
	}
	nextOf := func(res wire.JobUpdateResult) string {
		if res.Next == nil || res.Next.Job == nil || res.Next.ClaimID != "c1" {
			return ""
		}
		c, _ := classad.EvalInt(res.Next.Job, "ClusterId")
		pr, _ := classad.EvalInt(res.Next.Job, "ProcId")
		return itoa(int(c)) + "." + itoa(int(pr))
	}
	res, err := end("1.0")
	if err != nil || nextOf(res) != "1.1" {
		t.Fatalf("answer %+v, %v; want job 1.1", res, err)
	}
	if got := h.status(t, "1.1"); got != "2" {
		t.Errorf("1.1 is %s, want running (2) before the answer", got)
	}
	if res, err := end("1.0"); err != nil || nextOf(res) != "1.1" {
		t.Fatalf("the report again: %+v, %v; want job 1.1 again", res, err)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.1", Event: wire.EventStarted})
	if res, err := end("1.0"); !wire.IsCode(err, wire.CodeNotFound) || res.Next != nil {
		t.Fatalf("the report once the next job started: %+v, %v; want not found", res, err)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.1", Event: wire.EventExited})
	if a := startd.next(t); a != "c1 1.2" {
		t.Fatalf("a startd that does not take the next job: activation %q, want c1 1.2", a)
	}
	select {
	case a := <-startd.activated:
		t.Fatalf("an activation for a job handed in an answer: %q", a)
	default:
	}
	res, err = end("1.2")
	if err != nil || res.Next != nil {
		t.Fatalf("the last job's end: %+v, %v", res, err)
	}
	eventually(t, "the claim released", func() bool { return slices.Contains(startd.releases(), "c1") })
	if got := summary(h.query("alice", wire.JobQuery{}), "ClusterId", "JobStatus"); got != "" {
		t.Errorf("queue: %q, want every job done", got)
	}
}
