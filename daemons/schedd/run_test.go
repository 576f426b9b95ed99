package schedd

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// fakeStartd answers the claim endpoints as a startd would and records
// what the schedd asked.
type fakeStartd struct {
	mu        sync.Mutex
	addr      string
	slot      *classad.Ad
	claims    int
	activated chan string // "claim job"
	released  []string
	vacated   []string
	dead      bool // keep-alives fail
	refuse    bool // claims are refused
	// running is the job each claim runs, as keep-alives answer.
	running map[string]string
	// run, when set, is called for each activation (in a goroutine).
	run func(claim, job string)
}

// newFakeStartd is a fake startd of one slot on machine "node" that
// takes jobs asking for at most 4096 MiB; its claim ids are c1, c2, ...
func newFakeStartd(t testing.TB, p *pooltest.Pool) *fakeStartd {
	return fakeMachine(t, p, "startd:9620", "node", "", "TARGET.RequestMemory <= 4096")
}

// newMachine is a fake startd of one slot on machine name, serving at
// addr; its claim ids start with the machine's name.
func newMachine(t testing.TB, p *pooltest.Pool, addr, name string) *fakeStartd {
	return fakeMachine(t, p, addr, name, name+"-", "true")
}

// fakeMachine serves a fake startd of one slot whose ad has the
// requirements, naming its claims prefix c1, prefix c2, ...
func fakeMachine(t testing.TB, p *pooltest.Pool, addr, name, prefix, requirements string) *fakeStartd {
	f := &fakeStartd{activated: make(chan string, 100)}
	m := wire.NewMux(auth.NewVerifier(p.Issuer.Public(), p.Name), nil)
	m.Handle("POST "+wire.PathClaim, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var req wire.ClaimRequest
		if err := r.Decode(&req); err != nil {
			return nil, err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.refuse || req.ClaimID != "secret" || req.Job == nil || req.Lease <= 0 {
			return nil, wire.Conflict("claim refused")
		}
		f.claims++
		return wire.ClaimResult{ClaimID: fmt.Sprintf("%sc%d", prefix, f.claims), Slot: f.slot, Lease: req.Lease}, nil
	})
	m.Handle("POST "+wire.PathActivate, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var a wire.Activate
		if err := r.Decode(&a); err != nil {
			return nil, err
		}
		for _, private := range []string{attrClaimID, attrReplicaClaims} {
			if _, ok := a.Job.Lookup(private); ok {
				return nil, wire.BadRequest("the job ad carries %s", private)
			}
		}
		cl, _ := classad.EvalInt(a.Job, "ClusterId")
		pr, _ := classad.EvalInt(a.Job, "ProcId")
		if f.run != nil {
			go f.run(a.ClaimID, fmt.Sprintf("%d.%d", cl, pr))
			return nil, nil
		}
		f.activated <- fmt.Sprintf("%s %d.%d", a.ClaimID, cl, pr)
		return nil, nil
	})
	m.Handle("POST "+wire.PathAlive, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.dead {
			return nil, wire.Unavailable("gone")
		}
		var ref wire.ClaimRef
		r.Decode(&ref)
		return wire.AliveResult{Lease: 60, Job: f.running[ref.ClaimID]}, nil
	})
	m.Handle("POST "+wire.PathRelease, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var ref wire.ClaimRef
		r.Decode(&ref)
		f.mu.Lock()
		f.released = append(f.released, ref.ClaimID)
		f.mu.Unlock()
		return nil, nil
	})
	m.Handle("POST "+wire.PathVacate, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var v wire.Vacate
		r.Decode(&v)
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.dead {
			return nil, wire.Unavailable("gone")
		}
		f.vacated = append(f.vacated, v.ClaimID)
		return nil, nil
	})
	f.addr = serve(t, p, addr, m)
	f.slot = mustParse(`[ MyType = "Machine"; Name = "slot1@` + name + `"; Machine = "` + name + `"; MyAddress = "` + f.addr + `";
		ClaimId = "secret"; Cpus = 1; Memory = 4096; Disk = 100000000; Arch = "X86_64"; OpSys = "LINUX";
		FileSystemDomain = "test.org"; HasFileTransfer = true; Requirements = ` + requirements + ` ]`)
	return f
}

func (f *fakeStartd) next(t testing.TB) string {
	t.Helper()
	select {
	case a := <-f.activated:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("no activation")
		return ""
	}
}

func (f *fakeStartd) releases() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.released...)
}

// daemonCall calls the schedd as a daemon does.
func (h *harness) daemonCall(path string, in, out any) error {
	return h.client("startd@node", auth.Daemon).Call(context.Background(), "POST", path, in, out)
}

