package schedd

import (
	"slices"
	"strings"
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
		if res.Next == nil || res.Next.ClaimID != "c1" {
			return ""
		}
		return jobIDOf(res.Next)
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

// A startd's job ends that came while its last exchange was in flight
// come in one request (wire.PathJobUpdates): each is taken as it would be
// alone, with its own outcome in order — the claim's next job, an
// eviction taken as one, a refusal for an end under a claim the schedd
// does not know — and a request over the bound changes nothing.
func TestJobEndsInOneRequest(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/true\nlog = job.log\nqueue 7\n")
	jobOf := map[string]string{} // claim → job
	for _, act := range h.match(t, startd, 4) {
		claim, job, _ := strings.Cut(act, " ")
		jobOf[claim] = job
	}

	tooMany := wire.JobUpdates{Updates: make([]wire.JobUpdate, wire.MaxJobUpdates+1)}
	for i := range tooMany.Updates {
		tooMany.Updates[i] = wire.JobUpdate{ClaimID: "c1", Job: jobOf["c1"], Event: wire.EventExited, TakesNext: true}
	}
	if err := h.daemonCall(wire.PathJobUpdates, tooMany, nil); !wire.IsCode(err, wire.CodeBadRequest) {
		t.Fatalf("%d updates in one request: %v, want bad request", len(tooMany.Updates), err)
	}
	if got := h.status(t, jobOf["c1"]); got != "2" {
		t.Fatalf("after a refused request job %s is %s, want still running (2)", jobOf["c1"], got)
	}

	req := wire.JobUpdates{Updates: []wire.JobUpdate{
		{ClaimID: "c1", Job: jobOf["c1"], Event: wire.EventExited, TakesNext: true},
		{ClaimID: "c9", Job: jobOf["c2"], Event: wire.EventExited, TakesNext: true},
		{ClaimID: "c2", Job: jobOf["c2"], Event: wire.EventExited, ExitCode: 3, TakesNext: true},
		{ClaimID: "c3", Job: jobOf["c3"], Event: wire.EventEvicted, Reason: "the owner came back"},
		{ClaimID: "c4", Job: jobOf["c4"], Event: wire.EventHeld, Reason: "over its memory", TakesNext: true},
	}}
	var res wire.JobUpdatesResult
	if err := h.daemonCall(wire.PathJobUpdates, req, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != len(req.Updates) {
		t.Fatalf("%d outcomes for %d updates", len(res.Results), len(req.Updates))
	}
	nexts := map[string]bool{}
	for _, i := range []int{0, 2, 4} {
		o := res.Results[i]
		if err := o.Err(); err != nil || o.Next == nil || o.Next.ClaimID != req.Updates[i].ClaimID {
			t.Fatalf("outcome %d: %+v, %v; want the next job on claim %s", i, o, err, req.Updates[i].ClaimID)
		}
		next := jobIDOf(o.Next)
		if got := h.status(t, next); got != "2" || nexts[next] {
			t.Errorf("next job %s is %s (handed %v before), want running (2) and handed once", next, got, nexts[next])
		}
		nexts[next] = true
	}
	if o := res.Results[1]; !wire.IsCode(o.Err(), wire.CodeNotFound) || o.Status != 404 || o.Next != nil {
		t.Errorf("an end under an unknown claim: %+v, %v; want not found", o, o.Err())
	}
	if o := res.Results[3]; o.Err() != nil || o.Next != nil {
		t.Errorf("an eviction: %+v, %v; want taken, no next job", o, o.Err())
	}
	want := map[string]string{jobOf["c1"]: "4", jobOf["c2"]: "4", jobOf["c3"]: "1", jobOf["c4"]: "5"}
	for job, status := range want {
		if got := h.status(t, job); got != status && !(status == "4" && got == "gone") {
			t.Errorf("job %s is %s, want %s", job, got, status)
		}
	}
	if log := readLog(t, dir+"/job.log"); strings.Count(log, "005 ") != 2 || strings.Count(log, "012 ") != 1 {
		t.Errorf("user log: want two terminated and one held event:\n%s", log)
	}
}

// jobIDOf is the id ("C.P") of an activation's job, or "" without one.
func jobIDOf(act *wire.Activate) string {
	if act == nil || act.Job == nil {
		return ""
	}
	c, _ := classad.EvalInt(act.Job, "ClusterId")
	p, _ := classad.EvalInt(act.Job, "ProcId")
	return itoa(int(c)) + "." + itoa(int(p))
}
