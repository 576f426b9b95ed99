package policy_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
)

// now is the cycles' time: 2025-01-01, 100 000 s after the epoch the
// slots' DaemonStartTime counts from.
var now = time.Unix(1735689600, 0)

const minute = 60.0

// typed is an autocluster of a job type with the type's statistics, as a
// monitored schedd shows it: running, done and submitted jobs, and the
// mean runtime (minutes; 0: none finished yet).
func typed(t testing.TB, name string, idle, running, done, jobs int, avT float64, extra string) matchmaker.Request {
	rt := ""
	if avT > 0 {
		rt = fmt.Sprintf("KiteTypeRuntime = %g;", avT*minute)
	}
	ad := job(t, fmt.Sprintf(`KiteJobType = %q; KiteTypeRunning = %d; KiteTypeDone = %d; KiteTypeJobs = %d; %s %s`,
		name, running, done, jobs, rt, extra))
	return matchmaker.Request{ID: name, Count: idle, Ad: ad}
}

// node is a one-slot host with monitoring attributes.
func node(t testing.TB, name, attrs string) *classad.Ad { return host(t, name, attrs) }

// jcycle runs one cycle with slots free, pool as the whole pool (nil:
// the free slots) and the requests of one submitter.
func jcycle(s policy.Strategy, seed uint64, slots, pool []*classad.Ad, reqs ...matchmaker.Request) matchmaker.Result {
	snap := &matchmaker.Snapshot{Slots: slots, Pool: pool, Now: now,
		Submitters: []matchmaker.Submitter{{Name: "u", Schedd: "s", Priority: 0.5, Requests: reqs}}}
	return matchmaker.Cycle(snap, &matchmaker.Policy{Seed: seed, Strategy: s})
}

