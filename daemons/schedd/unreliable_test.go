package schedd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/jobtypes"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

func (f *fakeStartd) vacates() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.vacated...)
}

func (f *fakeStartd) setDead(dead bool) {
	f.mu.Lock()
	f.dead = dead
	f.mu.Unlock()
}

// requests returns a submitter's resource requests.
func (h *harness) requests(t testing.TB, submitter string) []wire.ResourceRequest {
	t.Helper()
	var reqs wire.ResourceRequests
	if err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: submitter}, &reqs); err != nil {
		t.Fatal(err)
	}
	return reqs.Requests
}

// matchTo matches a request to a fake startd's slot.
func (h *harness) matchTo(t testing.TB, request string, f *fakeStartd) {
	t.Helper()
	var res wire.MatchesResult
	m := wire.Matches{Submitter: "alice@test.org", Matches: []wire.Match{{Request: request, Slot: f.slot}}}
	if err := h.daemonCall(wire.PathMatches, m, &res); err != nil || res.Accepted != 1 {
		t.Fatalf("match of %s to %s: %+v %v", request, str(f.slot, "Name"), res, err)
	}
}

// runOn matches the submitter's first request to f and returns the
// activation ("claim job").
func (h *harness) runOn(t testing.TB, f *fakeStartd) string {
	t.Helper()
	reqs := h.requests(t, "alice@test.org")
	if len(reqs) == 0 {
		t.Fatal("no requests")
	}
	h.matchTo(t, reqs[0].ID, f)
	return f.next(t)
}

func (h *harness) one(t testing.TB, id string, names ...string) string {
	t.Helper()
	ads := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{id}}})
	if len(ads) == 0 {
		ads = streamQuery(t, h.client("alice", auth.Read), wire.PathHistory, wire.HistoryQuery{IDs: []string{id}})
	}
	return summary(ads, names...)
}

// gossip passes the schedd a membership event about a startd.
func (h *harness) gossip(kind membership.EventKind, f *fakeStartd) {
	h.s.onMember(membership.Event{Kind: kind, Member: membership.Member{Name: "startd@" + f.addr,
		Meta: membership.Meta{Kind: "startd", Addr: f.addr}}})
}

// Job types: requests and job ads carry each type's counts, and its mean
// runtime once a job of it completed; the records survive a restart and
// are rebuilt from the history when the store lacks them.
func TestJobTypeStatistics(t *testing.T) {
	p := pooltest.New(t)
	a := newMachine(t, p, "startd-a:1", "a")
	cfg := testConfig(t)
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/true\n+KiteJobType = \"render\"\nqueue 2\n")
	h.mustSubmit("alice", dir, "executable = /bin/true\nbatch_name = nightly\nrequest_memory = 10\nqueue\n")
	types := func(ads ...*classad.Ad) string {
		return summary(ads, "KiteTypeJobs", "KiteTypeDone", "KiteTypeRunning", "KiteTypeRuntime", "KiteTypeRuntimeIndex")
	}
	var reqAds []*classad.Ad
	for _, r := range h.requests(t, "alice@test.org") {
		reqAds = append(reqAds, r.Ad)
	}
	if got := types(reqAds...); got != "2 0 0 undefined undefined\n1 0 0 undefined undefined" {
		t.Fatalf("requests' types:\n%s", got)
	}
	act := h.runOn(t, a) // 1.0, render
	if act != "a-c1 1.0" {
		t.Fatal(act)
	}
	h.update(t, wire.JobUpdate{ClaimID: "a-c1", Job: "1.0", Event: wire.EventStarted, Time: 1000})
	h.update(t, wire.JobUpdate{ClaimID: "a-c1", Job: "1.0", Event: wire.EventExited, Time: 1000 + 1200})
	if next := a.next(t); next != "a-c1 1.1" { // claim reuse
		t.Fatal(next)
	}
	h.update(t, wire.JobUpdate{ClaimID: "a-c1", Job: "1.1", Event: wire.EventStarted, Time: 3000})
	want := "2 1 1 1200 -5" // 2 jobs (one done), one running; 20 minutes is index -5
	eventually(t, "the type counts", func() bool {
		return types(h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.1"}}})...) == want
	})
	if got := h.one(t, "1.1", "KiteTypeRuntime"); got != "1200" {
		t.Errorf("projection: %s", got)
	}
	if ads := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{Constraint: "KiteTypeRuntime > 1000"}}); len(ads) != 1 {
		t.Errorf("a constraint on the type's runtime selects %d jobs", len(ads))
	}

	// The records come back after a restart, and from the history when the
	// store lost them.
	h.update(t, wire.JobUpdate{ClaimID: "a-c1", Job: "1.1", Event: wire.EventExited, Time: 3000 + 1800})
	eventually(t, "1.1 in the history", func() bool { return h.status(t, "1.1") == "gone" })
	h.stop()
	h = startSchedd(t, p, cfg)
	check := func(when string) {
		t.Helper()
		rec, done := h.s.types.Record("render")
		avT, _ := rec.Runtime()
		if got := fmt.Sprint(avT, done); got != "1500 2" {
			t.Errorf("%s: render's record %s, want 1500 2", when, got)
		}
	}
	check("after a restart")
	h.stop()
	q, err := queue.Open(QueuePath(cfg.Spool), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q.Update(func(tx *queue.Tx) error {
		tx.PutAux(jobtypes.Marker, nil)
		tx.PutAux(jobtypes.KeyPrefix+"render", nil)
		return nil
	})
	q.Close()
	h = startSchedd(t, p, cfg)
	check("rebuilt from the history")
}

