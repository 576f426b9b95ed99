package schedd

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// A schedd whose disk fills stays up (issue 15, finding 3): queries and
// the history go on, every change is refused with the write's error and
// leaves nothing behind (a refused submit's jobs never show), and once the
// disk has room the schedd takes changes again, with no restart.
func TestFullDiskKeepsServing(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	full := fillable(&cfg)
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, threeJobs)
	alice := h.client("alice", auth.Write)
	act := func(action, id string) (wire.ActResult, error) {
		var res wire.ActResult
		err := alice.Call(context.Background(), "POST", wire.PathAct, wire.Act{Action: action, JobSelection: wire.JobSelection{IDs: []string{id}}}, &res)
		return res, err
	}
	if _, err := act(wire.ActRemove, "1.0"); err != nil {
		t.Fatal(err)
	}
	// A cluster id handed out before the disk fills.
	var nc wire.NewCluster
	if err := alice.Call(context.Background(), "POST", wire.PathNewCluster, nil, &nc); err != nil {
		t.Fatal(err)
	}
	queue := func() string {
		return summary(h.query("alice", wire.JobQuery{}), "ClusterId", "ProcId", "JobStatus")
	}
	before := queue()

	full.Store(true)
	refused := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "no space left on device") {
			t.Errorf("%s on a full disk: %v, want a refusal that says no space left on device", what, err)
		}
	}
	_, err := h.submitText("alice", dir, threeJobs)
	refused("a submit", err)
	refused("a submit with a cluster id in hand", submitTo(t, alice, nc.Cluster, dir))
	_, err = act(wire.ActHold, "1.1")
	refused("a hold", err)
	_, err = act(wire.ActRemove, "1")
	refused("a rm", err)
	if after := queue(); after != before {
		t.Errorf("the queue changed on a full disk:\n%s\nwant\n%s", after, before)
	}
	if hist := streamQuery(t, h.client("alice", auth.Read), wire.PathHistory, wire.HistoryQuery{}); len(hist) != 1 {
		t.Errorf("history on a full disk: %d jobs, want 1", len(hist))
	}
	select {
	case err := <-h.done:
		t.Fatalf("the schedd stopped on a full disk: %v", err)
	default:
	}

	full.Store(false)
	if res, err := act(wire.ActHold, "1.1"); err != nil || res.Changed != 1 {
		t.Errorf("hold once the disk has room: %+v %v", res, err)
	}
	if err := submitTo(t, alice, nc.Cluster, dir); err != nil {
		t.Errorf("submit once the disk has room: %v", err)
	}
	if got := queue(); got != "1 1 5\n1 2 1\n2 0 1\n2 1 1\n2 2 1" {
		t.Errorf("queue once the disk has room:\n%s", got)
	}
}

// submitTo submits threeJobs to a cluster id handed out already.
func submitTo(t *testing.T, c *wire.Client, cluster int64, dir string) error {
	t.Helper()
	d, _, err := submit.Parse("job.sub", []byte(threeJobs))
	if err != nil {
		t.Fatal(err)
	}
	env := submit.Env{Cluster: int(cluster), Owner: "alice", Dir: dir,
		Host: submit.HostInfo{Arch: "X86_64", OpSys: "LINUX", OpSysAndVer: "Debian12", FileSystemDomain: "test.org"}}
	cl, _, err := d.Expand(env)
	if err != nil {
		t.Fatal(err)
	}
	body := classad.AppendJSONArray(nil, append([]*classad.Ad{cl.Ad}, cl.Procs...))
	var res wire.SubmitResult
	return c.CallRaw(context.Background(), "POST", wire.PathSubmit+"?cluster="+strconv.FormatInt(cluster, 10), body, &res)
}

