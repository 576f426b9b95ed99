package sim

import (
	"context"
	"testing"
)

// The targets of issue 10 on reduced runs of the papers' scenarios in
// examples/sim (the full runs: kite sim examples/sim/<file>.toml; the
// tables are in docs/results.md). Each compares policies on the same
// seeds, so each sees the same machines, failures and jobs.

// loadExample reads an example scenario's setup k.
func loadExample(t *testing.T, file string, k int) *Setup {
	t.Helper()
	sc, err := Load("../../examples/sim/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Setups[k]
}

// policyNamed returns a setup's policy by name.
func policyNamed(t *testing.T, st *Setup, name string) PolicySpec {
	t.Helper()
	for _, p := range st.Policies {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no policy %q", name)
	return PolicySpec{}
}

// meanRuns runs a policy with seeds 1..n and averages the runs.
func meanRuns(t *testing.T, st *Setup, p PolicySpec, n int) *RunResult {
	t.Helper()
	var runs []*RunResult
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r, err := Simulate(context.Background(), st, p, seed)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return mean(runs)
}

// JoSchKa's simulations A and B at a fifth of their size (24 nodes, a
// fifth of the jobs, the same 3000 minutes and swap at minute 1000): the
// combined strategy beats balanced on avEff and avDONE.
func TestJoSchKaCombinedBeatsBalanced(t *testing.T) {
	for _, file := range []string{"joschka-a.toml", "joschka-b.toml"} {
		st := loadExample(t, file, 0)
		for i := range st.Machines {
			st.Machines[i].Count /= 5
		}
		for i := range st.Workload {
			st.Workload[i].Count /= 5
		}
		b := meanRuns(t, st, policyNamed(t, st, "balanced"), 4)
		c := meanRuns(t, st, policyNamed(t, st, "combined"), 4)
		t.Logf("%s: balanced avEff %.3f avDONE %.3f, combined %.3f %.3f", file, b.All.AvEff, b.All.AvDone, c.All.AvEff, c.All.AvDone)
		if c.All.AvEff <= b.All.AvEff || c.All.AvDone <= b.All.AvDone {
			t.Errorf("%s: combined avEff %.3f avDONE %.3f, balanced %.3f %.3f: want combined ahead on both",
				file, c.All.AvEff, c.All.AvDone, b.All.AvEff, b.All.AvDone)
		}
	}
}

// Paper 002 at a quarter of its size (32 processors, 8 jobs of 32 tasks,
// one every 50 time units): no job passes another under no-passing,
// some do under first come, first served.
func TestNoPassingNeverPasses(t *testing.T) {
	st := loadExample(t, "paper002-no-passing.toml", 0)
	for i := range st.Machines {
		st.Machines[i].Count = max(1, st.Machines[i].Count/4)
	}
	st.Workload[0].Count, st.Workload[0].Arrival.Batch = 8*32, 32
	np := meanRuns(t, st, policyNamed(t, st, "no-passing"), 4)
	if np.Batches.Passing != 0 || np.Batches.Done != 8 {
		t.Errorf("no-passing: %d of 8 jobs done, passing %.3f; want all done, none passing", np.Batches.Done, np.Batches.Passing)
	}
	if np.All.Replicas == 0 {
		t.Error("no-passing started no replica")
	}
	fcfs := 0.0
	for _, name := range []string{"fcfs-random", "fcfs-round-robin"} {
		fcfs += meanRuns(t, st, policyNamed(t, st, name), 4).Batches.Passing
	}
	if fcfs == 0 {
		t.Error("first come, first served never passed: the setup shows nothing")
	}
}

// Paper 004 at a tenth of its size (10 nodes, 100 tasks): the batch
// heuristics against each other. With one power per node, Sort-Median
// and Max-min pick the same task at every step (the least and the median
// completion time of a task both grow with its length), so their
// makespans are equal; both beat MET, which piles everything on the
// fastest node, and the online round-robin. When half the nodes run half
// the tasks twice as fast (paper004-affinity.toml), Sort-Median finishes
// sooner than Max-min.
func TestBatchHeuristicsOnPaper004(t *testing.T) {
	makespans := func(file string, names ...string) map[string]float64 {
		st := loadExample(t, file, 0)
		for i := range st.Workload {
			st.Workload[i].Count /= 10
		}
		ms := map[string]float64{}
		for _, name := range names {
			ms[name] = meanRuns(t, st, policyNamed(t, st, name), 3).All.Makespan
		}
		t.Logf("%s: makespans %v", file, ms)
		return ms
	}
	ms := makespans("paper004-batch.toml", "met", "max-min", "sort-median", "penalty-sort-median", "round-robin")
	if ms["sort-median"] != ms["max-min"] || ms["penalty-sort-median"] != ms["max-min"] {
		t.Errorf("makespans %v: want sort-median and penalty-sort-median (no failures) equal to max-min", ms)
	}
	if !(ms["max-min"] < 0.8*ms["round-robin"] && ms["max-min"] < 0.5*ms["met"]) {
		t.Errorf("makespans %v: want max-min well ahead of round-robin and met", ms)
	}
	ms = makespans("paper004-affinity.toml", "max-min", "sort-median")
	if !(ms["sort-median"] < ms["max-min"]) {
		t.Errorf("with vector nodes, makespans %v: want sort-median ahead of max-min", ms)
	}
}
