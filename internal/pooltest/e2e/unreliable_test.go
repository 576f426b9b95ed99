package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// Unreliable machines in a whole pool (issue 10): node monitoring in the
// slot ads, keep-alive requeue of a killed startd's jobs, replication.

// poolOpts change a test pool's daemons.
type poolOpts struct {
	gossip   bool   // membership on, with quick failure detection
	strategy string // the negotiator's
	schedd   func(*schedd.Config)
	startd   func(name string, c *startd.Config)
}

// newPoolOpts starts a collector, a negotiator, a schedd and one startd
// per name (slots one-CPU slots each), changed by o.
func newPoolOpts(t *testing.T, slots int, o poolOpts, startds ...string) *pool {
	p := pooltest.New(t)
	p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable = slots, slots, false
	p.Config.Startd.Memory = int64(512 * slots)
	if o.gossip {
		m := &p.Config.Membership
		m.Enabled, m.Bind, m.SuspicionMult = true, "127.0.0.1:0", 2
		m.ProbeInterval.Duration, m.ProbeTimeout.Duration = 50*time.Millisecond, 25*time.Millisecond
	}
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, 200*time.Millisecond
		if o.strategy != "" {
			c.Strategy = o.strategy
		}
	})
	sd := start.Schedd(t, p, "schedd:1", o.schedd)
	pl := &pool{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write),
		admin: p.Client("schedd:1", "root", auth.Administrator), startd: map[string]*startd.Server{}, schedd: sd}
	for _, name := range startds {
		pl.addStartd(name, o)
	}
	return pl
}

// addStartd starts a startd for machine name.
func (pl *pool) addStartd(name string, o poolOpts) {
	var edit func(*startd.Config)
	if o.startd != nil {
		edit = func(c *startd.Config) { o.startd(name, c) }
	}
	pl.startd[name] = start.Startd(pl.t, pl.p, "startd-"+name+":1", name, edit)
}

// slotAd returns a slot's ad as the collector serves it.
func (pl *pool) slotAd(name string) *classad.Ad {
	pl.t.Helper()
	var found *classad.Ad
	c := pl.p.Client("collector:9618", "alice", auth.Read)
	q := wire.Query{Type: attr.TypeSlot, Constraint: fmt.Sprintf("Name == %q", name)}
	err := c.Stream(context.Background(), "POST", wire.PathQuery, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		found = ad
		return err
	})
	if err != nil {
		pl.t.Fatal(err)
	}
	return found
}

// waitSlot waits until a slot's ad shows want for the attributes.
func (pl *pool) waitSlot(name, want string, attrs ...string) *classad.Ad {
	pl.t.Helper()
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ad := pl.slotAd(name)
		var parts []string
		for _, a := range attrs {
			parts = append(parts, str(ad, a))
		}
		if got = strings.Join(parts, " "); got == want {
			return ad
		}
	}
	pl.t.Fatalf("slot %s shows %s = %q, want %q", name, strings.Join(attrs, " "), got, want)
	return nil
}

// The pool learns how reliable each machine is: jobs a machine completes
// raise its reliability index in its slot ads, a job it loses when it
// goes away lowers it (the record survives the restart), and a job's
// Requirements can keep it off unreliable machines.
func TestMachineReliabilityInThePool(t *testing.T) {
	bench := map[string]float64{"fast": 3000, "slow": 25000} // classes 4 and -4
	pl := newPoolOpts(t, 1, poolOpts{startd: func(name string, c *startd.Config) { c.BenchmarkMs = bench[name] }}, "fast", "slow")
	pl.waitSlot("slot1@fast", "4 4", attr.KiteBenchmarkIndex, attr.KiteReliability)
	pl.waitSlot("slot1@slow", "-4 -4", attr.KiteBenchmarkIndex, attr.KiteReliability)

	// Jobs that want a reliable machine run on the fast one only.
	dir := t.TempDir()
	c := pl.submit(dir, "executable = /bin/true\nrequirements = TARGET.KiteReliability > 0\nqueue 3\n")
	for i := range 3 {
		ad := pl.waitStatus(fmt.Sprintf("%d.%d", c, i), attr.Completed)
		if host := str(ad, attr.LastRemoteHost); host != "slot1@fast" {
			t.Errorf("job %d ran on %s", i, host)
		}
	}
	pl.waitSlot("slot1@fast", "3 0 4", attr.KiteJobsCompleted, attr.KiteJobsAborted, attr.KiteReliability)

	// The slow machine completes jobs: its index rises from -4.
	c = pl.submit(dir, "executable = /bin/true\nrequirements = TARGET.Machine == \"slow\"\nqueue 4\n")
	for i := range 4 {
		pl.waitStatus(fmt.Sprintf("%d.%d", c, i), attr.Completed)
	}
	pl.waitSlot("slot1@slow", "4 0", attr.KiteJobsCompleted, attr.KiteReliability) // 4/2 - 4·6/10 = -0.4

	// The fast machine goes away while it runs a job: a loss, which the
	// restarted startd still shows.
	id := fmt.Sprintf("%d.0", pl.submit(dir, strings.Replace(sleeper(dir), "queue", "requirements = TARGET.Machine == \"fast\"\nqueue", 1)))
	runningPid(pl, id, dir)
	start.Stop(t, pl.startd["fast"])
	pl.addStartd("fast", poolOpts{startd: func(name string, c *startd.Config) { c.BenchmarkMs = bench[name] }})
	ad := pl.waitSlot("slot1@fast", "3 1 3", attr.KiteJobsCompleted, attr.KiteJobsAborted, attr.KiteReliability) // (3-1)/2 + 4·6/10 = 3.4
	if _, ok := ad.Lookup(attr.KiteAvgUptime); !ok {
		t.Errorf("no mean uptime after a period up: %s", ad)
	}
}