// A startd gossip finds dead has its jobs requeued after requeue_after,
// long before the claim lease would end, with the loss counted; its
// claim is vacated when it is back. A startd back before requeue_after
// keeps its jobs.
func TestGossipRequeue(t *testing.T) {
	p := pooltest.New(t)
	a := newMachine(t, p, "startd-a:1", "a")
	cfg := testConfig(t)
	cfg.ClaimLease = time.Hour
	cfg.RequeueAfter = 300 * time.Millisecond
	timers := make(chan *fakeTimer, 2)
	cfg.afterFunc = func(d time.Duration, f func()) func() bool {
		ft := &fakeTimer{d: d, fire: f}
		timers <- ft
		return ft.stop
	}
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nqueue\n")
	h.runOn(t, a)
	h.update(t, wire.JobUpdate{ClaimID: "a-c1", Job: "1.0", Event: wire.EventStarted})

	// A false alarm: the startd is back before requeue_after, which
	// cancels the requeue to come.
	h.gossip(membership.Failed, a)
	alarm := <-timers
	if alarm.d != cfg.RequeueAfter {
		t.Fatalf("requeue scheduled after %v, want requeue_after %v", alarm.d, cfg.RequeueAfter)
	}
	h.gossip(membership.Joined, a)
	if !alarm.stopped() {
		t.Fatal("the startd is back, and its requeue is still to come")
	}
	if got := h.status(t, "1.0"); got != "2" {
		t.Fatalf("after a false alarm the job is %s, want running (2)", got)
	}

	a.setDead(true)
	h.gossip(membership.Failed, a)
	requeue := <-timers
	if got := h.status(t, "1.0"); got != "2" {
		t.Fatalf("before requeue_after the job is %s, want running (2)", got)
	}
	requeue.fire()
	if got := h.status(t, "1.0"); got != "1" {
		t.Fatalf("after requeue_after the job is %s, want idle (1)", got)
	}
	if got := h.one(t, "1.0", "KiteAborts", "LastRemoteHost", "RemoteHost"); got != `1 "slot1@a" undefined` {
		t.Errorf("requeued job: %s", got)
	}
	eventually(t, "the evicted event saying why", func() bool {
		log, _ := os.ReadFile(filepath.Join(dir, "job.log"))
		return strings.Contains(string(log), "004 (") && strings.Contains(string(log), "gossip found its startd")
	})
	// Back: the claim given up is vacated, so the job cannot run twice.
	a.setDead(false)
	h.gossip(membership.Joined, a)
	eventually(t, "the vacate of the old claim", func() bool { v := a.vacates(); return len(v) == 1 && v[0] == "a-c1" })
}

