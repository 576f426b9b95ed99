package matchmaker

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/policy"
)

func ad(t testing.TB, src string) *classad.Ad {
	t.Helper()
	a, err := classad.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return a
}

// slotAd is an unclaimed static slot; extra is new-syntax attributes.
func slotAd(t testing.TB, name string, extra string) *classad.Ad {
	return ad(t, fmt.Sprintf(`[MyType="Machine"; Name=%q; Machine=%q; State="Unclaimed"; Activity="Idle";
		Cpus=1; Memory=4096; Disk=100000; Arch="X86_64"; OpSys="LINUX"; Requirements=START; START=true; %s]`,
		name, strings.SplitN(name, "@", 2)[len(strings.SplitN(name, "@", 2))-1], extra))
}

func jobAd(t testing.TB, extra string) *classad.Ad {
	return ad(t, `[MyType="Job"; RequestCpus=1; RequestMemory=1024; RequestDisk=1000;
		Requirements=TARGET.Memory >= RequestMemory && TARGET.Cpus >= RequestCpus; `+extra+`]`)
}

func slots(t testing.TB, n int, extra func(i int) string) []*classad.Ad {
	var out []*classad.Ad
	for i := range n {
		e := ""
		if extra != nil {
			e = extra(i)
		}
		out = append(out, slotAd(t, fmt.Sprintf("slot%d@host%d", i%4+1, i/4), e))
	}
	return out
}

func submitter(name string, prio float64, reqs ...Request) Submitter {
	return Submitter{Name: name, Schedd: "schedd:1", Priority: prio, Requests: reqs}
}

// count tallies matches by a key.
func count(res Result, key func(Match) string) map[string]int {
	out := map[string]int{}
	for _, m := range res.Matches {
		out[key(m)]++
	}
	return out
}

func bySubmitter(m Match) string { return m.Submitter }

func TestMatchesBothRequirements(t *testing.T) {
	snap := &Snapshot{
		Slots: []*classad.Ad{
			slotAd(t, "slot1@small", "Memory=512"),
			slotAd(t, "slot1@big", "Memory=8192"),
			slotAd(t, "slot1@picky", `Memory=8192; START = TARGET.Owner == "bob"`),
			slotAd(t, "slot1@big2", "Memory=16384"),
		},
		Submitters: []Submitter{submitter("alice", 0.5, Request{ID: "1", Count: 5, Ad: jobAd(t, `Owner="alice"`)})},
	}
	res := Cycle(snap, &Policy{})
	var got []string
	for _, m := range res.Matches {
		got = append(got, m.SlotName)
	}
	slices.Sort(got)
	if want := []string{"slot1@big", "slot1@big2"}; !slices.Equal(got, want) {
		t.Fatalf("matched %v, want %v", got, want)
	}
	if res.Stats.Rejections["busy"] != 3 {
		t.Errorf("rejections %v, want busy=3 (slots that match exist but are taken)", res.Stats.Rejections)
	}
	for _, m := range res.Matches {
		if m.Submitter != "alice" || m.Schedd != "schedd:1" || m.Request != "1" || m.Slot == nil {
			t.Errorf("match %+v lacks its submitter, schedd, request or slot ad", m)
		}
	}
}

func TestNoMatchReason(t *testing.T) {
	snap := &Snapshot{
		Slots:      slots(t, 4, nil),
		Submitters: []Submitter{submitter("alice", 0.5, Request{ID: "1", Count: 7, Ad: jobAd(t, `RequestMemory=100000`)})},
	}
	res := Cycle(snap, &Policy{})
	if len(res.Matches) != 0 || res.Stats.Rejections["no-match"] != 7 {
		t.Fatalf("matches %d rejections %v, want 0 and no-match=7", len(res.Matches), res.Stats.Rejections)
	}
}

