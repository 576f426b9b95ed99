package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// One 100-unit job, a fast machine (speed 10) and a slow one (speed 1).
// With replication the job runs on both; whichever the first cycle gave
// it, it is done when the fast copy is (10 s), once, and the other copy is
// killed: its time is wasted work.
const twoSpeeds = `
[pool]
cycle_delay = 0
replicas = %d
[[machines]]
name = "fast"
speed = 10
[[machines]]
name = "slow"
speed = 1
[[workload]]
count = 1
size = 100
[[policy]]
strategy = "joschka-balanced"
`

func TestReplicaFinishesOnceAndTheLoserIsKilled(t *testing.T) {
	slowWins := 0
	for seed := range uint64(12) {
		plain := simulate(t, strings.Replace(twoSpeeds, "%d", "0", 1), 0, seed)
		if plain.All.Makespan == 100 {
			slowWins++
		}
		r := simulate(t, strings.Replace(twoSpeeds, "%d", "1", 1), 0, seed)
		if r.All.Done != 1 || r.All.Makespan != 10 {
			t.Fatalf("seed %d: %d done, makespan %v; want the job done once at 10 s", seed, r.All.Done, r.All.Makespan)
		}
		if r.All.Replicas != 1 || r.All.Wasted != 10 {
			t.Errorf("seed %d: %d replicas, %v s wasted; want 1 and the loser's 10 s", seed, r.All.Replicas, r.All.Wasted)
		}
		completed := 0
		for _, h := range r.Hosts {
			completed += h.Completed
			if h.Busy != 10 {
				t.Errorf("seed %d: %s busy %v s, want 10 (the loser is killed when the winner ends)", seed, h.Name, h.Busy)
			}
		}
		if completed != 1 {
			t.Errorf("seed %d: hosts completed %d jobs, want 1", seed, completed)
		}
		if r.All.AvEff != 0.5 {
			t.Errorf("seed %d: avEff %v, want 0.5 (the killed copy's time is wasted)", seed, r.All.AvEff)
		}
	}
	if slowWins == 0 {
		t.Error("without replicas the job never started on the slow machine: the test shows nothing")
	}
}

// When the machine running the original fails, the replica carries on:
// the job is not sent back to idle, and finishes on the replica's
// machine.
func TestReplicaCarriesOnWhenTheOriginalIsLost(t *testing.T) {
	const text = `
[pool]
cycle_delay = 0
replicas = 1
[[machines]]
name = "a"
speed = 1
down = [["50s", "1000s"]]
[[machines]]
name = "b"
speed = 1
down = [["0s", "20s"]]
[[workload]]
count = 1
size = 100
[[policy]]
strategy = "joschka-balanced"
`
	r := simulate(t, text, 0, 1)
	// The job starts on a at 0 (b is down); b comes back at 20 and takes a
	// replica; a goes down at 50, so the replica is the job's run: done at
	// 120, one lost run, nothing killed.
	if r.All.Done != 1 || r.All.Makespan != 120 || r.All.Aborted != 1 || r.All.Wasted != 0 || r.All.Replicas != 1 {
		t.Errorf("done %d makespan %v lost %d wasted %v replicas %d; want 1, 120, 1, 0, 1",
			r.All.Done, r.All.Makespan, r.All.Aborted, r.All.Wasted, r.All.Replicas)
	}
	if r.All.ExecMean != 100 {
		t.Errorf("exec %v, want the replica's 100 s", r.All.ExecMean)
	}
}

func TestReplicasNeedPullDispatch(t *testing.T) {
	_, err := Parse("x.toml", `
[pool]
dispatch = "queue"
replicas = 1
[[machines]]
[[workload]]
size = 1
[[policy]]
`)
	if err == nil || !strings.Contains(err.Error(), "pool.replicas needs pull dispatch") {
		t.Errorf("got %v", err)
	}
	_, err = Parse("x.toml", "[[machines]]\n[[workload]]\nsize = 1\n[[policy]]\nstrategy = \"max-min\"\nbatch = true\n")
	if err == nil || !strings.Contains(err.Error(), "batch needs queue dispatch") {
		t.Errorf("got %v", err)
	}
}

// The monitoring a strategy reads: a machine that finishes its jobs
// reaches R = 5; one that loses them falls to -5; the types' runtimes are
// in the requests' ads.
func TestMonitoringFollowsOutcomes(t *testing.T) {
	const text = `
duration = "600m"
[pool]
cycle_delay = 0
[[machines]]
name = "steady"
benchmark = 12000
[[machines]]
name = "shaky"
benchmark = 12000
failure = { per_minute = 0.5 }
[[workload]]
type = "work"
count = 400
size = "5m"
[[policy]]
strategy = "joschka-balanced"
`
	sc := parse(t, text)
	e, err := newEngine(context.Background(), sc.Setups[0], sc.Setups[0].Policies[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	for k, m := range e.machines {
		if r := e.nodes[k].R(); r != 0 {
			t.Errorf("%s starts at R %d, want B = 0", m.name, r)
		}
	}
	if err := e.run(); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"steady1": 5, "shaky1": -5}
	for k, m := range e.machines {
		ad := e.slots[m.slots[0]].ad
		v, err := classad.EvalAttr(ad, attr.KiteReliability, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := v.IntValue(); r != want[m.name] || e.nodes[k].R() != int(r) {
			t.Errorf("%s: published R %v (record %d), want %d", m.name, v, e.nodes[k].R(), want[m.name])
		}
	}
	if avS, ok := e.nodes[0].AvS(); !ok || avS != 300 {
		t.Errorf("steady avS %v (%v), want 300 s", avS, ok)
	}
	if _, ok := e.nodes[1].AvU(); !ok {
		t.Error("shaky has no mean uptime after its failures")
	}
	if avT, ok := e.typeRec[0].Runtime(); !ok || avT != 300 {
		t.Errorf("type runtime %v (%v), want 300 s", avT, ok)
	}
	ad := e.show(e.acs[0])
	for _, name := range []string{attr.KiteTypeJobs, attr.KiteTypeDone, attr.KiteTypeRunning, attr.KiteTypeRuntime} {
		if ad.Index(name) < 0 {
			t.Errorf("request ad lacks %s", name)
		}
	}
}
