package reliability

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

func TestBenchmarkIndex(t *testing.T) {
	tests := []struct {
		ms   float64
		want int
	}{
		{1, 4}, {4999, 4}, {5000, 2}, {9999, 2}, {10000, 0}, {14999, 0},
		{15000, -2}, {19999, -2}, {20000, -4}, {1e9, -4},
		{0, 0}, {-5, 0}, {math.NaN(), 0}, // unknown: neutral
	}
	for _, tt := range tests {
		if got := BenchmarkIndex(tt.ms); got != tt.want {
			t.Errorf("BenchmarkIndex(%v) = %d, want %d", tt.ms, got, tt.want)
		}
	}
}

// outcomes builds a node with a benchmark and a history given as a
// string of + (done) and - (lost), oldest first; each job worked 60 s.
func outcomes(bench float64, h string) *Node {
	n := &Node{Benchmark: bench}
	for _, c := range h {
		if c == '+' {
			n.Done(60, 0)
		} else {
			n.Abort(60, 0)
		}
	}
	return n
}

func TestReliabilityIndex(t *testing.T) {
	tests := []struct {
		name  string
		bench float64
		hist  string
		want  int
	}{
		// With no history R is B (the paper's initialisation).
		{"fast, new", 4000, "", 4},
		{"medium, new", 9000, "", 2},
		{"slow, new", 19000, "", -2},
		{"slowest, new", 25000, "", -4},
		{"unknown, new", 0, "", 0},
		// B stands for the outcomes not seen: ½ Σ r + B (10 - n) / 10.
		{"fast, one loss", 4000, "-", 3},         // -0.5 + 3.6 = 3.1
		{"fast, one success", 4000, "+", 4},      // 0.5 + 3.6 = 4.1
		{"slow, two successes", 19000, "++", -1}, // 1 - 1.6 = -0.6
		{"neutral, one success", 10000, "+", 1},  // 0.5 rounds away from zero
		{"neutral, one loss", 10000, "-", -1},
		// A full window is the paper's ½ Σ r over the last 10.
		{"7 of 10", 4000, "+++-+-++-+", 2},
		{"all done", 20000, "++++++++++", 5},
		{"all lost", 4000, "----------", -5},
		// Only the last 10 count: three old losses have dropped out.
		{"window slides", 4000, "---++++++++++", 5},
		{"recent losses", 4000, "+++++++++++++-----", 0},
	}
	for _, tt := range tests {
		n := outcomes(tt.bench, tt.hist)
		if got := n.R(); got != tt.want {
			t.Errorf("%s: R = %d, want %d", tt.name, got, tt.want)
		}
		if r := n.R(); r < -K || r > K {
			t.Errorf("%s: R = %d outside [-%d, %d]", tt.name, r, K, K)
		}
	}
}

func TestWorkTimeMeans(t *testing.T) {
	n := &Node{}
	if _, ok := n.AvF(); ok {
		t.Error("avF known with no lost job")
	}
	if _, ok := n.AvS(); ok {
		t.Error("avS known with no finished job")
	}
	// Six losses: avF averages the last five (paper: t_f = 5).
	for _, w := range []float64{1000, 100, 200, 300, 400, 500} {
		n.Abort(w, 0)
	}
	for _, w := range []float64{60, 120} {
		n.Done(w, 0)
	}
	for _, p := range []float64{3600, 7200} {
		n.Up(p)
	}
	check := func(name string, got float64, ok bool, want float64) {
		t.Helper()
		if !ok || got != want {
			t.Errorf("%s = %v (%v), want %v", name, got, ok, want)
		}
	}
	f, ok := n.AvF()
	check("avF", f, ok, 300)
	s, ok := n.AvS()
	check("avS", s, ok, 90)
	u, ok := n.AvU()
	check("avU", u, ok, 5400)
	if len(n.Outcomes) != 8 || n.Completed != 2 || n.Lost != 6 {
		t.Errorf("history %v, %d done, %d lost; want 8 outcomes, 2, 6", n.Outcomes, n.Completed, n.Lost)
	}
}

// Paper 004's penalties: d_j from the finished jobs with an expected
// runtime, p_j from the lost ones.
func TestPenalties(t *testing.T) {
	n := &Node{}
	if _, ok := n.Delay(); ok {
		t.Error("delay known with no timed job")
	}
	n.Done(110, 100) // 10 s late
	n.Done(80, 100)  // 20 s early
	n.Done(50, 0)    // not timed
	n.Abort(30, 400)
	n.Abort(10, 0)
	if d, ok := n.Delay(); !ok || d != -5 {
		t.Errorf("delay %v (%v), want -5: (10 - 20) / 2", d, ok)
	}
	if n.LostExpected != 400 {
		t.Errorf("lost expected runtime %v, want 400", n.LostExpected)
	}
}