func TestRankOrder(t *testing.T) {
	mk := func() []*classad.Ad {
		return []*classad.Ad{
			slotAd(t, "slot1@a", "Memory=2048; Mips=100"),
			slotAd(t, "slot1@b", "Memory=8192; Mips=10"),
			slotAd(t, "slot1@c", "Memory=4096; Mips=50"),
		}
	}
	pick := func(pol *Policy, job string) []string {
		snap := &Snapshot{Slots: mk(), Submitters: []Submitter{submitter("u", 0.5, Request{ID: "1", Count: 3, Ad: jobAd(t, job)})}}
		var got []string
		for _, m := range Cycle(snap, pol).Matches {
			got = append(got, m.SlotName)
		}
		return got
	}
	tests := []struct {
		name string
		pol  *Policy
		job  string
		want []string
	}{
		{"job Rank", &Policy{}, "Rank=TARGET.Memory", []string{"slot1@b", "slot1@c", "slot1@a"}},
		{"negative Rank", &Policy{}, "Rank=-TARGET.Memory", []string{"slot1@a", "slot1@c", "slot1@b"}},
		{"pre-job rank before job Rank", &Policy{PreJobRank: compile(t, "MY.Mips")}, "Rank=TARGET.Memory", []string{"slot1@a", "slot1@c", "slot1@b"}},
		{"post-job rank breaks ties only", &Policy{PostJobRank: compile(t, "MY.Mips")}, "Rank=TARGET.Memory > 3000", []string{"slot1@c", "slot1@b", "slot1@a"}},
		{"undefined Rank is 0", &Policy{PostJobRank: compile(t, "-MY.Mips")}, "Rank=TARGET.NoSuch", []string{"slot1@b", "slot1@c", "slot1@a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pick(tt.pol, tt.job); !slices.Equal(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
}

func compile(t testing.TB, src string) *classad.Program {
	p, err := classad.Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFairShare(t *testing.T) {
	tests := []struct {
		name  string
		subs  []Submitter
		extra int // claimed slots in the pool, running other jobs
		want  map[string]int
	}{
		{"equal priorities split evenly",
			[]Submitter{sub(t, "a", 500, 0, 100), sub(t, "b", 500, 0, 100)}, 0,
			map[string]int{"a": 5, "b": 5}},
		{"shares are inverse to priority",
			[]Submitter{sub(t, "a", 500, 0, 100), sub(t, "b", 2000, 0, 100)}, 0,
			map[string]int{"a": 8, "b": 2}},
		{"what a submitter runs counts against its share",
			[]Submitter{sub(t, "a", 500, 5, 100), sub(t, "b", 500, 0, 100)}, 5,
			map[string]int{"b": 5}},
		{"leftovers go round again",
			[]Submitter{sub(t, "a", 500, 0, 1), sub(t, "b", 500, 0, 100)}, 0,
			map[string]int{"a": 1, "b": 9}},
		{"best priority first when slots are scarce",
			[]Submitter{sub(t, "z", 600, 0, 100), sub(t, "y", 700, 0, 100), sub(t, "x", 500, 0, 100)}, 8,
			map[string]int{"x": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := slots(t, 10-tt.extra, nil)
			for i := range tt.extra {
				all = append(all, slotAd(t, fmt.Sprintf("slot%d@busy", i), `State="Claimed"; Activity="Busy"; RemoteUser="a"`))
			}
			res := Cycle(&Snapshot{Slots: all, Submitters: tt.subs}, &Policy{})
			if got := count(res, bySubmitter); !mapsEqual(got, tt.want) {
				t.Errorf("matches per submitter %v, want %v", got, tt.want)
			}
		})
	}
}

func sub(t testing.TB, name string, prio, inUse float64, jobs int) Submitter {
	s := submitter(name, prio, Request{ID: name + "-1", Count: jobs, Ad: jobAd(t, `Owner="`+name+`"`)})
	s.InUse = inUse
	return s
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestQuotaRejections(t *testing.T) {
	res := Cycle(&Snapshot{Slots: slots(t, 4, nil), Submitters: []Submitter{sub(t, "a", 500, 0, 10), sub(t, "b", 500, 0, 10)}}, &Policy{})
	if res.Stats.Rejections["quota"]+res.Stats.Rejections["busy"] != 16 || len(res.Matches) != 4 {
		t.Fatalf("matches %d rejections %v: want 4 matches and 16 jobs waiting", len(res.Matches), res.Stats.Rejections)
	}
}

func TestPartitionableSlotServesSeveralJobs(t *testing.T) {
	p := slotAd(t, "slot1@fat", `Cpus=8; Memory=8000; Disk=80000; PartitionableSlot=true; SlotType="Partitionable"`)
	snap := &Snapshot{
		Slots: []*classad.Ad{p},
		Submitters: []Submitter{submitter("a", 0.5,
			Request{ID: "big", Count: 5, Ad: jobAd(t, `RequestCpus=2; RequestMemory=1500`)},
			Request{ID: "small", Count: 5, Ad: jobAd(t, `RequestCpus=1; RequestMemory=100`)})},
	}
	res := Cycle(snap, &Policy{})
	got := count(res, func(m Match) string { return m.Request })
	// 5 × (2 cpus, 1500 MB) needs 10 cpus: 4 fit (8 cpus, 6144 MB, as
	// 1500 rounds up to 1536); then nothing is left for the small ones.
	if got["big"] != 4 || got["small"] != 0 {
		t.Fatalf("matches per request %v, want big=4 small=0", got)
	}
	snap.Submitters[0].Requests[0].Count = 2
	res = Cycle(snap, &Policy{})
	got = count(res, func(m Match) string { return m.Request })
	// 2 big jobs take 4 cpus and 3072 MB; the small ones take a cpu each.
	if got["big"] != 2 || got["small"] != 4 {
		t.Fatalf("matches per request %v, want big=2 small=4", got)
	}
	for _, m := range res.Matches {
		if m.SlotName != "slot1@fat" {
			t.Errorf("match on %s", m.SlotName)
		}
	}
	// The matches carry the slot as it was when matched: resources shrink.
	first, last := res.Matches[0].Slot, res.Matches[len(res.Matches)-1].Slot
	if numberAttr(first, "Cpus", 0) != 8 || numberAttr(last, "Cpus", 0) != 1 {
		t.Errorf("slot cpus seen by first and last match: %v, %v; want 8 and 1", numberAttr(first, "Cpus", 0), numberAttr(last, "Cpus", 0))
	}
	if numberAttr(p, "Cpus", 0) != 8 {
		t.Error("the snapshot's slot ad was changed")
	}
}

func TestConcurrencyLimits(t *testing.T) {
	tests := []struct {
		name    string
		limits  string
		inUse   map[string]float64
		want    int
		limited int
	}{
		{"limit caps matches", `ConcurrencyLimits="db"`, nil, 2, 3},
		{"running jobs hold limits", `ConcurrencyLimits="DB"`, map[string]float64{"db": 1}, 1, 4},
		{"amounts", `ConcurrencyLimits="db:2"`, nil, 1, 4},
		{"every listed limit applies", `ConcurrencyLimits="sw, db"`, nil, 2, 3},
		{"default limit for unlisted names", `ConcurrencyLimits="other"`, nil, 3, 2},
		{"no limits", ``, nil, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := &Snapshot{
				Slots:       slots(t, 8, nil),
				Submitters:  []Submitter{submitter("a", 0.5, Request{ID: "1", Count: 5, Ad: jobAd(t, tt.limits)})},
				LimitsInUse: tt.inUse,
			}
			res := Cycle(snap, &Policy{ConcurrencyLimits: map[string]float64{"db": 2, "sw": 10}, DefaultLimit: 3})
			if len(res.Matches) != tt.want || res.Stats.Rejections["limit"] != tt.limited {
				t.Errorf("matches %d rejections %v, want %d and limit=%d", len(res.Matches), res.Stats.Rejections, tt.want, tt.limited)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	got := ParseLimits("A, b:2 ,c:0.5\tsw.x:notanumber")
	want := []LimitUse{{"a", 1}, {"b", 2}, {"c", 0.5}, {"sw.x:notanumber", 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("ParseLimits = %v, want %v", got, want)
	}
}

func TestPreemption(t *testing.T) {
	busy := func(extra string) *classad.Ad {
		return slotAd(t, "slot1@busy", `State="Claimed"; Activity="Busy"; RemoteUser="bob"; CurrentRank=0; `+extra)
	}
	tests := []struct {
		name string
		slot string
		pol  Policy
		prio float64
		free bool
		want string // the Preempt of the one match, or "none"
	}{
		{"busy slots are not candidates without ConsiderPreemption", `Rank=TARGET.Owner=="alice"`, Policy{}, 1, false, "none"},
		{"slot Rank prefers the job", `Rank=TARGET.Owner=="alice"`, Policy{ConsiderPreemption: true}, 100, false, "rank"},
		{"slot Rank indifferent, no PREEMPTION_REQUIREMENTS", ``, Policy{ConsiderPreemption: true}, 1, false, "none"},
		{"better priority with PREEMPTION_REQUIREMENTS", ``,
			Policy{ConsiderPreemption: true, PreemptionRequirements: compile(t, "RemoteUserPrio > SubmitterUserPrio * 1.2")}, 1, false, "priority"},
		{"priority not better enough", ``,
			Policy{ConsiderPreemption: true, PreemptionRequirements: compile(t, "RemoteUserPrio > SubmitterUserPrio * 1.2")}, 9, false, "none"},
		{"worse priority never preempts", ``,
			Policy{ConsiderPreemption: true, PreemptionRequirements: compile(t, "true")}, 20, false, "none"},
		{"slot prefers its current job", `Rank=TARGET.Owner=="bob"; CurrentRank=1`,
			Policy{ConsiderPreemption: true, PreemptionRequirements: compile(t, "true")}, 1, false, "none"},
		{"a free slot goes before preemption", `Rank=TARGET.Owner=="alice"`, Policy{ConsiderPreemption: true}, 1, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := []*classad.Ad{busy(tt.slot)}
			if tt.free {
				all = append(all, slotAd(t, "slot1@free", ""))
			}
			snap := &Snapshot{
				Slots:      all,
				Submitters: []Submitter{submitter("alice", tt.prio, Request{ID: "1", Count: 1, Ad: jobAd(t, `Owner="alice"`)})},
				Priorities: map[string]float64{"alice": tt.prio, "bob": 10},
			}
			res := Cycle(snap, &tt.pol)
			got := "none"
			if len(res.Matches) == 1 {
				got = res.Matches[0].Preempt
			}
			if got != tt.want {
				t.Errorf("preempt = %q, want %q (matches %+v)", got, tt.want, res.Matches)
			}
		})
	}
}

func TestDeterministicWithSeed(t *testing.T) {
	run := func(seed uint64) []string {
		snap := &Snapshot{Slots: slots(t, 40, nil), Submitters: []Submitter{sub(t, "a", 500, 0, 10)}, Now: time.Unix(1e9, 0)}
		var out []string
		for _, m := range Cycle(snap, &Policy{Seed: seed}).Matches {
			out = append(out, m.SlotName)
		}
		return out
	}
	a, b, c := run(1), run(1), run(2)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different matches: %v vs %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("different seeds chose the same slots %v: ties are not spread", a)
	}
}

func TestSlotsOfAClassAreEvaluatedOnce(t *testing.T) {
	snap := &Snapshot{
		Slots: slots(t, 1000, func(i int) string { return fmt.Sprintf("LoadAvg=%d.5; Memory=%d", i, 1024*(1+i%3)) }),
		Submitters: []Submitter{submitter("a", 0.5,
			Request{ID: "1", Count: 10, Ad: jobAd(t, "")},
			Request{ID: "2", Count: 10, Ad: jobAd(t, "RequestMemory=3000")})},
	}
	res := Cycle(snap, &Policy{})
	// Request 1 matches all 3 classes: 3 job-side and 3 slot-side
	// evaluations; request 2 only the 3072 MB class: 3 + 1.
	if res.Stats.Classes != 3 || res.Stats.Evaluations != 10 {
		t.Errorf("classes %d evaluations %d, want 3 and 10: slots differing only in attributes nobody reads share a class", res.Stats.Classes, res.Stats.Evaluations)
	}
	if len(res.Matches) != 20 {
		t.Errorf("%d matches, want 20", len(res.Matches))
	}
	// A job that reads LoadAvg splits the classes.
	snap.Submitters[0].Requests[1].Ad = jobAd(t, "Rank = -TARGET.LoadAvg")
	res = Cycle(snap, &Policy{})
	if res.Stats.Classes != 1000 {
		t.Errorf("classes %d, want 1000 when a job reads LoadAvg", res.Stats.Classes)
	}
	prev := -1.0
	for _, m := range res.Matches {
		if m.Request != "2" {
			continue
		}
		load := numberAttr(m.Slot, "LoadAvg", 0)
		if load < prev {
			t.Errorf("request 2 got %s (LoadAvg %v) after one with LoadAvg %v: Rank not followed", m.SlotName, load, prev)
		}
		prev = load
	}
}

func TestJobSideEvaluatedPerLookAlikeGroup(t *testing.T) {
	// Each slot's START reads its own KeyboardIdle: every slot is a class
	// of its own. The jobs read only Memory and Cpus, so their side is
	// evaluated once per memory size, the slots' side once per slot.
	snap := &Snapshot{
		Slots: slots(t, 300, func(i int) string {
			return fmt.Sprintf("KeyboardIdle=%d; START = KeyboardIdle > 100; Memory=%d", i, 1024*(1+i%3))
		}),
		Submitters: []Submitter{submitter("a", 0.5, Request{ID: "1", Count: 1000, Ad: jobAd(t, "RequestMemory=3000")})},
	}
	res := Cycle(snap, &Policy{})
	// Slots 101..299 say yes; a third of them have 3072 MB.
	want := 0
	for i := 101; i < 300; i++ {
		if i%3 == 2 {
			want++
		}
	}
	if res.Stats.Classes != 300 || res.Stats.Evaluations != 3+100 || len(res.Matches) != want {
		t.Errorf("classes %d evaluations %d matches %d, want 300, %d and %d", res.Stats.Classes, res.Stats.Evaluations, len(res.Matches), 3+100, want)
	}
}

// strategyFunc adapts a function to policy.Strategy.
type strategyFunc func(policy.Market)

func (strategyFunc) Name() string                 { return "test" }
func (f strategyFunc) Distribute(m policy.Market) { f(m) }

func TestMarketRefusesWhatRulesForbid(t *testing.T) {
	snap := &Snapshot{
		Slots: []*classad.Ad{slotAd(t, "slot1@small", "Memory=512"), slotAd(t, "slot1@big", "Memory=8192")},
		Submitters: []Submitter{submitter("a", 0.5,
			Request{ID: "1", Count: 2, Ad: jobAd(t, `RequestMemory=1000; ConcurrencyLimits="x"`)})},
	}
	var reasons []policy.Reason
	pol := &Policy{ConcurrencyLimits: map[string]float64{"x": 1}, Strategy: strategyFunc(func(m policy.Market) {
		small, big := 0, 1
		if m.Slots()[0].Name != "slot1@small" {
			small, big = 1, 0
		}
		_, r1 := m.Assign(0, small) // does not match
		_, r2 := m.Assign(0, big)
		_, r3 := m.Assign(0, big) // taken
		reasons = append(reasons, r1, r2, r3)
		if m.Matches(0, big) || m.Matches(0, small) {
			reasons = append(reasons, 99)
		}
	})}
	res := Cycle(snap, pol)
	want := []policy.Reason{policy.NoMatch, policy.OK, policy.Busy}
	if !slices.Equal(reasons, want) || len(res.Matches) != 1 {
		t.Fatalf("reasons %v matches %d, want %v and 1", reasons, len(res.Matches), want)
	}
}