// A job whose machine is lost more often than max_aborts is held with
// code 26, subcode 1; a release starts the count again.
func TestTooManyAbortsHolds(t *testing.T) {
	p := pooltest.New(t)
	a := newMachine(t, p, "startd-a:1", "a")
	cfg := testConfig(t)
	cfg.ClaimLease = time.Hour
	cfg.MaxAborts = 1
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nqueue\n")
	for i := range 2 {
		h.runOn(t, a)
		h.gossip(membership.Failed, a)
		want := []string{"1", "5"}[i]
		eventually(t, "the job's loss", func() bool { return h.status(t, "1.0") == want })
		h.gossip(membership.Joined, a)
	}
	if got := h.one(t, "1.0", "KiteAborts", "HoldReasonCode", "HoldReasonSubCode"); got != "2 26 1" {
		t.Errorf("held job: %s", got)
	}
	if r := h.one(t, "1.0", "HoldReason"); !strings.Contains(r, "lost 2 times, more than the 1 allowed") {
		t.Errorf("HoldReason %s", r)
	}
	var res wire.ActResult
	if err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathAct,
		wire.Act{Action: wire.ActRelease, JobSelection: wire.JobSelection{IDs: []string{"1.0"}}}, &res); err != nil || res.Changed != 1 {
		t.Fatalf("release: %+v %v", res, err)
	}
	if got := h.one(t, "1.0", "JobStatus", "KiteAborts"); got != "1 undefined" {
		t.Errorf("released job: %s", got)
	}
	if got := readLog(t, filepath.Join(dir, "job.log")); got != "000 1.0\n004 1.0\n004 1.0\n012 1.0\n013 1.0" {
		t.Errorf("job log:\n%s", got)
	}
}

// putOutput sends an output file of a job under a claim, as a starter
// does.
func putOutput(t testing.TB, p *pooltest.Pool, h *harness, job, file, claim, data string) (int, string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: p.Network.DialContext}}
	u := "http://" + h.s.Addr() + wire.PathJobOutput + "?job=" + job + "&file=" + url.QueryEscape(file)
	req, _ := http.NewRequest("PUT", u, bytes.NewReader([]byte(data)))
	req.Header.Set("Authorization", "Bearer "+p.Token("startd@node", auth.Daemon))
	req.Header.Set(wire.HeaderClaim, claim)
	sum := sha256.Sum256([]byte(data))
	req.Header.Set(wire.HeaderSHA256, hex.EncodeToString(sum[:]))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// A job that may run a replica gets a replica request once it runs; the