// The paper's example (Abb. 2 of paper 000): reliability -4, -2, 0, 3, 5
// gives the power classes 0, 4, 9, 16, 20.
func TestPowerClass(t *testing.T) {
	rs := []float64{-4, -2, 0, 3, 5}
	want := []int{0, 4, 9, 16, 20}
	for i, r := range rs {
		if got := PowerClass(r, -4, 5); got != want[i] {
			t.Errorf("nP(R=%v) = %d, want %d", r, got, want[i])
		}
	}
	tests := []struct {
		r, lo, hi float64
		want      int
	}{
		{3, 3, 3, Classes / 2}, // a pool of alike machines
		{-9, -4, 5, 0},         // clamped
		{9, -4, 5, Classes},    // clamped
		{0.5, 0, 1, 10},        // 10.5 → 10: floor(x + 0.5)
		{-1, -5, 5, 8},         // 4/10·20 = 8
	}
	for _, tt := range tests {
		if got := PowerClass(tt.r, tt.lo, tt.hi); got != tt.want {
			t.Errorf("PowerClass(%v, %v, %v) = %d, want %d", tt.r, tt.lo, tt.hi, got, tt.want)
		}
	}
}

func TestRuntimeIndexAndClass(t *testing.T) {
	min := func(m float64) float64 { return 60 * m }
	tests := []struct {
		seconds float64
		want    int
	}{
		{min(5), -8}, {min(14.99), -8}, {min(15), -5}, {min(59), -5}, {min(60), -3}, {min(179), -3},
		{min(180), 0}, {min(479), 0}, {min(480), 3}, {min(959), 3}, {min(960), 5}, {min(2159), 5},
		{min(2160), 8}, {min(1e6), 8},
	}
	for _, tt := range tests {
		if got := RuntimeIndex(tt.seconds); got != tt.want {
			t.Errorf("avTI(%v min) = %d, want %d", tt.seconds/60, got, tt.want)
		}
	}
	// Paper 000's example: avT 5, 40, 120 min give avTI -8, -5, -3 and, by
	// its formula, nTIME 0, 12, 20. (The paper prints nTIME_2 = 6, which
	// its formula does not give; its figure's ambiguous node classes 3 and
	// 13 are the midpoints of 0, 6, 20.)
	idx := []int{RuntimeIndex(min(5)), RuntimeIndex(min(40)), RuntimeIndex(min(120))}
	for i, want := range []int{0, 12, 20} {
		if got := TimeClass(idx[i], -8, -3); got != want {
			t.Errorf("nTIME of avTI %d = %d, want %d", idx[i], got, want)
		}
	}
	// The dissertation's example: 5, 40, 190 min: avTI -8, -5, 0, nTIME
	// 0, 8 (7.5 + 0.5), 20.
	if got := TimeClass(RuntimeIndex(min(40)), -8, 0); got != 8 {
		t.Errorf("nTIME of 40 min among 5..190 = %d, want 8", got)
	}
	if got := TimeClass(0, 0, 0); got != Classes/2 {
		t.Errorf("nTIME of alike types = %d, want %d", got, Classes/2)
	}
}

func TestMajorityInterval(t *testing.T) {
	tests := []struct {
		rs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 0},
		// Ten values: Q(0.1) is the 1st, Q(0.9) the 9th.
		{[]float64{5, -5, 0, 1, 2, 3, 4, -1, -2, -3}, 4 - -5},
		// Twenty: the 2nd and the 18th.
		{[]float64{-5, -5, -4, -4, -3, -3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5}, 3 - -5},
		{[]float64{2, 2, 2, 2}, 0},
	}
	for _, tt := range tests {
		if got := MajorityInterval(tt.rs); got != tt.want {
			t.Errorf("MajorityInterval(%v) = %v, want %v", tt.rs, got, tt.want)
		}
	}
}

func TestJobTypeRuntime(t *testing.T) {
	var jt JobType
	if _, ok := jt.Runtime(); ok {
		t.Error("a runtime with no finished job")
	}
	for i := range 12 {
		jt.Done(float64(100 * (i + 1)))
	}
	// The last ten: 300..1200, mean 750.
	if avT, ok := jt.Runtime(); !ok || avT != 750 {
		t.Errorf("avT = %v (%v), want 750", avT, ok)
	}
}

