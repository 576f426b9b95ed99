package e2e

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/sim"
)

// The strategies that read the hosts' work left place jobs in a live pool
// as the simulator predicts (issue 23). The startds publish KiteSpeed,
// KiteWorkLeft and KiteQueueLength (daemons/startd/workleft.go); a host
// is a partitionable slot of two cpus, the simulator's queue-mode host
// whose queue holds two jobs. Jobs of 1000, 100, 200 and 300 work units
// come one after the other: least-work-left and the batch heuristics put
// the 1000 on one host, the 100 and the 200 on the other (less work
// left), and the 300 where cpus are left (Harchol-Balter et al. 1998;
// paper 004, algorithms.md §4).
func TestWorkLeftStrategiesPlaceAsTheSimulator(t *testing.T) {
	predicted := simulatedHostWork(t, filepath.Join("testdata", "workleft.toml"))
	sizes := []float64{1000, 100, 200, 300}
	for name, want := range predicted {
		t.Run(name, func(t *testing.T) {
			pl := newPoolOpts(t, 1, poolOpts{strategy: name, startd: func(_ string, c *startd.Config) {
				c.Layout, c.Cpus, c.Memory, c.BenchmarkMs = slots.Equal(1, true, ""), 2, 1024, 10000 // speed 1
			}}, "a", "b")
			for _, h := range []string{"a", "b"} {
				pl.waitSlot("slot1@"+h, "1 0 0", attr.KiteSpeed, attr.KiteWorkLeft, attr.KiteQueueLength)
			}
			dir := t.TempDir()
			got := map[string]float64{}
			for _, w := range sizes {
				c := pl.submit(dir, fmt.Sprintf("executable = /bin/sleep\narguments = 600\nrequest_memory = 100\n+KiteWork = %v\nqueue\n", w))
				ad := pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Running)
				host := str(ad, attr.RemoteHost)
				got[host[strings.LastIndex(host, "@")+1:]] += w
			}
			live := slices.Sorted(maps.Values(got))
			if !slices.Equal(live, want) {
				t.Errorf("the live hosts were given %v of work (%v), the simulator's %v", live, got, want)
			}
		})
	}
}

// simulatedHostWork runs a scenario and returns, per strategy, the work
// each host did, smallest first.
func simulatedHostWork(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	sc, err := sim.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, r := range rep.Runs {
		if !r.Complete {
			t.Fatalf("%s: the simulated run did not complete", r.Policy)
		}
		var work []float64
		for _, h := range r.Hosts {
			work = append(work, h.Work)
		}
		slices.Sort(work)
		out[r.Strategy] = work
	}
	return out
}
