package schedd

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// condor_vacate_job (HTCondor's manual, man-pages/condor_vacate_job.rst):
// a running job goes back to idle with an evicted event and keeps its
// place in the queue; its claim's job is vacated and the claim released;
// only the owner or an administrator may; a job that does not run is left
// alone. The job goes back to idle when the startd reports it gone.
func TestVacateJob(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nqueue\nhold = true\nqueue\n")
	if a := h.matchFirst(t, startd); a != "c1 1.0" {
		t.Fatal(a)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventStarted, Time: 1000})

	vacate := func(identity string, levels auth.Level, ids ...string) wire.ActResult {
		t.Helper()
		var r wire.ActResult
		act := wire.Act{Action: wire.ActVacate, JobSelection: wire.JobSelection{IDs: ids}}
		if err := h.client(identity, levels).Call(context.Background(), "POST", wire.PathAct, act, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := vacate("bob", auth.Write, "1.0"); r.Changed != 0 || r.Denied != 1 {
		t.Errorf("bob vacated alice's job: %+v", r)
	}
	if r := vacate("alice", auth.Write, "1.1"); r.Changed != 0 || r.Matched != 1 {
		t.Errorf("a held job: %+v, want it left alone", r)
	}
	if got := h.status(t, "1.1"); got != "5" {
		t.Errorf("the held job is %s after a vacate", got)
	}
	if r := vacate("alice", auth.Write, "1.0"); r.Changed != 1 {
		t.Fatalf("vacate: %+v", r)
	}
	// The startd is asked to stop the job; the job runs on until the
	// startd reports it gone, so it never runs twice at once.
	eventually(t, "the claim's job vacated", func() bool {
		startd.mu.Lock()
		defer startd.mu.Unlock()
		return slices.Equal(startd.vacated, []string{"c1"})
	})
	if got := h.status(t, "1.0"); got != "2" {
		t.Errorf("the job is %s before the startd reported it gone, want running (2)", got)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventEvicted, Reason: "vacated by alice"})
	if got := summary(h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.0"}}}), "JobStatus", "LastRemoteHost", "RemoteHost"); got != `1 "slot1@node" undefined` {
		t.Errorf("vacated job: %s", got)
	}
	if got := readLog(t, dir+"/job.log"); !strings.HasSuffix(got, "001 1.0\n004 1.0") {
		t.Errorf("job log:\n%s", got)
	}
	eventually(t, "the claim released", func() bool {
		startd.mu.Lock()
		defer startd.mu.Unlock()
		return slices.Equal(startd.released, []string{"c1"})
	})
	eventually(t, "the job offered again", func() bool {
		var reqs wire.ResourceRequests
		err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org"}, &reqs)
		return err == nil && len(reqs.Requests) == 1 && reqs.Requests[0].Count == 1
	})
	// An administrator may vacate anyone's job; an idle job is left alone.
	if r := vacate("root", auth.Administrator, "1.0"); r.Changed != 0 || r.Matched != 1 || r.Denied != 0 {
		t.Errorf("vacating an idle job: %+v", r)
	}
}