func (h *harness) update(t testing.TB, u wire.JobUpdate) {
	t.Helper()
	if err := h.daemonCall(wire.PathJobUpdate, u, nil); err != nil {
		t.Fatalf("update %+v: %v", u, err)
	}
}

func (h *harness) status(t testing.TB, id string) string {
	t.Helper()
	ads := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{id}}})
	if len(ads) == 0 {
		return "gone"
	}
	return summary(ads, "JobStatus")
}

// A negotiation cycle as the negotiator and a startd see it: requests by
// autocluster in priority order, a match, the claim and activation, job
// updates with usage and exit, on-exit policy with retries, claim reuse
// for the owner's next jobs that fit, and the release of the claim.
func TestNegotiateAndRun(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\narguments = $(Process)\nlog = job.log\nrequest_memory = 100\nqueue 2\n")
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nrequest_memory = 100\nrequirements = TARGET.Memory > 999999\nqueue\n")
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nrequest_memory = 200\npriority = 10\nmax_retries = 1\nqueue\n")
	h.mustSubmit("bob", dir, "executable = /bin/sleep\nqueue\n")

	var reqs wire.ResourceRequests
	if err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org", Significant: []string{"RequestMemory"}}, &reqs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reqs.Requests {
		got = append(got, fmt.Sprintf("%d×%s", r.Count, summary([]*classad.Ad{r.Ad}, "ClusterId", "ProcId", "AutoClusterId")))
	}
	if strings.Join(got, " | ") != "1×3 0 1 | 2×1 0 2 | 1×2 0 3" {
		t.Fatalf("requests: %v", got)
	}
	if _, ok := reqs.Requests[0].Ad.Lookup("ClaimId"); ok {
		t.Error("a request carries a claim id")
	}
	var res wire.MatchesResult
	err := h.daemonCall(wire.PathMatches, wire.Matches{Submitter: "alice@test.org", Matches: []wire.Match{{Request: reqs.Requests[1].ID, Slot: startd.slot}}}, &res)
	if err != nil || res.Accepted != 1 {
		t.Fatalf("matches: %+v %v", res, err)
	}
	if a := startd.next(t); a != "c1 1.0" {
		t.Fatalf("activation %q", a)
	}
	if got := summary(h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.0"}}}), "JobStatus", "RemoteHost", "ClaimId"); got != `2 "slot1@node" undefined` {
		t.Errorf("running job: %s", got)
	}
	if err := h.daemonCall(wire.PathJobUpdate, wire.JobUpdate{ClaimID: "c9", Job: "1.0", Event: wire.EventStarted}, nil); !wire.IsCode(err, wire.CodeNotFound) {
		t.Errorf("update with another claim: %v", err)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventStarted, Time: 1000})
	// A startd that did not hear the answer (a schedd killed after its
	// commit) sends the event again: the run's start counts once, with one
	// execute event (NumJobStarts and the job log below).
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventStarted, Time: 1000})
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventExited, Time: 1010, ExitCode: 0, WallSeconds: 10, UserCPU: 7, SysCPU: 1, PeakMemoryMB: 42})
	// Claim reuse takes the owner's job of the highest priority first.
	if a := startd.next(t); a != "c1 3.0" {
		t.Fatalf("claim reuse: %q, want the priority 10 job", a)
	}
	hist := streamQuery(t, h.client("alice", auth.Read), wire.PathHistory, wire.HistoryQuery{IDs: []string{"1.0"}})
	if got := summary(hist, "JobStatus", "ExitCode", "RemoteWallClockTime", "RemoteUserCpu", "MemoryUsage", "NumJobStarts", "JobStartDate", "CompletionDate"); got != "4 0 10 7 42 1 1000 1010" {
		t.Errorf("completed job: %s", got)
	}
	// max_retries = 1: the first failure puts the job back (the claim
	// goes on with the next job), the second ends it.
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "3.0", Event: wire.EventExited, ExitCode: 3})
	if a := startd.next(t); a != "c1 1.1" {
		t.Fatalf("claim reuse after a failure: %q", a)
	}
	// A job that ends at once is reported once: its start comes with its
	// last event.
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.1", Event: wire.EventHeld, Reason: "over its memory", HoldCode: 34, StartedAt: 1020})
	if a := startd.next(t); a != "c1 3.0" {
		t.Fatalf("retry: %q", a)
	}
	if got := summary(h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.1"}}}), "JobStatus", "HoldReasonCode", "HoldReason", "NumJobStarts", "JobStartDate"); got != `5 34 "over its memory" 1 1020` {
		t.Errorf("held by the startd: %s", got)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "3.0", Event: wire.EventExited, ExitCode: 3})
	eventually(t, "the claim's release", func() bool { return len(startd.releases()) == 1 })
	if startd.releases()[0] != "c1" || h.status(t, "3.0") != "gone" || h.status(t, "2.0") != "1" {
		t.Errorf("released %v; 3.0 %s; 2.0 %s", startd.releases(), h.status(t, "3.0"), h.status(t, "2.0"))
	}
	if got := readLog(t, dir+"/job.log"); got != "000 1.0\n000 1.1\n000 2.0\n000 3.0\n001 1.0\n005 1.0\n001 1.1\n012 1.1\n005 3.0" {
		t.Errorf("job log:\n%s", got)
	}
	if err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org"}, &reqs); err != nil || len(reqs.Requests) != 1 {
		t.Errorf("requests after: %+v %v", reqs, err)
	}
}

