package sim

import (
	"context"
	"testing"
)

// The target: a 10 000-machine pool runs 1 000 000 jobs in under
// a minute. Pull mode (HTCondor's), the condor strategy, exponential
// sizes, jobs arriving as a Poisson stream that keeps the pool 90 % busy,
// cycles at most every 20 s.
const bigPool = `
name = "big"
[pool]
dispatch = "pull"
interval = "60s"
cycle_delay = "20s"
[[machines]]
name = "node"
count = 10000
[[workload]]
type = "batch"
count = 1000000
size = { dist = "exponential", mean = 600 }
arrival = { process = "poisson", load = 0.9 }
[[policy]]
strategy = "condor"
`

func BenchmarkSimulate10kMachines1MJobs(b *testing.B) {
	sc, err := Parse("big.toml", bigPool)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, err := Simulate(context.Background(), sc.Setups[0], sc.Setups[0].Policies[0], 1)
		if err != nil {
			b.Fatal(err)
		}
		if !r.Complete || r.All.Done != 1000000 {
			b.Fatalf("run not complete: %d of 1000000 done", r.All.Done)
		}
		b.ReportMetric(float64(r.Cycles), "cycles")
		b.ReportMetric(r.All.Utilization*100, "util%")
	}
}

// A small queue-mode run: 8 hosts, 3000 heavy-tailed jobs arriving one by
// one, a cycle per arrival.
func BenchmarkSimulateSmallQueue(b *testing.B) {
	sc, err := Parse("small.toml", heavy)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Simulate(context.Background(), sc.Setups[0], sc.Setups[0].Policies[2], 1); err != nil {
			b.Fatal(err)
		}
	}
}
