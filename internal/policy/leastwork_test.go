package policy_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
	"github.com/kite-sched/kite/internal/sim"
)

// lwlSizes are the jobs of the comparison, oldest first.
var lwlSizes = []float64{1000, 100, 200, 300}

// The simulator's queue-mode host with a queue of as many jobs as it has
// cores is a live partitionable slot. Least-work-left places the same
// jobs on it the same way: the 1000 on one host, the 100 and the 200 on
// the other (less work left), the 300 where cores are left. The
// simulator places them one cycle each; the live negotiator in one cycle,
// charging each partitionable slot with the jobs it took
// (policy.Charge). Harchol-Balter et al. 1998; paper 003.
func TestLeastWorkLeftPlacesAsTheSimulator(t *testing.T) {
	want := simulatedHostWork(t)

	var slots []*classad.Ad
	for _, h := range []string{"node1", "node2"} {
		slots = append(slots, parse(t, fmt.Sprintf(`[MyType="Machine"; Name="slot1@%s"; Machine=%q; State="Unclaimed"; Activity="Idle";
			SlotType="Partitionable"; PartitionableSlot=true; Cpus=2; Memory=4096; Disk=100000; Requirements=START; START=true;
			KiteSpeed=1; KiteWorkLeft=0; KiteQueueLength=0]`, h, h)))
	}
	var reqs []matchmaker.Request
	for k, w := range lwlSizes {
		reqs = append(reqs, request(fmt.Sprint(k), 1, job(t, fmt.Sprintf("QDate=%d; KiteWork=%v", 1000+k, w))))
	}
	lwl, _ := policy.New("least-work-left")
	res := cycle(lwl, 1, slots, reqs...)
	got := map[string]float64{}
	for _, m := range res.Matches {
		var k int
		fmt.Sscan(m.Request, &k)
		got[m.SlotName] += lwlSizes[k]
	}
	if len(res.Matches) != len(lwlSizes) {
		t.Fatalf("%d matches, want %d", len(res.Matches), len(lwlSizes))
	}
	live := slices.Sorted(maps.Values(got))
	if !slices.Equal(live, want) {
		t.Errorf("live hosts hold %v of work, the simulator's %v", live, want)
	}
}

// simulatedHostWork runs the jobs in the simulator (queue dispatch, two
// hosts of two cores, queues of two) and returns the work each host did,
// smallest first.
func simulatedHostWork(t *testing.T) []float64 {
	t.Helper()
	var b strings.Builder
	b.WriteString(`seeds = [1]
[pool]
dispatch = "queue"
queue_limit = 2
cycle_delay = 0
significant = ["KiteWork"]
[[machines]]
name = "node"
count = 2
slots = 2
speed = 1
[[policy]]
strategy = "least-work-left"
`)
	for k, w := range lwlSizes {
		fmt.Fprintf(&b, "[[workload]]\ntype = \"j%d\"\ncount = 1\nsize = %v\narrival = { process = \"once\", at = %d }\n", k, w, k)
	}
	sc, err := sim.Parse("lwl.toml", b.String())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, h := range rep.Runs[0].Hosts {
		out = append(out, h.Work)
	}
	slices.Sort(out)
	if !slices.Equal(out, []float64{300, 1300}) {
		t.Fatalf("the simulator's hosts did %v of work, want [300 1300]", out)
	}
	return out
}

// Charge adds a job's work to what a slot ad holds, whatever form the
// startd advertised it in, and keeps repeated charges one number.
func TestCharge(t *testing.T) {
	tests := []struct{ ad, want string }{
		{`[Name="s"]`, "30"},
		{`[KiteWorkLeft=100; KiteQueueLength=2]`, "130"},
		{`[KiteWorkLeft=max({0, 100 - (time() - 5) * 2})]`, "(max({ 0,100 - (time() - 5) * 2 })) + 30"},
		{`[KiteWorkLeft=(max({0, 100 - (time() - 5) * 2})) + 20]`, "(max({ 0,100 - (time() - 5) * 2 })) + 50"},
	}
	for _, tc := range tests {
		ad := parse(t, tc.ad)
		q := classad.EvalNumberOr(ad, "KiteQueueLength", 0)
		policy.Charge(ad, 30, 1)
		e, _ := ad.Lookup("KiteWorkLeft")
		if got := classad.String(e); got != tc.want {
			t.Errorf("%s charged with 30: KiteWorkLeft = %s, want %s", tc.ad, got, tc.want)
		}
		if got := classad.EvalNumberOr(ad, "KiteQueueLength", 0); got != q+1 {
			t.Errorf("%s charged with a job: KiteQueueLength = %v, want %v", tc.ad, got, q+1)
		}
	}
}
