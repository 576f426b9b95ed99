package policy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
)

// The strategies run in the real negotiation cycle, against real ads.

func parse(t testing.TB, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return ad
}

// host is a one-slot host: name, then extra attributes.
func host(t testing.TB, name, extra string) *classad.Ad {
	return parse(t, fmt.Sprintf(`[MyType="Machine"; Name="slot1@%s"; Machine=%q; State="Unclaimed"; Activity="Idle";
		Cpus=1; Memory=4096; Disk=100000; Requirements=START; START=true; %s]`, name, name, extra))
}

func job(t testing.TB, extra string) *classad.Ad {
	return parse(t, `[MyType="Job"; RequestCpus=1; RequestMemory=100; RequestDisk=10; Requirements=true; `+extra+`]`)
}

func request(id string, count int, ad *classad.Ad) matchmaker.Request {
	return matchmaker.Request{ID: id, Count: count, Ad: ad}
}

func cycle(s policy.Strategy, seed uint64, slots []*classad.Ad, reqs ...matchmaker.Request) matchmaker.Result {
	snap := &matchmaker.Snapshot{Slots: slots, Submitters: []matchmaker.Submitter{{Name: "u", Schedd: "s", Priority: 0.5, Requests: reqs}}}
	return matchmaker.Cycle(snap, &matchmaker.Policy{Seed: seed, Strategy: s})
}

func names(res matchmaker.Result) []string {
	var out []string
	for _, m := range res.Matches {
		out = append(out, m.SlotName)
	}
	return out
}

func hosts(t testing.TB, n int, extra func(i int) string) []*classad.Ad {
	var out []*classad.Ad
	for i := range n {
		e := ""
		if extra != nil {
			e = extra(i)
		}
		out = append(out, host(t, fmt.Sprintf("h%02d", i), e))
	}
	return out
}

func TestRandomIsUniformAndSeeded(t *testing.T) {
	slots := hosts(t, 8, nil)
	counts := map[string]int{}
	const cycles = 4000
	for seed := range uint64(cycles) {
		res := cycle(policy.Random{}, seed+1, slots, request("1", 1, job(t, "")))
		if len(res.Matches) != 1 {
			t.Fatalf("seed %d: %d matches, want 1", seed, len(res.Matches))
		}
		counts[res.Matches[0].SlotName]++
	}
	// Each host expects 500; a fair draw stays within ±25 % (about 6 sigma).
	if len(counts) != 8 {
		t.Fatalf("random reached %d of 8 hosts: %v", len(counts), counts)
	}
	for name, n := range counts {
		if n < 375 || n > 625 {
			t.Errorf("host %s got %d of %d jobs, want about %d", name, n, cycles, cycles/8)
		}
	}
	a := names(cycle(policy.Random{}, 42, slots, request("1", 5, job(t, ""))))
	b := names(cycle(policy.Random{}, 42, slots, request("1", 5, job(t, ""))))
	if !slices.Equal(a, b) || len(a) != 5 {
		t.Errorf("same seed gave %v and %v", a, b)
	}
}

func TestRandomKeepsRequirements(t *testing.T) {
	slots := hosts(t, 6, func(i int) string { return fmt.Sprintf("Memory=%d", 1000*(i+1)) })
	for seed := range uint64(50) {
		res := cycle(policy.Random{}, seed, slots, request("1", 6, job(t, "Requirements = TARGET.Memory >= 4000")))
		got := names(res)
		slices.Sort(got)
		if want := []string{"slot1@h03", "slot1@h04", "slot1@h05"}; !slices.Equal(got, want) {
			t.Fatalf("seed %d: matched %v, want %v", seed, got, want)
		}
		if res.Stats.Rejections["busy"] != 3 {
			t.Fatalf("rejections %v, want busy=3", res.Stats.Rejections)
		}
	}
	res := cycle(policy.Random{}, 1, slots, request("1", 2, job(t, "Requirements = TARGET.Memory > 1e9")))
	if len(res.Matches) != 0 || res.Stats.Rejections["no-match"] != 2 {
		t.Errorf("matches %v rejections %v, want none and no-match=2", names(res), res.Stats.Rejections)
	}
}

func TestRoundRobinTurnsAcrossCycles(t *testing.T) {
	slots := hosts(t, 4, nil)
	rr, err := policy.New("round-robin")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for seed := range uint64(6) {
		got = append(got, names(cycle(rr, seed, slots, request("1", 1, job(t, ""))))...)
	}
	// Two jobs in one cycle continue the turn.
	got = append(got, names(cycle(rr, 9, slots, request("1", 2, job(t, ""))))...)
	want := []string{"slot1@h00", "slot1@h01", "slot1@h02", "slot1@h03", "slot1@h00", "slot1@h01", "slot1@h02", "slot1@h03"}
	if !slices.Equal(got, want) {
		t.Errorf("turn %v, want %v", got, want)
	}
}

func TestRoundRobinSkipsWhatDoesNotMatch(t *testing.T) {
	slots := hosts(t, 5, func(i int) string { return fmt.Sprintf("Memory=%d", []int{8000, 100, 8000, 8000, 100}[i]) })
	rr, _ := policy.New("round-robin")
	var got []string
	for seed := range uint64(4) {
		got = append(got, names(cycle(rr, seed, slots, request("1", 1, job(t, "Requirements = TARGET.Memory > 1000"))))...)
	}
	if want := []string{"slot1@h00", "slot1@h02", "slot1@h03", "slot1@h00"}; !slices.Equal(got, want) {
		t.Errorf("turn %v, want %v", got, want)
	}
}

