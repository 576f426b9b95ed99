package policy_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
)

// queueHost is a host with a queue (the simulator's queue dispatch): a
// speed and no work yet.
func queueHost(t testing.TB, name string, speed float64, extra string) *classad.Ad {
	return host(t, name, fmt.Sprintf("KiteSpeed = %g; KiteWorkLeft = 0; %s", speed, extra))
}

// task is one job of a given length (KiteWork), submitted at qdate.
func task(t testing.TB, id string, work float64, qdate int, extra string) matchmaker.Request {
	return matchmaker.Request{ID: id, Count: 1, Ad: job(t, fmt.Sprintf("KiteWork = %g; QDate = %d; %s", work, qdate, extra))}
}

// drain runs cycles with the same hosts until every task is matched (as a
// queue-mode pool does: a host takes one job a cycle and stays free), and
// returns each host's jobs in order.
func drain(t *testing.T, s policy.Strategy, slots []*classad.Ad, pool []*classad.Ad, reqs []matchmaker.Request) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	left := slices.Clone(reqs)
	for cycle := 0; len(left) > 0; cycle++ {
		if cycle > 10*len(reqs) {
			t.Fatalf("%s: %d tasks never matched: %v", s.Name(), len(left), left)
		}
		res := jcycle(s, uint64(cycle), slots, pool, left...)
		for _, m := range res.Matches {
			out[strings.TrimPrefix(m.SlotName, "slot1@")] = append(out[strings.TrimPrefix(m.SlotName, "slot1@")], m.Request)
			left = slices.DeleteFunc(left, func(r matchmaker.Request) bool { return r.ID == m.Request })
		}
	}
	return out
}