// A claim whose startd stops answering past the lease gives its job back
// to idle with an evicted event; an evicted job goes back to idle too.
func TestLostClaims(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	cfg := testConfig(t)
	cfg.ClaimLease = 300 * time.Millisecond
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nqueue 2\n")
	match := func() {
		var reqs wire.ResourceRequests
		if err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org"}, &reqs); err != nil || len(reqs.Requests) == 0 {
			t.Fatalf("requests %+v %v", reqs, err)
		}
		var res wire.MatchesResult
		if err := h.daemonCall(wire.PathMatches, wire.Matches{Submitter: "alice@test.org", Matches: []wire.Match{{Request: reqs.Requests[0].ID, Slot: startd.slot}}}, &res); err != nil || res.Accepted != 1 {
			t.Fatalf("matches %+v %v", res, err)
		}
	}
	match()
	if a := startd.next(t); a != "c1 1.0" {
		t.Fatal(a)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventEvicted, Reason: "The owner came back", WallSeconds: 3})
	if got := h.status(t, "1.0"); got != "1" {
		t.Errorf("evicted job: %s", got)
	}
	match()
	a := startd.next(t)
	startd.mu.Lock()
	startd.dead = true
	startd.mu.Unlock()
	job := strings.Fields(a)[1]
	eventually(t, "the lost claim's job to be idle", func() bool { return h.status(t, job) == "1" })
	eventually(t, "the evicted event", func() bool { return strings.HasSuffix(readLog(t, dir+"/job.log"), "004 1.0\n004 "+job) })
	if got := summary(h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.0"}}}), "RemoteWallClockTime", "LastRemoteHost"); got != `3 "slot1@node"` {
		t.Errorf("evicted job's usage: %s", got)
	}
}

// A schedd restarted while jobs ran puts them back to idle, vacates their
// claims, and offers them again once the vacate succeeded.
func TestRestartWithRunningJobs(t *testing.T) {
	r := runOneJob(t)
	startd, dir := r.startd, r.dir
	h := r.restart()

	var reqs wire.ResourceRequests
	if got := h.status(t, "1.0"); got != "1" {
		t.Errorf("after the restart: %s", got)
	}
	eventually(t, "the old claim's vacate", func() bool {
		startd.mu.Lock()
		defer startd.mu.Unlock()
		return len(startd.vacated) == 1 && startd.vacated[0] == "c1"
	})
	eventually(t, "the job to be offered again", func() bool {
		h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org"}, &reqs)
		return len(reqs.Requests) == 1
	})
	if got := readLog(t, dir+"/job.log"); got != "000 1.0\n004 1.0" {
		t.Errorf("job log:\n%s", got)
	}
}

// A schedd restarted while a job runs reconnects to it when its startd
// says the claim still runs the job: the job stays running, its log says
// so, its end is taken, and its claim is released (not reused) after.
func TestRestartReconnects(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	cfg := testConfig(t)
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nqueue 2\n")
	if a := h.matchFirst(t, startd); a != "c1 1.0" {
		t.Fatalf("activation %q", a)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventStarted, Time: 1000})
	h.stop()
	startd.mu.Lock()
	startd.running = map[string]string{"c1": "1.0"}
	startd.mu.Unlock()
	h = startSchedd(t, p, cfg)

	if got := summary(h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.0"}}}), "JobStatus", "RemoteHost"); got != `2 "slot1@node"` {
		t.Errorf("after the restart: %s, want still running", got)
	}
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventExited, Time: 1010, ExitCode: 0})
	eventually(t, "the claim's release", func() bool { return len(startd.releases()) == 1 })
	startd.mu.Lock()
	vacated := startd.vacated
	startd.mu.Unlock()
	if len(vacated) != 0 || h.status(t, "1.0") != "gone" || h.status(t, "1.1") != "1" {
		t.Errorf("vacated %v; 1.0 %s; 1.1 %s", vacated, h.status(t, "1.0"), h.status(t, "1.1"))
	}
	if got := readLog(t, dir+"/job.log"); got != "000 1.0\n000 1.1\n001 1.0\n023 1.0\n005 1.0" {
		t.Errorf("job log:\n%s", got)
	}
}