func mustNew(t testing.TB, name string, p policy.Params) policy.Strategy {
	t.Helper()
	s, err := policy.NewWith(name, p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// byRequest counts the matches of each request.
func byRequest(res matchmaker.Result) map[string]int {
	out := map[string]int{}
	for _, m := range res.Matches {
		out[m.Request]++
	}
	return out
}

func TestBalancedFillsTheTypeWithFewestRunning(t *testing.T) {
	s := mustNew(t, "joschka-balanced", nil)
	reqs := []matchmaker.Request{
		typed(t, "a", 50, 5, 0, 100, 0, ""), typed(t, "b", 50, 2, 0, 100, 0, ""), typed(t, "c", 50, 7, 0, 100, 0, ""),
	}
	// Six slots: b goes from 2 to 5 running; then a and b take turns (ties
	// at random) while c, at 7, waits: a ends with 1 or 2, b with 5 or 4.
	for seed := range uint64(10) {
		got := byRequest(jcycle(s, seed, hosts(t, 6, nil), nil, reqs...))
		if !maps.Equal(got, map[string]int{"a": 1, "b": 5}) && !maps.Equal(got, map[string]int{"a": 2, "b": 4}) {
			t.Errorf("seed %d: matches %v, want a 1 and b 5, or a 2 and b 4", seed, got)
		}
	}
	got := byRequest(jcycle(s, 1, hosts(t, 3, nil), nil, reqs...))
	if !maps.Equal(got, map[string]int{"b": 3}) {
		t.Errorf("three slots: matches %v, want all three to b (2 running, the others 5 and 7)", got)
	}
}

func TestNewUsersFirstServesTheLeastDoneType(t *testing.T) {
	s := mustNew(t, "joschka-new-users", nil)
	got := byRequest(jcycle(s, 1, hosts(t, 4, nil), nil,
		typed(t, "old", 50, 0, 50, 100, 30, ""), typed(t, "new", 50, 40, 1, 100, 30, "")))
	if !maps.Equal(got, map[string]int{"new": 4}) {
		t.Errorf("matches %v, want every slot to the type with 1 %% done", got)
	}
}

// Paper 000's example of the power-based strategy: reliability -4, -2, 0,
// 3, 5 give the power classes 0, 4, 9, 16, 20; runtimes 5, 40 and 120
// minutes the runtime classes 0, 12, 20. Each node gets the type whose
// class is nearest its own: 0 → 5 min; 4 → 5 min (4 vs 8); 9 → 40 min;
// 16 → a tie of 40 and 120 min (4 and 4), broken at random; 20 → 120 min.
func TestPowerBasedMatchesReliabilityToRuntime(t *testing.T) {
	rs := []int{-4, -2, 0, 3, 5}
	pool := hosts(t, 5, func(i int) string { return fmt.Sprintf("KiteReliability = %d", rs[i]) })
	reqs := []matchmaker.Request{typed(t, "t5", 9, 0, 9, 100, 5, ""), typed(t, "t40", 9, 0, 9, 100, 40, ""),
		typed(t, "t120", 9, 0, 9, 100, 120, "")}
	want := [][]string{{"t5"}, {"t5"}, {"t40"}, {"t40", "t120"}, {"t120"}}
	for i := range pool {
		seen := map[string]bool{}
		for seed := range uint64(40) {
			res := jcycle(mustNew(t, "joschka-power", nil), seed, pool[i:i+1], pool, reqs...)
			if len(res.Matches) != 1 {
				t.Fatalf("node %d: %d matches", i, len(res.Matches))
			}
			seen[res.Matches[0].Request] = true
		}
		got := slices.Sorted(maps.Keys(seen))
		if w := slices.Sorted(slices.Values(want[i])); !slices.Equal(got, w) {
			t.Errorf("node with R = %d got %v, want %v", rs[i], got, w)
		}
	}
}

// runtimeChoices runs the runtime-based strategy on one node for many
// seeds and returns the types it chose.
func runtimeChoices(t *testing.T, name string, params policy.Params, nodeAttrs string, others []*classad.Ad,
	reqs ...matchmaker.Request) map[string]int {
	t.Helper()
	slot := node(t, "n", nodeAttrs)
	pool := append([]*classad.Ad{slot}, others...)
	got := map[string]int{}
	for seed := range uint64(200) {
		for _, m := range jcycle(mustNew(t, name, params), seed, []*classad.Ad{slot}, pool, reqs...).Matches {
			got[m.Request]++
		}
	}
	return got
}

// Paper 000's example of the runtime-based strategy: s = 2, runtimes 20,
// 50, 150 and 160 minutes, and a node with avF 60, avS 90 and R = 3:
// avTARGET = 90 (1 + s/2) = 180, the nearest midpoint is 155, so RLTV is
// 155 ± 2 and the node gets the 150- or the 160-minute type at random.
func TestRuntimeBasedPaperExample(t *testing.T) {
	reqs := []matchmaker.Request{typed(t, "t20", 9, 0, 9, 99, 20, ""), typed(t, "t50", 9, 0, 9, 99, 50, ""),
		typed(t, "t150", 9, 0, 9, 99, 150, ""), typed(t, "t160", 9, 0, 9, 99, 160, "")}
	attrs := fmt.Sprintf("KiteReliability = 3; KiteAvgFailedTime = %g; KiteAvgSucceededTime = %g", 60*minute, 90*minute)
	for _, snap := range []string{"types", "midpoints"} {
		got := runtimeChoices(t, "joschka-runtime", policy.Params{"runlength_scale": 2, "snap": snap}, attrs, nil, reqs...)
		if len(got) != 2 || got["t150"] < 60 || got["t160"] < 60 {
			t.Errorf("snap %s: choices %v, want t150 and t160 about evenly", snap, got)
		}
	}
	// avS 70: avTARGET 140 is nearer the 150-minute type (10) than the
	// midpoint 155 (15): the dissertation's rule gives it t150; paper 000's
	// text, always the midpoint, tosses a coin.
	attrs = fmt.Sprintf("KiteReliability = 3; KiteAvgSucceededTime = %g", 70*minute)
	if got := runtimeChoices(t, "joschka-runtime", nil, attrs, nil, reqs...); !maps.Equal(got, map[string]int{"t150": 200}) {
		t.Errorf("snap types: choices %v, want t150 only", got)
	}
	got := runtimeChoices(t, "joschka-runtime", policy.Params{"snap": "midpoints"}, attrs, nil, reqs...)
	if len(got) != 2 {
		t.Errorf("snap midpoints: choices %v, want t150 and t160", got)
	}
}

func TestRuntimeBasedSpreadsByReliability(t *testing.T) {
	// Runtimes 10, 60 and 240 minutes: with the pseudo type's 0 the
	// midpoints are 5, 35 and 150; a target nearer 10 or 60 than any
	// midpoint takes that type, and 240, the longest, is reached only
	// through the midpoint 150: a coin toss with 60.
	reqs := []matchmaker.Request{typed(t, "t10", 9, 0, 9, 99, 10, ""), typed(t, "t60", 9, 0, 9, 99, 60, ""),
		typed(t, "t240", 9, 0, 9, 99, 240, "")}
	tests := []struct {
		r        int
		avF, avS float64 // minutes
		s        any
		want     []string
	}{
		{-5, 16, 0, 2, []string{"t10"}},        // 16 · 2^-1 = 8: nearer 10 (2) than 5 (3)
		{-4, 16, 0, 4, []string{"t10"}},        // 16 · 2^-1 = 8
		{-1, 60, 0, 2, []string{"t60"}},        // factor 1: avF
		{0, 1000, 60, 2, []string{"t60"}},      // reliable: avS, factor 1
		{5, 0, 60, 0, []string{"t60"}},         // no spread
		{5, 0, 60, 3, []string{"t240", "t60"}}, // 60 · 4 = 240 → the midpoint 150
		{2, 0, 12, 2, []string{"t10", "t60"}},  // 12 · 2 = 24 → the midpoint 35
		{2, 0, 12, "dynamic", []string{"t60"}}, // s = 240 / (10 · 3) = 8: 12 · 5 = 60
		{2, 0, 12, -1, []string{"t60"}},        // -1: JoSchKa's configuration for dynamic
	}
	for _, tt := range tests {
		attrs := fmt.Sprintf("KiteReliability = %d; KiteAvgFailedTime = %g; KiteAvgSucceededTime = %g", tt.r, tt.avF*minute, tt.avS*minute)
		got := runtimeChoices(t, "joschka-runtime", policy.Params{"runlength_scale": tt.s}, attrs, nil, reqs...)
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tt.want) {
			t.Errorf("R %d avF %g avS %g s %v: choices %v, want %v", tt.r, tt.avF, tt.avS, tt.s, got, tt.want)
		}
	}
}

// The improved uptime rule: a node whose mean uptime is 8 hours and that
// has been up 7.5 hours should get a 30-minute job (the dissertation's
// example); a node twice as slow as the pool's mean benchmark gets half
// the target.
func TestUptimeBasedFillsTheUptimeLeft(t *testing.T) {
	reqs := []matchmaker.Request{typed(t, "t30", 9, 0, 9, 99, 30, ""), typed(t, "t240", 9, 0, 9, 99, 240, ""),
		typed(t, "t600", 9, 0, 9, 99, 600, "")}
	up := func(minutes float64) string {
		return fmt.Sprintf("DaemonStartTime = %d", now.Unix()-int64(minutes*minute))
	}
	tests := []struct {
		name, attrs string
		want        map[string]int
	}{
		{"30 min left", fmt.Sprintf("KiteReliability = 2; KiteAvgUptime = %g; %s", 480*minute, up(450)), map[string]int{"t30": 200}},
		{"4 h left", fmt.Sprintf("KiteReliability = 2; KiteAvgUptime = %g; %s", 480*minute, up(240)), map[string]int{"t240": 200}},
		// Past its mean by 2 h with R = 5: (1 + 1) · 120 = 240 minutes.
		{"past the mean", fmt.Sprintf("KiteReliability = 5; KiteAvgUptime = %g; %s", 480*minute, up(600)), map[string]int{"t240": 200}},
		// No period ended yet: (R/5 + 1) · acU = 1 · 30.
		{"never down", fmt.Sprintf("KiteReliability = 0; %s", up(30)), map[string]int{"t30": 200}},
	}
	for _, tt := range tests {
		got := runtimeChoices(t, "joschka-uptime", nil, tt.attrs, nil, reqs...)
		if !maps.Equal(got, tt.want) {
			t.Errorf("%s: choices %v, want %v", tt.name, got, tt.want)
		}
	}
	// 4 h left, but the node's benchmark is twice the pool's mean (it is
	// half as fast): a target of 2 h, nearest the midpoint 135 of 30 and
	// 240: a coin toss.
	others := []*classad.Ad{node(t, "fast", "KiteBenchmark = 2000"), node(t, "faster", "KiteBenchmark = 2000")}
	got := runtimeChoices(t, "joschka-uptime", nil,
		fmt.Sprintf("KiteBenchmark = 8000; KiteReliability = 2; KiteAvgUptime = %g; %s", 480*minute, up(240)), others, reqs...)
	if len(got) != 2 || got["t30"] == 0 || got["t240"] == 0 {
		t.Errorf("slow node: choices %v, want t30 and t240 (a target of 2 h)", got)
	}
	// The original rule: the mean uptime (or the current one, when longer),
	// spread by s; with s = 0 the mean itself.
	got = runtimeChoices(t, "joschka-uptime", policy.Params{"uptime": "mean"},
		fmt.Sprintf("KiteReliability = 2; KiteAvgUptime = %g; %s", 240*minute, up(10)), nil, reqs...)
	if !maps.Equal(got, map[string]int{"t240": 200}) {
		t.Errorf("mean rule: choices %v, want t240", got)
	}
	got = runtimeChoices(t, "joschka-uptime", policy.Params{"uptime": "mean"},
		fmt.Sprintf("KiteReliability = 2; KiteAvgUptime = %g; %s", 30*minute, up(240)), nil, reqs...)
	if !maps.Equal(got, map[string]int{"t240": 200}) {
		t.Errorf("mean rule, up longer than the mean: choices %v, want t240", got)
	}
}

func TestCombinedChoosesItsStrategy(t *testing.T) {
	// Two nodes make the pool: R 5 and -5 (majority interval 10).
	pool := []*classad.Ad{node(t, "rel", "KiteReliability = 5; KiteAvgSucceededTime = 36000"),
		node(t, "unrel", "KiteReliability = -5; KiteAvgFailedTime = 60")}
	short := func(running, done int) matchmaker.Request { return typed(t, "short", 50, running, done, 100, 5, "") }
	long := func(running, done int) matchmaker.Request { return typed(t, "long", 50, running, done, 100, 600, "") }
	tests := []struct {
		name   string
		params policy.Params
		reqs   []matchmaker.Request
		slot   int
		want   []string
	}{
		// min/max running 1/10 < fair_level 0.5: balanced gives the
		// reliable node a short job.
		{"fairness", policy.Params{"fair_level": 0.5}, []matchmaker.Request{short(1, 50), long(10, 50)}, 0, []string{"short"}},
		// long is 1 % done, below the boost of 3 %: new users first.
		{"boost", nil, []matchmaker.Request{short(10, 50), long(10, 1)}, 1, []string{"long"}},
		// Otherwise runtime-based: the unreliable node's target is half a
		// minute: short; the reliable node's 30 h: the midpoint of short
		// and long, a coin toss.
		{"runtime, unreliable", nil, []matchmaker.Request{short(10, 50), long(10, 50)}, 1, []string{"short"}},
		{"runtime, reliable", policy.Params{"power_index_prob": 0}, []matchmaker.Request{short(10, 50), long(10, 50)}, 0,
			[]string{"long", "short"}},
		// power_index_prob = 1: power-based; the reliable node (class 20)
		// gets the long type (class 20).
		{"power", policy.Params{"power_index_prob": 1}, []matchmaker.Request{short(10, 50), long(10, 50)}, 0, []string{"long"}},
		// Alike runtimes (index difference 0): fairness is raised to 0.9,
		// and 2/10 running is below it.
		{"alike types", nil, []matchmaker.Request{typed(t, "a", 50, 2, 50, 100, 30, ""), typed(t, "b", 50, 10, 50, 100, 40, "")}, 0,
			[]string{"a"}},
	}
	for _, tt := range tests {
		seen := map[string]bool{}
		for seed := range uint64(40) {
			res := jcycle(mustNew(t, "joschka-combined", tt.params), seed, pool[tt.slot:tt.slot+1], pool, tt.reqs...)
			if len(res.Matches) != 1 {
				t.Fatalf("%s: %d matches", tt.name, len(res.Matches))
			}
			seen[res.Matches[0].Request] = true
		}
		if got := slices.Sorted(maps.Keys(seen)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: chose %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Jobs go by JobPrio within a type, then by age.
func TestJoSchKaPriorityWithinAType(t *testing.T) {
	lo := typed(t, "a", 5, 0, 0, 10, 0, "JobPrio = 0; QDate = 100")
	hi := typed(t, "a", 5, 0, 0, 10, 0, "JobPrio = 5; QDate = 200")
	lo.ID, hi.ID = "lo", "hi"
	got := byRequest(jcycle(mustNew(t, "joschka-balanced", nil), 1, hosts(t, 3, nil), nil, lo, hi))
	if !maps.Equal(got, map[string]int{"hi": 3}) {
		t.Errorf("matches %v, want the higher JobPrio first", got)
	}
}

// replicaOf is a replica request for running jobs of a type.
func replicaOf(r matchmaker.Request, count int) matchmaker.Request {
	ad := r.Ad.Clone()
	ad.Set("KiteReplica", mustExpr("true"))
	return matchmaker.Request{ID: "rep-" + r.ID, Count: count, Ad: ad}
}

func mustExpr(src string) classad.Expr {
	e, err := classad.ParseExpr(src)
	if err != nil {
		panic(err)
	}
	return e
}

// Replicas only when no idle job matches the slot; never for strategies
// that do not replicate.
func TestReplicasWhenNoIdleJobIsLeft(t *testing.T) {
	a := typed(t, "a", 1, 3, 0, 10, 0, "")
	rep := replicaOf(a, 3)
	got := byRequest(jcycle(mustNew(t, "joschka-balanced", nil), 1, hosts(t, 3, nil), nil, a, rep))
	if !maps.Equal(got, map[string]int{"a": 1, "rep-a": 2}) {
		t.Errorf("matches %v, want the idle job, then two replicas", got)
	}
	got = byRequest(jcycle(mustNew(t, "joschka-balanced", policy.Params{"replicate": false}), 1, hosts(t, 3, nil), nil, a, rep))
	if !maps.Equal(got, map[string]int{"a": 1}) {
		t.Errorf("replicate = false: matches %v, want the idle job only", got)
	}
	for _, name := range []string{"condor", "random", "round-robin", "least-work-left"} {
		s, _ := policy.New(name)
		res := jcycle(s, 1, hosts(t, 3, nil), nil, a, rep)
		if got := byRequest(res); !maps.Equal(got, map[string]int{"a": 1}) {
			t.Errorf("%s: matches %v, want the idle job only (it does not replicate)", name, got)
		}
		if res.Stats.Jobs != 1 {
			t.Errorf("%s: %d idle jobs counted, want 1 (replica requests are not idle jobs)", name, res.Stats.Jobs)
		}
	}
}

func TestJoSchKaParams(t *testing.T) {
	tests := []struct {
		name   string
		params policy.Params
		err    string
	}{
		{"joschka-balanced", policy.Params{"fair_level": 0.1}, `unknown parameter "fair_level"`},
		{"joschka-combined", policy.Params{"fair_level": 2}, `"fair_level": 2 is outside [0, 1]`},
		{"joschka-combined", policy.Params{"runlength_scale": "wide"}, `want a number >= 0 or "dynamic"`},
		{"joschka-combined", policy.Params{"runlength_scale": -2}, `want a number >= 0 or "dynamic"`},
		{"joschka-runtime", policy.Params{"snap": "nearest"}, `"nearest" is not one of [types midpoints]`},
		{"joschka-uptime", policy.Params{"uptime": "max"}, `is not one of [remaining mean]`},
		{"joschka-power", policy.Params{"replicate": "yes"}, `want true or false`},
	}
	for _, tt := range tests {
		_, err := policy.NewWith(tt.name, tt.params)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("NewWith(%s, %v) = %v, want %q", tt.name, tt.params, err, tt.err)
		}
	}
	for _, p := range []policy.Params{{"runlength_scale": -1}, {"runlength_scale": "dynamic"}, {"runlength_scale": 0},
		{"fair_level": 0.1, "done_rate_low_boost": 0.03, "power_index_prob": 0, "use_uptimes": true, "uptime": "mean"}} {
		if _, err := policy.NewWith("joschka-combined", p); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
}
