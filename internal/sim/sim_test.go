package sim

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

func parse(t testing.TB, text string) *Scenario {
	t.Helper()
	sc, err := Parse("test.toml", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return sc
}

// simulate runs the scenario's policy k with a seed.
func simulate(t testing.TB, text string, k int, seed uint64) *RunResult {
	t.Helper()
	sc := parse(t, text)
	r, err := Simulate(context.Background(), sc.Setups[0], sc.Setups[0].Policies[k], seed)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

const heavy = `
[pool]
dispatch = "queue"
cycle_delay = 0
[[machines]]
count = 8
[[workload]]
count = 2000
size = { dist = "pareto", k = 10, p = 1e6, a = 1.1 }
arrival = { process = "poisson", load = 0.8 }
[[policy]]
strategy = "random"
[[policy]]
strategy = "round-robin"
[[policy]]
strategy = "least-work-left"
[[policy]]
name = "sita-e"
sita = { intervals = 8, fit = "workload" }
`

func TestSameSeedSameNumbers(t *testing.T) {
	sc := parse(t, "seeds = [3, 4]\n"+heavy)
	var outs []string
	for _, parallel := range []int{1, 3} {
		rep, err := Run(context.Background(), sc, Options{Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] {
		t.Fatal("the same scenario and seeds gave different reports")
	}
	a := simulate(t, heavy, 0, 1)
	b := simulate(t, heavy, 0, 2)
	if a.All.WaitMean == b.All.WaitMean {
		t.Error("different seeds gave the same waiting time")
	}
}

// The claim (after Harchol-Balter et al. 1998): with heavy-tailed
// sizes least-work-left beats random and round-robin by a wide margin on
// mean slowdown; with sizes of low variance the three are close. (At
// load 0.5; at 0.8 random's queues, M/D/1 ones, already wait twice a
// job's size: examples/sim/low-variance.toml shows the loads.)
func TestHeavyTailFavoursLeastWorkLeft(t *testing.T) {
	heavy := strings.Replace(heavy, "load = 0.8", "load = 0.5", 1)
	slow := func(text string) []float64 {
		var out []float64
		for k := range 3 {
			r := simulate(t, text, k, 1)
			if !r.Complete {
				t.Fatalf("policy %s did not finish", r.Policy)
			}
			out = append(out, r.All.Slowdown)
		}
		return out
	}
	h := slow(heavy)
	if !(h[2]*10 < h[0] && h[2]*10 < h[1]) {
		t.Errorf("heavy tail: slowdown random %.3g, round-robin %.3g, least-work-left %.3g: want least-work-left 10× better", h[0], h[1], h[2])
	}
	low := strings.NewReplacer(`{ dist = "pareto", k = 10, p = 1e6, a = 1.1 }`, `{ dist = "uniform", min = 90, max = 110 }`,
		`fit = "workload"`, `fit = "moments"`).Replace(heavy)
	l := slow(low)
	if slices.Max(l) > 1.6*slices.Min(l) {
		t.Errorf("low variance: slowdown random %.3g, round-robin %.3g, least-work-left %.3g: want them within 60 %%", l[0], l[1], l[2])
	}
}

// Paper 003's experiment: 400 jobs on 8 dual-core machines in 4 SITA-E
// groups, jobs carrying B(1e4, 1e7, 1.01), 12 500 bytes a second: the
// makespan is the 3.2e6-byte jobs' 256 s, and the groups carry 9.0e6,
// 8.0e6, 8.0e6 and 12.8e6 bytes.
const paper003 = `
[pool]
cycle_delay = 0
[[machines]]
name = "l"
count = 8
slots = 2
speed = 12500
[[workload]]
size = { values = [12500, 25000, 50000, 100000, 200000, 400000, 800000, 3200000], counts = [80, 160, 80, 40, 20, 12, 4, 4] }
size_attr = "ImageSize"
[[policy]]
name = "sita-e"
sita = { intervals = 4, source = "job", k = 1e4, p = 1e7, a = 1.01, attribute = "ImageSize" }
`

func TestPaper003(t *testing.T) {
	r := simulate(t, paper003, 0, 1)
	if !r.Complete || r.All.Makespan != 256 {
		t.Fatalf("makespan %v (complete %v), want 256", r.All.Makespan, r.Complete)
	}
	groups := make([]float64, 4)
	for k, h := range r.Hosts {
		groups[k/2] += h.Work
	}
	want := []float64{9e6, 8e6, 8e6, 12.8e6}
	for i := range want {
		if groups[i] != want[i] {
			t.Errorf("group %d carried %g, want %g (all: %v)", i+1, groups[i], want[i], groups)
		}
	}
}

// One machine, one 100 s job, the machine down from 50 s to 60 s: the run
// is lost and the job starts again when the machine is back (after the
// requeue delay).
func TestLostRuns(t *testing.T) {
	for _, tc := range []struct {
		requeue      string
		finish, wait float64
	}{
		{"0s", 160, 60},
		{"20s", 170, 70},
	} {
		r := simulate(t, `
[pool]
cycle_delay = 0
requeue_delay = "`+tc.requeue+`"
[[machines]]
down = [["50s", "60s"]]
[[workload]]
size = 100
[[policy]]
strategy = "condor"
`, 0, 1)
		if !r.Complete || r.All.Makespan != tc.finish || r.All.WaitMean != tc.wait || r.All.ExecMean != 100 {
			t.Errorf("requeue %s: makespan %v wait %v exec %v, want %v, %v, 100", tc.requeue, r.All.Makespan, r.All.WaitMean, r.All.ExecMean, tc.finish, tc.wait)
		}
		if r.All.Aborted != 1 || !near(r.All.AvEff, 100.0/150, 1e-12) {
			t.Errorf("requeue %s: %d lost runs, avEff %v; want 1 and 100/150", tc.requeue, r.All.Aborted, r.All.AvEff)
		}
	}
}

// A machine on 8 h a day: a 4-hour job arriving at 6 h is cut off at
// 8 h and done at 28 h the next day.
func TestSchedule(t *testing.T) {
	r := simulate(t, `
[pool]
cycle_delay = 0
[[machines]]
schedule = { period = "24h", up = "8h" }
[[workload]]
size = "4h"
arrival = { at = "6h" }
[[policy]]
strategy = "condor"
`, 0, 1)
	if !r.Complete || r.End != 28*3600 || r.All.Aborted != 1 {
		t.Errorf("end %v h, %d lost runs; want 28 h and 1", r.End/3600, r.All.Aborted)
	}
}

// Failures: a machine failing every minute it is up never finishes a
// two-minute job, and the run stops at its duration; with the safe time
// of JoSchKa's zerofp it does.
func TestFailures(t *testing.T) {
	const text = `
duration = "1h"
[pool]
cycle_delay = 0
[[machines]]
failure = { per_minute = 1.0 %s }
[[workload]]
size = "2m"
[[policy]]
strategy = "condor"
`
	r := simulate(t, strings.Replace(text, "%s", "", 1), 0, 1)
	if r.Complete || !r.Limited || r.End != 3600 || r.All.Aborted < 50 {
		t.Errorf("always failing: complete %v limited %v end %v, %d lost runs", r.Complete, r.Limited, r.End, r.All.Aborted)
	}
	r = simulate(t, strings.Replace(text, "%s", `, safe = "3m"`, 1), 0, 1)
	if !r.Complete || r.All.Makespan != 120 || r.All.Aborted != 0 {
		t.Errorf("safe for 3 minutes: makespan %v, %d lost runs; want 120 and 0", r.All.Makespan, r.All.Aborted)
	}
	// A probability that drops to 0 at minute 10 (JoSchKa's swap).
	r = simulate(t, strings.Replace(text, "%s", `, changes = [{ at = "10m", per_minute = 0.0 }]`, 1), 0, 1)
	if !r.Complete || r.All.Makespan < 600 || r.All.Makespan > 600+180 {
		t.Errorf("failing until minute 10: makespan %v, want 10-13 minutes", r.All.Makespan)
	}
}

func TestNextFailureRate(t *testing.T) {
	f := &Failure{PerMinute: 0.02, Changes: []Change{{At: 1000 * 60, PerMinute: 0.2}}}
	r := stream(1, "test", 0)
	var before, after moments
	for range 4000 {
		before.add(f.nextFailure(r, 0) / 60)
		after.add((f.nextFailure(r, 2000*60) - 2000*60) / 60)
	}
	// Geometric: mean 1/q minutes (capped by the change for q = 0.02).
	if !near(after.mean(), 5, 0.05) {
		t.Errorf("mean minutes to failure at 20%%: %v, want 5", after.mean())
	}
	if !near(before.mean(), 50*(1-math.Pow(0.98, 1000))+0, 0.06) {
		t.Errorf("mean minutes to failure at 2%%: %v, want about 50", before.mean())
	}
}

// Crashes take a fraction of a group down for good.
func TestCrash(t *testing.T) {
	r := simulate(t, `
[pool]
cycle_delay = 0
dispatch = "queue"
[[machines]]
count = 10
crash = { fraction = 0.3, at = 0 }
[[workload]]
count = 100
size = 10
[[policy]]
strategy = "round-robin"
`, 0, 1)
	idle := 0
	for _, h := range r.Hosts {
		if h.Completed == 0 {
			idle++
		}
	}
	if !r.Complete || idle != 3 {
		t.Errorf("%d hosts did nothing, want the 3 that crashed (complete %v)", idle, r.Complete)
	}
}

// The two-state speed model: a machine always loaded at half speed takes
// twice as long.
func TestLoadModel(t *testing.T) {
	r := simulate(t, `
[pool]
cycle_delay = 0
[[machines]]
speed = 2
load = { to_loaded = 0.0, steady = [0.25, 0.25] }
[[workload]]
size = 100
[[policy]]
strategy = "condor"
`, 0, 1)
	if r.All.ExecMean != 200 {
		t.Errorf("exec %v, want 200 (100 work at 2 × 0.25)", r.All.ExecMean)
	}
	// Switching every step keeps the work: 1000 work at peak 10, half the
	// time at 100 %, half at 0 %: about 200 s.
	r = simulate(t, `
[pool]
cycle_delay = 0
[[machines]]
speed = 10
load = { to_loaded = 1.0, to_steady = 1.0, step = "1s", steady = [1, 1], loaded = [0, 0] }
[[workload]]
size = 1000
[[policy]]
strategy = "condor"
`, 0, 1)
	if !near(r.All.ExecMean, 200, 0.02) {
		t.Errorf("exec %v, want about 200", r.All.ExecMean)
	}
}

// Queue mode never gives a host more than queue_limit jobs, and
// least-work-left fills the emptiest host first.
func TestQueueLimit(t *testing.T) {
	r := simulate(t, `
[pool]
dispatch = "queue"
queue_limit = 2
cycle_delay = 0
[[machines]]
count = 3
[[workload]]
count = 30
size = 10
[[policy]]
strategy = "least-work-left"
`, 0, 1)
	if !r.Complete || r.All.Makespan != 100 {
		t.Fatalf("makespan %v, want 100 (10 jobs of 10 per host)", r.All.Makespan)
	}
	// With two queued at most, a job waits at most one job's time in the
	// host's queue after it is dispatched.
	for _, h := range r.Hosts {
		if h.Completed != 10 {
			t.Errorf("host %s did %d jobs, want 10", h.Name, h.Completed)
		}
	}
}

// Jobs from a pool's history (kite history -json): arrivals from QDate,
// work from RemoteWallClockTime; on speed-1 machines each runs as long as
// it did.
func TestHistoryFile(t *testing.T) {
	sc, err := Load("testdata/history.toml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(context.Background(), sc.Setups[0], sc.Setups[0].Policies[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || r.All.Jobs != 4 || r.All.ExecMean != (120+60+30+90)/4.0 {
		t.Fatalf("jobs %d exec mean %v complete %v, want 4 jobs of 75 s mean", r.All.Jobs, r.All.ExecMean, r.Complete)
	}
	if len(r.Types) != 2 || r.Types[0].Type != "alice" || r.Types[1].Type != "bob" {
		t.Errorf("types %+v, want alice and bob (their owners)", r.Types)
	}
}

// Paper 002's batches: metrics per batch, and job passing.
func TestBatches(t *testing.T) {
	r := simulate(t, `
[pool]
cycle_delay = 0
[[machines]]
count = 4
[[workload]]
count = 12
size = { dist = "uniform", min = 10, max = 20 }
same_tasks = true
arrival = { process = "batches", batch = 4, every = 5 }
[[policy]]
strategy = "round-robin"
`, 0, 1)
	b := r.Batches
	if b == nil || b.Batches != 3 || b.Done != 3 {
		t.Fatalf("batches %+v, want 3 done", b)
	}
	if b.WaitMean < 0 || b.ExecMean <= 0 || b.TotalMean != b.WaitMean+b.ExecMean {
		t.Errorf("batch times %+v: want total = wait + exec", b)
	}
}

func TestPassing(t *testing.T) {
	e := &engine{w: &workload{}}
	e.jobs = []job{
		{arrival: 0, work: 10, finish: 100, state: jobDone, batch: -1},
		{arrival: 1, work: 20, finish: 50, state: jobDone, batch: -1}, // passes job 0
		{arrival: 2, work: 5, finish: 40, state: jobDone, batch: -1},  // smaller than both: no
		{arrival: 2, work: 30, finish: 10, state: jobDone, batch: -1}, // passes 0 and 1
		{arrival: 3, work: 40, state: jobIdle, batch: -1},             // not done: no
		{arrival: 0, work: 10, finish: 90, state: jobDone, batch: -1}, // same time as job 0: no
	}
	_, passed := e.passing()
	want := []bool{false, true, false, true, false, false}
	for i := range want {
		if passed[i] != want[i] {
			t.Errorf("job %d passed %v, want %v", i, passed[i], want[i])
		}
	}
}

func TestAvDone(t *testing.T) {
	e := &engine{w: &workload{types: []string{"a"}}, now: 100}
	e.jobs = []job{
		{finish: 50, start: 40, state: jobDone, batch: -1},
		{finish: 100, start: 90, state: jobDone, batch: -1},
	}
	m := e.metrics(func(*job) bool { return true }, false, make([]bool, 2))
	if m.AvDone != 0.25 {
		t.Errorf("avDONE %v, want 0.25: half the jobs done for half the time", m.AvDone)
	}
}

// Jobs no slot will ever match stop the run at once, reported as stalled.
func TestStall(t *testing.T) {
	r := simulate(t, `
[[machines]]
failure = { per_minute = 0.001 }
[[workload]]
count = 3
size = 10
requirements = "TARGET.Memory > 1e9"
[[policy]]
`, 0, 1)
	if !r.Stalled || r.Complete || r.End != 0 || r.All.Done != 0 {
		t.Errorf("stalled %v complete %v end %v done %d: want a stall at time 0", r.Stalled, r.Complete, r.End, r.All.Done)
	}
}

// Immediate dispatch places jobs one at a time: least-work-left gives a
// host three times as fast three times the jobs, even when all arrive
// together.
func TestDispatchOneAtATime(t *testing.T) {
	r := simulate(t, `
[pool]
dispatch = "queue"
cycle_delay = 0
[[machines]]
name = "slow"
[[machines]]
name = "fast"
speed = 3
[[workload]]
count = 8
size = 3
[[policy]]
strategy = "least-work-left"
`, 0, 1)
	if r.Hosts[0].Completed != 2 || r.Hosts[1].Completed != 6 || r.All.Makespan != 6 {
		t.Errorf("slow host %d jobs, fast %d, makespan %v; want 2, 6 and 6", r.Hosts[0].Completed, r.Hosts[1].Completed, r.All.Makespan)
	}
}