// replica runs on another machine, sends the outputs, and wins: the
// first instance is killed, the job completes once, and its history and
// log say which instance won.
func TestReplicaWins(t *testing.T) {
	p := pooltest.New(t)
	a := newMachine(t, p, "startd-a:1", "a")
	b := newMachine(t, p, "startd-b:1", "b")
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\noutput = out.txt\n+KiteReplicas = 1\nqueue\n")
	if act := h.runOn(t, a); act != "a-c1 1.0" {
		t.Fatal(act)
	}
	if reqs := h.requests(t, "alice@test.org"); len(reqs) != 0 {
		t.Fatalf("a replica request before the job started: %+v", reqs)
	}
	h.update(t, wire.JobUpdate{ClaimID: "a-c1", Job: "1.0", Event: wire.EventStarted})
	reqs := h.requests(t, "alice@test.org")
	if len(reqs) != 1 || !strings.HasPrefix(reqs[0].ID, "r") || reqs[0].Count != 1 {
		t.Fatalf("replica requests: %+v", reqs)
	}
	if v, _ := classad.EvalAttr(reqs[0].Ad, attr.KiteReplica, nil); !v.IsTrue() {
		t.Errorf("the replica request is not marked: %s", reqs[0].Ad)
	}
	if req, _ := reqs[0].Ad.Lookup(attr.Requirements); !strings.Contains(ast.String(req), `TARGET.Machine isnt "a"`) {
		t.Errorf("the replica request may run where the job runs: %s", ast.String(req))
	}
	h.matchTo(t, reqs[0].ID, b)
	if act := b.next(t); act != "b-c1 1.0" {
		t.Fatal(act)
	}
	if reqs := h.requests(t, "alice@test.org"); len(reqs) != 0 {
		t.Errorf("more replicas than allowed offered: %+v", reqs)
	}
	h.update(t, wire.JobUpdate{ClaimID: "b-c1", Job: "1.0", Event: wire.EventStarted})
	if got := h.one(t, "1.0", "JobStatus", "RemoteHost", "KiteReplicaRuns", "NumJobStarts"); got != `2 "slot1@a" 1 1` {
		t.Errorf("running with a replica: %s", got)
	}
	// The replica sends its output first: the first instance's is refused.
	if code, body := putOutput(t, p, h, "1.0", "out.txt", "b-c1", "from b"); code != 204 {
		t.Fatalf("the replica's output: %d %s", code, body)
	}
	if code, body := putOutput(t, p, h, "1.0", "out.txt", "a-c1", "from a"); code != 409 || !strings.Contains(body, "only one instance's outputs are kept") {
		t.Errorf("the other instance's output: %d %s", code, body)
	}
	h.update(t, wire.JobUpdate{ClaimID: "b-c1", Job: "1.0", Event: wire.EventExited, ExitCode: 0})
	eventually(t, "the first instance killed", func() bool { v := a.vacates(); return len(v) == 1 && v[0] == "a-c1" })
	eventually(t, "the claims released", func() bool { return len(a.releases()) == 1 && len(b.releases()) == 1 })
	if got := h.one(t, "1.0", "JobStatus", "LastRemoteHost", "KiteWinner", "KiteWinnerInstance", "KiteReplicaRuns"); got != `4 "slot1@b" "slot1@b" 1 1` {
		t.Errorf("history: %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "from b" {
		t.Errorf("out.txt = %q, want the winner's", b)
	}
	// The loser's last word comes too late to change anything.
	if err := h.daemonCall(wire.PathJobUpdate, wire.JobUpdate{ClaimID: "a-c1", Job: "1.0", Event: wire.EventEvicted}, nil); !wire.IsCode(err, wire.CodeNotFound) {
		t.Errorf("the loser's event: %v", err)
	}
	if got := readLog(t, filepath.Join(dir, "job.log")); got != "000 1.0\n001 1.0\n008 1.0\n008 1.0\n005 1.0" {
		t.Errorf("job log:\n%s", got)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "job.log"))
	for _, want := range []string{"Replica 1 of the job executes on slot1@b", "Replica 1 of the job, on slot1@b, finished first and wins; 1 replica(s) ran, 1 other instance(s) killed"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// When the first instance of a job with a replica is lost, the replica
// carries on as the job's run; when it is evicted too, the job goes back
// to idle as any job does. A restarted schedd vacates replicas' claims.
func TestReplicaCarriesOn(t *testing.T) {
	p := pooltest.New(t)
	a := newMachine(t, p, "startd-a:1", "a")
	b := newMachine(t, p, "startd-b:1", "b")
	cfg := testConfig(t)
	cfg.Replicas = 1
	cfg.ClaimLease = time.Hour
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nqueue\n")
	h.runOn(t, a)
	h.update(t, wire.JobUpdate{ClaimID: "a-c1", Job: "1.0", Event: wire.EventStarted})
	eventually(t, "the submitter's ad to offer a replica", func() bool {
		return summary([]*classad.Ad{h.s.submitterAd("alice", 1, queue.Counts{Running: 1})}, attr.KiteReplicable) == "1"
	})
	h.runOn(t, b)
	h.update(t, wire.JobUpdate{ClaimID: "b-c1", Job: "1.0", Event: wire.EventStarted})

	h.gossip(membership.Failed, a)
	eventually(t, "the replica to carry on", func() bool { return h.one(t, "1.0", "JobStatus", "RemoteHost") == `2 "slot1@b"` })
	if got := h.one(t, "1.0", "KiteAborts"); got != "undefined" {
		t.Errorf("a lost instance counted as the job's loss: %s", got)
	}
	h.stop()
	h = startSchedd(t, p, cfg)
	eventually(t, "the replica's claim vacated", func() bool { v := b.vacates(); return len(v) == 1 && v[0] == "b-c1" })
	if got := h.one(t, "1.0", "JobStatus"); got != "1" {
		t.Errorf("after the restart: %s", got)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "job.log")); !strings.Contains(string(log), "replica 1 on slot1@b carries on") {
		t.Errorf("the log does not say the replica carries on:\n%s", log)
	}
}

// fakeTimer is a requeue the test fires, or sees stopped.
type fakeTimer struct {
	d    time.Duration
	fire func()
	mu   sync.Mutex
	done bool
}

func (f *fakeTimer) stop() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	was := !f.done
	f.done = true
	return was
}

func (f *fakeTimer) stopped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done
}