// A startd that dies (killed: no vacate, no goodbye) has its job
// requeued once gossip finds it dead and requeue_after passed, long
// before the claim lease would run out; the job runs on the other
// machine and counts the loss.
func TestKilledStartdsJobRequeued(t *testing.T) {
	const lease = time.Minute
	pl := newPoolOpts(t, 1, poolOpts{gossip: true, schedd: func(c *schedd.Config) {
		c.ClaimLease, c.RequeueAfter = lease, 500*time.Millisecond
	}}, "a", "b")
	dir := t.TempDir()
	id := fmt.Sprintf("%d.0", pl.submit(dir, sleeper(dir)))
	pid := runningPid(pl, id, dir)
	host := str(pl.job(id), attr.RemoteHost)
	machine := host[strings.IndexByte(host, '@')+1:]

	os.Remove(filepath.Join(dir, "pid"))
	killed := time.Now()
	start.Kill(t, pl.startd[machine])
	waitDead(t, pid)
	runningPid(pl, id, dir)
	took := time.Since(killed)
	ad := pl.job(id)
	if now := str(ad, attr.RemoteHost); strings.HasSuffix(now, "@"+machine) {
		t.Errorf("the job runs on %s again, after %s died", now, machine)
	}
	if took > lease/2 {
		t.Errorf("the job ran again %v after its machine died: gossip did not help (lease %v)", took, lease)
	}
	t.Logf("the job runs again %v after its machine died", took)
	if got := str(ad, attr.KiteAborts); got != "1" {
		t.Errorf("KiteAborts %s, want 1", got)
	}
	waitLog(t, filepath.Join(dir, "job.log"), "gossip found its startd")
}

// A job allowed one replica runs on a machine where it takes long; once
// another machine is free, JoSchKa's strategy starts a replica there,
// which finishes first: the job completes once with the replica's
// output, the first instance is killed and its slot freed, and the
// history and the log say which instance won.
func TestReplicatedJobFinishesOnce(t *testing.T) {
	pl := newPoolOpts(t, 1, poolOpts{strategy: "joschka-balanced"}, "a")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "job.sh"), []byte(`#!/bin/sh
case "$_CONDOR_SLOT" in
*@a) sleep 300 & echo $! > `+dir+`/pid.tmp; mv `+dir+`/pid.tmp `+dir+`/pid; wait ;;
*) echo "done on $_CONDOR_SLOT" ;;
esac
`), 0o755)
	id := fmt.Sprintf("%d.0", pl.submit(dir, "executable = job.sh\noutput = out.txt\nlog = job.log\n+KiteReplicas = 1\nqueue\n"))
	pid := runningPid(pl, id, dir)
	pl.addStartd("b", poolOpts{})

	ad := pl.waitStatus(id, attr.Completed)
	waitDead(t, pid)
	if got := fmt.Sprint(str(ad, attr.KiteWinner), " ", str(ad, attr.KiteWinnerInstance), " ", str(ad, attr.KiteReplicaRuns), " ", str(ad, attr.LastRemoteHost)); got != "slot1@b 1 1 slot1@b" {
		t.Errorf("winner, instance, replicas, last host: %s", got)
	}
	if out, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(out) != "done on slot1@b\n" {
		t.Errorf("out.txt = %q, want the replica's output only", out)
	}
	log := waitLog(t, filepath.Join(dir, "job.log"), "005 (")
	for _, want := range []string{"Replica 1 of the job executes on slot1@b", "finished first and wins; 1 replica(s) ran, 1 other instance(s) killed", "005 ("} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(string(log), "005 ("); n != 1 {
		t.Errorf("%d terminated events", n)
	}
	pl.waitSlot("slot1@a", "Unclaimed", attr.State) // the loser's slot is free
}

// waitLog waits until a job log holds want, and returns it.
func waitLog(t *testing.T, path, want string) []byte {
	t.Helper()
	var log []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if log, _ = os.ReadFile(path); strings.Contains(string(log), want) {
			return log
		}
	}
	t.Fatalf("the job log lacks %q:\n%s", want, log)
	return nil
}