// A reconnected claim whose slot the collector still advertises runs the
// owner's next job when its job ends.
func TestRestartReconnectsAndReuses(t *testing.T) {
	p := pooltest.New(t)
	coll := newFakeCollector(t, p)
	startd := newFakeStartd(t, p)
	cfg := testConfig(t)
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nqueue 2\n")
	if a := h.matchFirst(t, startd); a != "c1 1.0" {
		t.Fatalf("activation %q", a)
	}
	h.stop()
	startd.mu.Lock()
	startd.running = map[string]string{"c1": "1.0"}
	startd.mu.Unlock()
	coll.mu.Lock()
	coll.slot = startd.slot
	coll.mu.Unlock()
	h = startSchedd(t, p, cfg)
	h.update(t, wire.JobUpdate{ClaimID: "c1", Job: "1.0", Event: wire.EventExited, ExitCode: 0, StartedAt: 1000})
	if a := startd.next(t); a != "c1 1.1" {
		t.Fatalf("after the reconnected job: %q, want the claim reused", a)
	}
}

// matchFirst matches alice's first resource request to the fake startd's
// slot and returns the activation that follows ("claim job").
func (h *harness) matchFirst(t *testing.T, startd *fakeStartd) string {
	t.Helper()
	return h.match(t, startd, 1)[0]
}

// match matches alice's first resource request n times to the fake
// startd's slot and returns the n activations that follow ("claim job").
func (h *harness) match(t *testing.T, startd *fakeStartd, n int) []string {
	t.Helper()
	var reqs wire.ResourceRequests
	if err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org"}, &reqs); err != nil || len(reqs.Requests) == 0 {
		t.Fatalf("requests %+v: %v", reqs, err)
	}
	ms := make([]wire.Match, n)
	for i := range ms {
		ms[i] = wire.Match{Request: reqs.Requests[0].ID, Slot: startd.slot}
	}
	h.daemonCall(wire.PathMatches, wire.Matches{Submitter: "alice@test.org", Matches: ms}, nil)
	acts := make([]string, n)
	for i := range acts {
		acts[i] = startd.next(t)
	}
	return acts
}

// A restarted schedd whose running job's startd does not answer yet (it
// is restarting too) keeps the job running and asks again, as HTCondor's
// schedd waits out the job's lease before it gives a job up: the startd
// comes back naming the job (whose end it still holds), and the job is
// reconnected, not run a second time.
func TestRestartWaitsForAStartdComingBack(t *testing.T) {
	r := runOneJob(t)
	startd, dir, claim := r.startd, r.dir, r.claim
	startd.mu.Lock()
	startd.dead = true
	startd.mu.Unlock()
	h := r.restart()
	if got := h.status(t, "1.0"); got != "2" {
		t.Fatalf("with its startd away the job is %s, want still running (2)", got)
	}
	startd.mu.Lock()
	startd.dead = false
	startd.running = map[string]string{claim: "1.0"}
	startd.mu.Unlock()
	eventually(t, "the reconnected event", func() bool { return strings.HasSuffix(readLog(t, dir+"/job.log"), "023 1.0") })
	if got := h.status(t, "1.0"); got != "2" {
		t.Errorf("the reconnected job is %s, want running (2)", got)
	}
	startd.mu.Lock()
	defer startd.mu.Unlock()
	if len(startd.vacated) != 0 {
		t.Errorf("the reconnected job's claim was vacated: %v", startd.vacated)
	}
}

// oneJob is a schedd that stopped while alice's one job ran on a fake
// startd under claim.
type oneJob struct {
	t          *testing.T
	pool       *pooltest.Pool
	cfg        Config
	startd     *fakeStartd
	dir, claim string
}

func runOneJob(t *testing.T) *oneJob {
	p := pooltest.New(t)
	r := &oneJob{t: t, pool: p, cfg: testConfig(t), startd: newFakeStartd(t, p), dir: t.TempDir()}
	h := startSchedd(t, p, r.cfg)
	h.mustSubmit("alice", r.dir, "executable = /bin/sleep\nlog = job.log\nqueue\n")
	r.claim, _, _ = strings.Cut(h.matchFirst(t, r.startd), " ")
	h.stop()
	return r
}

// restart starts the schedd again on the same queue.
func (r *oneJob) restart() *harness { return startSchedd(r.t, r.pool, r.cfg) }