func TestRoundRobinByMachine(t *testing.T) {
	var slots []*classad.Ad
	for _, h := range []string{"a", "b"} {
		for s := 1; s <= 2; s++ {
			slots = append(slots, parse(t, fmt.Sprintf(`[MyType="Machine"; Name="slot%d@%s"; Machine=%q; State="Unclaimed";
				Activity="Idle"; Cpus=1; Memory=1000; Disk=1000; Requirements=true]`, s, h, h)))
		}
	}
	rr, err := policy.NewWith("round-robin", policy.Params{"key": "Machine"})
	if err != nil {
		t.Fatal(err)
	}
	var machines []string
	for seed := range uint64(4) {
		for _, m := range cycle(rr, seed, slots, request("1", 1, job(t, ""))).Matches {
			machines = append(machines, strings.SplitN(m.SlotName, "@", 2)[1])
		}
	}
	if want := []string{"a", "b", "a", "b"}; !slices.Equal(machines, want) {
		t.Errorf("machines in turn %v, want %v", machines, want)
	}
}

func TestLeastWorkLeft(t *testing.T) {
	// Time to drain: h00 50, h01 10, h02 20 (40 at speed 2), h03 never
	// (speed 0 with work), h04 nothing to do.
	extra := []string{"KiteWorkLeft=50", "KiteWorkLeft=10; KiteSpeed=1", "KiteWorkLeft=40; KiteSpeed=2",
		"KiteWorkLeft=1; KiteSpeed=0", "KiteWorkLeft=0"}
	slots := hosts(t, len(extra), func(i int) string { return extra[i] })
	lwl, _ := policy.New("least-work-left")
	got := names(cycle(lwl, 7, slots, request("1", 5, job(t, ""))))
	want := []string{"slot1@h04", "slot1@h01", "slot1@h02", "slot1@h00", "slot1@h03"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v (least time to drain first)", got, want)
	}
	byQueue, err := policy.NewWith("least-work-left", policy.Params{"rank": "KiteQueueLength"})
	if err != nil {
		t.Fatal(err)
	}
	q := hosts(t, 3, func(i int) string { return fmt.Sprintf("KiteQueueLength=%d; KiteWorkLeft=%d", 3-i, i) })
	if got := names(cycle(byQueue, 1, q, request("1", 1, job(t, "")))); !slices.Equal(got, []string{"slot1@h02"}) {
		t.Errorf("rank KiteQueueLength chose %v, want the shortest queue slot1@h02", got)
	}
}

func TestOldestRequestFirst(t *testing.T) {
	for _, name := range []string{"random", "round-robin", "least-work-left"} {
		s, _ := policy.New(name)
		res := cycle(s, 3, hosts(t, 2, nil),
			request("young", 2, job(t, "QDate=2000")), request("old", 2, job(t, "QDate=1000")))
		for _, m := range res.Matches {
			if m.Request != "old" {
				t.Errorf("%s: matched request %s while an older one waited", name, m.Request)
			}
		}
		if len(res.Matches) != 2 {
			t.Errorf("%s: %d matches, want 2", name, len(res.Matches))
		}
	}
}

func TestParams(t *testing.T) {
	tests := []struct {
		name   string
		params policy.Params
		err    string
	}{
		{"random", policy.Params{"x": 1}, `strategy "random" takes no parameters (given x)`},
		{"round-robin", policy.Params{"keys": "Name"}, `unknown parameter "keys" (known: key)`},
		{"round-robin", policy.Params{"key": 3}, `parameter "key": want a string`},
		{"round-robin", policy.Params{"key": ""}, `parameter "key": must not be empty`},
		{"least-work-left", policy.Params{"rank": "KiteWorkLeft +"}, `parameter "rank"`},
		{"nope", nil, `unknown strategy "nope"`},
		// Queue dispatch is the simulator's: a live configuration that
		// asks for it is refused with where it works.
		{"least-work-left", policy.Params{"dispatch": "queue"},
			`strategy "least-work-left": parameter "dispatch" is not a strategy parameter: queue dispatch (jobs waiting in per-host FCFS queues) exists only in the simulator (kite sim: dispatch = "queue" on the [[policy]])`},
		{"random", policy.Params{"dispatch": "queue"}, `strategy "random": parameter "dispatch" is not a strategy parameter: queue dispatch`},
		{"min-min", policy.Params{"batch": true}, `strategy "min-min": parameter "batch" is not a strategy parameter: offering every idle job each cycle is a setting of the simulator's queue dispatch`},
	}
	for _, tc := range tests {
		_, err := policy.NewWith(tc.name, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("NewWith(%s, %v) = %v, want an error containing %q", tc.name, tc.params, err, tc.err)
		}
	}
	if _, err := policy.NewWith("least-work-left", policy.Params{"rank": "KiteQueueLength * 2"}); err != nil {
		t.Errorf("a good rank was refused: %v", err)
	}
}