// Tasks of 10, 20 and 30 units on h1 (speed 1) and h2 (speed 2), worked
// by hand with c_ij = e_ij + r_j:
//
//	MET:      every task to h2, the fastest.
//	MCT:      10 → h2 (5); 20 → h2 (15 < 20); 30 → h1 (30, a tie with h2's
//	          15 + 15 broken by order).
//	Min-min:  10 → h2 (5), then 20 → h2 (15), then 30 → h1 (30).
//	Max-min:  30 → h2 (15), then 20 → h1 (20 < 25), then 10 → h2 (20).
//	Sort-median (the mean of two hosts): 30 (22.5) → h2, 20 (22.5 >
//	          15) → h1, 10 → h2: Max-min's schedule.
func TestBatchHeuristicsByHand(t *testing.T) {
	slots := []*classad.Ad{queueHost(t, "h1", 1, ""), queueHost(t, "h2", 2, "")}
	reqs := []matchmaker.Request{task(t, "t10", 10, 1, ""), task(t, "t20", 20, 2, ""), task(t, "t30", 30, 3, "")}
	tests := []struct {
		name string
		want map[string][]string
	}{
		{"met", map[string][]string{"h2": {"t10", "t20", "t30"}}},
		{"mct", map[string][]string{"h1": {"t30"}, "h2": {"t10", "t20"}}},
		{"min-min", map[string][]string{"h1": {"t30"}, "h2": {"t10", "t20"}}},
		{"max-min", map[string][]string{"h1": {"t20"}, "h2": {"t30", "t10"}}},
		{"sort-median", map[string][]string{"h1": {"t20"}, "h2": {"t30", "t10"}}},
		{"penalty-sort-median", map[string][]string{"h1": {"t20"}, "h2": {"t30", "t10"}}},
	}
	for _, tt := range tests {
		s, _ := policy.New(tt.name)
		got := drain(t, s, slots, nil, reqs)
		if !maps.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("%s: queues %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A host's ready time counts: h2 (speed 2) already holds 40 units (20 s).
func TestBatchHeuristicsReadyTime(t *testing.T) {
	slots := []*classad.Ad{queueHost(t, "h1", 1, ""), host(t, "h2", "KiteSpeed = 2; KiteWorkLeft = 40")}
	s, _ := policy.New("mct")
	got := drain(t, s, slots, nil, []matchmaker.Request{task(t, "t10", 10, 1, "")})
	if want := map[string][]string{"h1": {"t10"}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("queues %v, want %v (h1 done at 10, h2 at 25)", got, want)
	}
}

// Penalty Sort-Median steers work away from a host that lost jobs: h2
// lost 1000 s of expected work; the pool finished 3 of 4 jobs (w = 0.75),
// so h2's costs carry 750 s more.
func TestPenaltySortMedian(t *testing.T) {
	slots := []*classad.Ad{queueHost(t, "h1", 1, "KiteJobsCompleted = 3"),
		queueHost(t, "h2", 2, "KiteLostRuntime = 1000; KiteJobsAborted = 1")}
	reqs := []matchmaker.Request{task(t, "t10", 10, 1, ""), task(t, "t20", 20, 2, ""), task(t, "t30", 30, 3, "")}
	s, _ := policy.New("penalty-sort-median")
	got := drain(t, s, slots, nil, reqs)
	if want := map[string][]string{"h1": {"t30", "t20", "t10"}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("queues %v, want every task on h1", got)
	}
	// A host slower than promised (it ran its jobs 100 s late on average)
	// is penalised too.
	slots = []*classad.Ad{queueHost(t, "h1", 1, "KiteJobsCompleted = 4"), queueHost(t, "h2", 2, "KiteRuntimeDelay = 100")}
	got = drain(t, s, slots, nil, reqs[:1])
	if want := map[string][]string{"h1": {"t10"}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("late host: queues %v, want t10 on h1", got)
	}
}

// Jobs go only to hosts they match, and the plan follows a host that
// leaves: the tasks planned for it are planned again.
func TestBatchHeuristicsMatchAndReplan(t *testing.T) {
	slots := []*classad.Ad{queueHost(t, "small", 4, "Memory = 100"), queueHost(t, "big", 1, "Memory = 8000")}
	reqs := []matchmaker.Request{task(t, "needs-big", 10, 1, "Requirements = TARGET.Memory >= 4000"), task(t, "any", 10, 2, "")}
	s, _ := policy.New("min-min")
	got := drain(t, s, slots, nil, reqs)
	if want := map[string][]string{"big": {"needs-big"}, "small": {"any"}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("queues %v, want %v", got, want)
	}
	// Plan three tasks on two fast hosts, then take one host away.
	hosts2 := []*classad.Ad{queueHost(t, "a", 1, ""), queueHost(t, "b", 1, "")}
	three := []matchmaker.Request{task(t, "x", 10, 1, ""), task(t, "y", 10, 2, ""), task(t, "z", 10, 3, "")}
	s, _ = policy.New("mct")
	res := jcycle(s, 1, hosts2, nil, three...)
	if len(res.Matches) != 2 {
		t.Fatalf("first cycle: %d matches, want 2", len(res.Matches))
	}
	var left []matchmaker.Request
	for _, r := range three {
		if !slices.ContainsFunc(res.Matches, func(m matchmaker.Match) bool { return m.Request == r.ID }) {
			left = append(left, r)
		}
	}
	lone := hosts2[:1]
	if res.Matches[0].SlotName == "slot1@a" && len(left) == 1 {
		lone = hosts2[1:]
	}
	res = jcycle(s, 2, lone, nil, left...)
	if len(res.Matches) != 1 {
		t.Errorf("after the host left: %d matches, want the last task on the host left", len(res.Matches))
	}
}

// A host's power may depend on the job: KitePower is evaluated against
// each job.
func TestBatchHeuristicJobDependentPower(t *testing.T) {
	slots := []*classad.Ad{host(t, "cpu", "KiteSpeed = 1; KiteWorkLeft = 0; KitePower = 1"),
		host(t, "gpu", `KiteSpeed = 1; KiteWorkLeft = 0; KitePower = TARGET.Vector ? 10 : 0.5`)}
	reqs := []matchmaker.Request{task(t, "v", 100, 1, "Vector = true"), task(t, "s", 100, 2, "Vector = false")}
	s := mustNew(t, "min-min", policy.Params{"power": "KitePower"})
	got := drain(t, s, slots, nil, reqs)
	if want := map[string][]string{"gpu": {"v"}, "cpu": {"s"}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("queues %v, want %v", got, want)
	}
}

func TestBatchParams(t *testing.T) {
	if _, err := policy.NewWith("max-min", policy.Params{"length": ""}); err == nil || !strings.Contains(err.Error(), `"length": must not be empty`) {
		t.Errorf("empty length: %v", err)
	}
	if _, err := policy.NewWith("sort-median", policy.Params{"speed": "X"}); err == nil || !strings.Contains(err.Error(), `unknown parameter "speed"`) {
		t.Errorf("unknown parameter: %v", err)
	}
	if _, err := policy.NewWith("met", policy.Params{"length": "ImageSize", "power": "Mips"}); err != nil {
		t.Error(err)
	}
}