// A schedd that restarts on a full disk with jobs that were running comes
// up and serves; the jobs it cannot requeue yet stay running in the queue
// (nothing starts them twice) and go back to idle once the disk has room.
func TestFullDiskRestart(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	q, err := queue.Open(QueuePath(cfg.Spool), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.NewCluster("alice")
	if err != nil {
		t.Fatal(err)
	}
	ad := mustParse(fmt.Sprintf(`[ ClusterId = %d; Owner = "alice"; JobStatus = 2; Cmd = "/bin/true"; RemoteHost = "slot1@gone";
		ClaimId = "claim-1"; KiteStartdAddr = "gone:1" ]`, id))
	err = q.Update(func(tx *queue.Tx) error {
		_, err := tx.Submit(id, "alice", ad, []*classad.Ad{mustParse(`[ ProcId = 0 ]`)}, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	full := fillable(&cfg)
	full.Store(true)
	cfg.requeueRetry = 10 * time.Millisecond
	// The job's startd ("gone:1") never answers: the job waits out its
	// claim's lease before it goes back to idle.
	cfg.ClaimLease = 300 * time.Millisecond
	h := startSchedd(t, p, cfg) // fails the test if the schedd does not come up
	status := func() string { return summary(h.query("alice", wire.JobQuery{}), "ProcId", "JobStatus") }
	if got := status(); got != "0 2" {
		t.Errorf("on a full disk the job is %q, want still running (0 2)", got)
	}
	full.Store(false)
	eventually(t, "the job back to idle", func() bool { return status() == "0 1" })
}

// A change the queue could not write may leave a job Running with no
// claim behind it: here the startd's eviction of the job arrives while
// the disk is full, and the startd does not report it again. Once the
// disk has room, the schedd settles the orphan as a restart would: its
// startd no longer runs it, so it is idle again, with an evicted event.
func TestOrphanSettledAfterFullDisk(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	cfg := testConfig(t)
	full := fillable(&cfg)
	cfg.requeueRetry = 10 * time.Millisecond
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\nlog = job.log\nqueue\n")
	claim, _, _ := strings.Cut(h.matchFirst(t, startd), " ")

	full.Store(true)
	err := h.daemonCall(wire.PathJobUpdate, wire.JobUpdate{ClaimID: claim, Job: "1.0", Event: wire.EventEvicted, Reason: "vacated"}, nil)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("an eviction on a full disk: %v, want it refused", err)
	}
	// Nothing of the refused eviction is durable, so its event is not in
	// the job's log. (A query may meanwhile show the job idle: the
	// schedd's settling tries the requeue again, and the full disk
	// refuses that too, but a query can come between the try and its
	// undoing.)
	if strings.Contains(readLog(t, dir+"/job.log"), "004 1.0") {
		t.Fatal("the refused eviction is in the job log")
	}
	full.Store(false)
	eventually(t, "the orphaned job to be idle again", func() bool { return h.status(t, "1.0") == "1" })
	// The event is written once the change is durable.
	eventually(t, "the eviction in the job log", func() bool { return strings.HasSuffix(readLog(t, dir+"/job.log"), "004 1.0") })
}

// fillable makes a schedd's disk fill when the flag it returns is set:
// its commits then fail as on a full disk.
func fillable(cfg *Config) *atomic.Bool {
	full := new(atomic.Bool)
	cfg.storeFault = func() error {
		if full.Load() {
			return syscall.ENOSPC
		}
		return nil
	}
	return full
}

// A job a refused change left running is settled even when, the first
// time the schedd looks, the job is still reserved for a claim (the claim
// that started it finishing its activation, or a new one being made): it
// is on its way, not settled, and the schedd looks again (the CI found a
// job left Running for good when that moment was taken for settled).
func TestOrphanPendingIsLookedAtAgain(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	cfg := testConfig(t)
	full := fillable(&cfg)
	cfg.requeueRetry = time.Hour // settled by hand below
	h := startSchedd(t, p, cfg)
	h.mustSubmit("alice", t.TempDir(), "executable = /bin/sleep\nqueue\n")
	claim, _, _ := strings.Cut(h.matchFirst(t, startd), " ")
	full.Store(true)
	if err := h.daemonCall(wire.PathJobUpdate, wire.JobUpdate{ClaimID: claim, Job: "1.0", Event: wire.EventEvicted}, nil); err == nil {
		t.Fatal("an eviction on a full disk was taken")
	}
	full.Store(false)
	id := queue.JobID{Cluster: 1, Proc: 0}
	h.s.claims.TryReserve(id) // reserved now, by this or by the claim that started it

	o := &orphans{s: h.s}
	o.settle()
	if got := h.status(t, "1.0"); got != "2" {
		t.Fatalf("a job reserved for a claim was settled to %s; want it left running (2) for now", got)
	}
	h.s.claims.Unreserve(id)
	o.settle()
	if got := h.status(t, "1.0"); got != "1" {
		t.Fatalf("once no claim held it, the orphaned job is %s, want idle (1)", got)
	}
}