func TestPublish(t *testing.T) {
	ad := classad.NewAd()
	ad.Set(attr.KiteAvgFailedTime, nil) // stale: removed when unknown
	n := outcomes(4000, "++-")
	n.Up(600)
	n.Publish(ad)
	num := func(name string) (float64, bool) {
		if ad.Index(name) < 0 {
			return 0, false
		}
		v, err := classad.EvalAttr(ad, name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, ok := v.NumberValue()
		return f, ok
	}
	want := map[string]float64{
		attr.KiteBenchmarkIndex: 4, attr.KiteReliability: float64(n.R()), attr.KiteAvgFailedTime: 60,
		attr.KiteAvgSucceededTime: 60, attr.KiteAvgUptime: 600, attr.KiteJobsCompleted: 2, attr.KiteJobsAborted: 1,
		attr.KiteLostRuntime: 0,
	}
	for name, w := range want {
		if got, ok := num(name); !ok || got != w {
			t.Errorf("%s = %v (%v), want %v", name, got, ok, w)
		}
	}
	if _, ok := num(attr.KiteRuntimeDelay); ok {
		t.Errorf("%s published with no timed job", attr.KiteRuntimeDelay)
	}
	fresh := &Node{}
	fresh.Publish(ad)
	if _, ok := num(attr.KiteAvgFailedTime); ok {
		t.Errorf("%s kept for a machine with no lost job", attr.KiteAvgFailedTime)
	}
}

func TestPublishType(t *testing.T) {
	ad := classad.NewAd()
	var jt JobType
	PublishType(ad, &jt, 10, 0, 3)
	if ad.Index(attr.KiteTypeRuntime) >= 0 || ad.Index(attr.KiteTypeRuntimeIndex) >= 0 {
		t.Error("a runtime published before a job finished")
	}
	jt.Done(600)
	PublishType(ad, &jt, 10, 1, 2)
	for name, want := range map[string]string{attr.KiteTypeJobs: "10", attr.KiteTypeDone: "1",
		attr.KiteTypeRunning: "2", attr.KiteTypeRuntime: "6.000000000000000E+02", attr.KiteTypeRuntimeIndex: "-8"} {
		got := "<absent>"
		if e, ok := ad.Lookup(name); ok {
			got = classad.String(e)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}

func TestTypeOf(t *testing.T) {
	tests := []struct{ ad, want string }{
		{`[KiteJobType = "sim"; JobBatchName = "b"; Owner = "o"]`, "sim"},
		{`[JobBatchName = "b"; Owner = "o"]`, "b"},
		{`[Owner = "o"]`, "o"},
		{`[Owner = strcat("a", "b")]`, "ab"},
		{`[KiteJobType = 3; Owner = "o"]`, "o"},
		{`[Cmd = "x"]`, ""},
	}
	for _, tt := range tests {
		ad, err := classad.Parse(tt.ad)
		if err != nil {
			t.Fatal(err)
		}
		if got := TypeOf(ad); got != tt.want {
			t.Errorf("TypeOf(%s) = %q, want %q", tt.ad, got, tt.want)
		}
	}
}

// A record survives a JSON round trip, and a damaged one is refused.
func TestRecordRoundTrip(t *testing.T) {
	n := outcomes(9000, "++-+")
	n.Up(3600)
	n.Done(100, 90)
	data, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	var back Node
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Validate(); err != nil {
		t.Fatalf("a good record: %v", err)
	}
	if back.R() != n.R() || len(back.Succeeded) != len(n.Succeeded) || back.DelaySum != n.DelaySum {
		t.Errorf("round trip changed the record: %s", data)
	}
	bad := []struct{ json, want string }{
		{`{"outcomes":[1,0]}`, "bad outcome 0"},
		{`{"failed":[1,2,3,4,5,6]}`, "more than 5"},
		{`{"outcomes":[1,1,1,1,1,1,1,1,1,1,1]}`, "more than 10 outcomes"},
		{`{"succeeded":[-1]}`, "bad time -1"},
		{`{"completed":1,"timed":2}`, "bad job counts"},
		{`{"benchmark":-3}`, "bad benchmark"},
	}
	for _, b := range bad {
		var n Node
		if err := json.Unmarshal([]byte(b.json), &n); err != nil {
			t.Fatal(err)
		}
		if err := n.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Validate(%s) = %v, want %q", b.json, err, b.want)
		}
	}
}
