package sita

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// slots returns the n slot ads of a pool configured with cfg, slot i
// serving interval i, each with the SITA-E attributes and Requirements set
// to the clause, as the negotiator receives them.
func slots(t testing.TB, cfg HostConfig) []*classad.Ad {
	t.Helper()
	var ads []*classad.Ad
	for i := 1; i <= cfg.Intervals; i++ {
		c := cfg
		c.Interval = i
		attrs, req, err := HostAd(c, "host.example.org", "slot1@host.example.org")
		if err != nil {
			t.Fatalf("HostAd interval %d: %v", i, err)
		}
		ad := classad.NewAd()
		for _, a := range attrs {
			ad.Set(a.Name, a.Expr)
		}
		e, err := classad.ParseExpr(req)
		if err != nil {
			t.Fatalf("clause %q: %v", req, err)
		}
		ad.Set("Requirements", e)
		ads = append(ads, wire(t, ad))
	}
	return ads
}

// wire returns the ad after a trip through the JSON form the startd sends
// to the collector and the collector to the negotiator: literals travel
// exactly, other expressions as printed text.
func wire(t testing.TB, ad *classad.Ad) *classad.Ad {
	t.Helper()
	back, err := classad.ParseJSON(classad.AppendJSON(nil, ad, false))
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// job returns a job ad with a size (int64 or float64; nil for none) and,
// if d is not nil, the parameters as paper 003's attributes.
func job(size any, d *Pareto) *classad.Ad {
	ad := classad.NewAd()
	switch s := size.(type) {
	case int64:
		ad.Set(DefaultSizeAttr, ast.Int(s))
	case float64:
		ad.Set(DefaultSizeAttr, ast.Real(s))
	}
	if d != nil {
		ad.Set(JobMinSize, ast.Real(d.K))
		ad.Set(JobMaxSize, ast.Real(d.P))
		ad.Set(JobVariability, ast.Real(d.A))
	}
	return ad
}

// admitting returns the intervals whose slots admit the job.
func admitting(t testing.TB, slotAds []*classad.Ad, jobAd *classad.Ad) []int {
	t.Helper()
	var got []int
	for i, s := range slotAds {
		v, err := classad.EvalAttr(s, "Requirements", jobAd)
		if err != nil {
			t.Fatal(err)
		}
		if b, ok := v.BoolValue(); ok && b {
			got = append(got, i+1)
		}
	}
	return got
}

// bounds evaluates the slots' upper boundaries x(1)..x(n-1) for a job:
// the values the clauses compare sizes with.
func bounds(t testing.TB, slotAds []*classad.Ad, jobAd *classad.Ad) []float64 {
	t.Helper()
	var b []float64
	for _, s := range slotAds[:len(slotAds)-1] {
		v, _ := classad.EvalAttr(s, AttrUpperBound, jobAd)
		f, ok := v.NumberValue()
		if !ok {
			t.Fatalf("%s = %v", AttrUpperBound, v)
		}
		b = append(b, f)
	}
	return b
}

// testSizes are sizes around and between the boundaries b (x(1)..x(n-1))
// of d: each boundary, the floats next to it, k, p, outside [k, p], and
// random sizes spread on the log scale.
func testSizes(d Pareto, b []float64, r *rand.Rand) []float64 {
	s := []float64{d.K, d.P, d.K / 10, d.P * 10, math.Nextafter(d.K, 0), math.Nextafter(d.P, math.Inf(1)), 0, -1}
	for _, x := range b {
		s = append(s, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)), math.Round(x), math.Floor(x), math.Ceil(x))
	}
	lk, lp := math.Log(d.K/2), math.Log(d.P*2)
	for range 40 {
		s = append(s, math.Exp(lk+r.Float64()*(lp-lk)))
	}
	return s
}

// want is the interval of a size among boundaries b: 1 + how many are at
// or below it.
func want(b []float64, size float64) int {
	i := 1
	for _, x := range b {
		if size >= x {
			i++
		}
	}
	return i
}

// checkExactlyOne checks, with the real evaluator, that exactly one slot
// admits each test size, as a real and (when whole) as an integer, and
// that it is the slot of the size's interval. It returns the boundaries
// the slots compare with.
func checkExactlyOne(t *testing.T, cfg HostConfig, d Pareto, r *rand.Rand) []float64 {
	t.Helper()
	ads := slots(t, cfg)
	var params *Pareto
	if cfg.Source != SourceConfig {
		params = &d
	}
	b := bounds(t, ads, job(nil, params))
	for _, s := range testSizes(d, b, r) {
		sizes := []any{s}
		if s == math.Trunc(s) && math.Abs(s) < 1<<62 {
			sizes = append(sizes, int64(s))
		}
		for _, size := range sizes {
			got := admitting(t, ads, wire(t, job(size, params)))
			if len(got) != 1 || got[0] != want(b, s) {
				t.Errorf("%s %v n=%d: size %v (%T) admitted by %v, want [%d]; bounds %v",
					cfg.Source, d, cfg.Intervals, size, size, got, want(b, s), b)
				return b
			}
		}
	}
	return b
}

// Exactly one of the n slots admits every size, on a boundary, between
// them and outside [k, p], for a < 1, a = 1 and a > 1, with k, p, a from
// the configuration (literal boundaries) or from the job (boundaries
// computed in the expressions); and the boundaries are Boundaries' to the
// bit, so that Intervals.Of predicts where every job lands.
func TestClauseExactlyOne(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, d := range testDists {
		for _, n := range []int{1, 2, 4, 7} {
			iv, _ := d.Boundaries(n)
			for _, cfg := range []HostConfig{
				{Intervals: n, Source: SourceConfig, K: d.K, P: d.P, A: d.A},
				{Intervals: n, Source: SourceJob},
				{Intervals: n, Source: SourceJob, K: 1, P: 2, A: 3}, // fallback unused: the job has its own
			} {
				b := checkExactlyOne(t, cfg, d, r)
				for j, x := range b {
					// The same float64, literal or computed.
					if x != iv.X[j+1] {
						t.Errorf("%s %v n=%d: x%d = %.17g in the ad, %.17g in Go", cfg.Source, d, n, j+1, x, iv.X[j+1])
					}
				}
			}
		}
	}
}

// The same property for random parameters, including near-degenerate ones.
func TestClauseExactlyOneRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for range 150 {
		k := math.Exp(r.Float64()*20 - 5)
		p := k * math.Pow(10, r.Float64()*8+1e-6)
		a := []float64{r.Float64() * 5, 1, 1 + (r.Float64()-0.5)*4e-9, 0.01 + r.Float64()}[r.IntN(4)]
		if a <= 0 {
			a = 0.5
		}
		d := Pareto{K: k, P: p, A: a}
		n := 1 + r.IntN(9)
		iv, err := d.Boundaries(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []HostConfig{{Intervals: n, Source: SourceJob}, {Intervals: n, Source: SourceConfig, K: k, P: p, A: a}} {
			b := checkExactlyOne(t, cfg, d, r)
			if fmt.Sprint(b) != fmt.Sprint(iv.X[1:n]) {
				t.Errorf("%s %v n=%d: slot boundaries %v, Boundaries %v", cfg.Source, d, n, b, iv.X[1:n])
			}
		}
	}
}

// A job with k = p (all its sizes equal) still lands in exactly one slot.
func TestClauseDegenerateJob(t *testing.T) {
	ads := slots(t, HostConfig{Intervals: 4})
	for _, a := range []float64{0.5, 1, 2} {
		d := Pareto{K: 100, P: 100, A: a}
		for _, s := range []float64{1, 99, 100, 101, 1e9} {
			if got := admitting(t, ads, job(s, &d)); len(got) != 1 {
				t.Errorf("k = p = 100, a = %g, size %g: admitted by %v", a, s, got)
			}
		}
	}
}

// Jobs SITA-E does not size run anywhere; jobs with invalid parameters
// nowhere; the fallback parameters size jobs without their own.
func TestClauseUnsizedJobs(t *testing.T) {
	d := Pareto{K: 1e4, P: 1e7, A: 1.01}
	all := []int{1, 2, 3, 4}
	noSize := job(nil, &d)
	noParams := job(int64(60000), nil)
	partial := job(int64(60000), nil)
	partial.Set(JobMinSize, ast.Int(10000))
	tests := []struct {
		name string
		cfg  HostConfig
		job  *classad.Ad
		want []int
	}{
		{"job source, no size", HostConfig{Intervals: 4}, noSize, all},
		{"job source, no parameters", HostConfig{Intervals: 4}, noParams, all},
		{"job source, some parameters", HostConfig{Intervals: 4}, partial, all},
		{"config source, no size", HostConfig{Intervals: 4, Source: SourceConfig, K: 1e4, P: 1e7, A: 1.01}, noSize, all},
		{"config source, no parameters", HostConfig{Intervals: 4, Source: SourceConfig, K: 1e4, P: 1e7, A: 1.01}, noParams, []int{2}},
		{"fallback", HostConfig{Intervals: 4, K: 1e4, P: 1e7, A: 1.01}, noParams, []int{2}},
		{"fallback, some parameters", HostConfig{Intervals: 4, K: 1e4, P: 1e7, A: 1.01}, partial, []int{2}},
		{"fallback, own parameters", HostConfig{Intervals: 4, K: 1, P: 10, A: 1}, job(int64(60000), &d), []int{2}},
		{"k = 0", HostConfig{Intervals: 4}, job(int64(5), &Pareto{K: 0, P: 10, A: 1}), nil},
		{"p < k", HostConfig{Intervals: 4}, job(int64(5), &Pareto{K: 10, P: 1, A: 1}), nil},
		{"a = 0", HostConfig{Intervals: 4}, job(int64(5), &Pareto{K: 1, P: 10, A: 0}), nil},
		{"a < 0", HostConfig{Intervals: 4}, job(int64(5), &Pareto{K: 1, P: 10, A: -2}), nil},
		{"string size", HostConfig{Intervals: 4}, func() *classad.Ad { j := job(nil, &d); j.Set(DefaultSizeAttr, ast.Str("big")); return j }(), nil},
	}
	for _, tt := range tests {
		got := admitting(t, slots(t, tt.cfg), tt.job)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: admitted by %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Paper 003's own Requirements admit nothing when a > 1: the lower bound
// of each interval is above its upper bound (0.912 and 0.897 for the
// first). At a = 1 they admit every size on every host: every power is
// pow(x, 0) = 1, so each interval's test reads 1 >= 1 && 1 <= 1. Only
// for a < 1 do they make intervals. This is why HostAd writes its own.
func TestPaperExpressionFailsAboveOne(t *testing.T) {
	paperSlot := func(i, n int) *classad.Ad {
		ad, err := classad.ParseOld(fmt.Sprintf(`Powered_Size = pow(TARGET.ImageSize, 1 - TARGET.Pareto_variability)
Powered_Min_Size = pow(TARGET.Min_size_of_job, 1 - TARGET.Pareto_variability)
Powered_Max_Size = pow(TARGET.Max_size_of_job, 1 - TARGET.Pareto_variability)
Requirements = Powered_Size >= ((%[1]d-1)*Powered_Max_Size + (%[2]d-%[1]d+1)*Powered_Min_Size)/%[2]d && Powered_Size <= (%[1]d*Powered_Max_Size + (%[2]d-%[1]d)*Powered_Min_Size)/%[2]d`, i, n))
		if err != nil {
			t.Fatal(err)
		}
		return ad
	}
	var paper []*classad.Ad
	for i := 1; i <= 4; i++ {
		paper = append(paper, paperSlot(i, 4))
	}
	ours := slots(t, HostConfig{Intervals: 4})
	for _, a := range []float64{0.5, 1, 1.01} {
		d := Pareto{K: 1e4, P: 1e7, A: a}
		iv, _ := d.Boundaries(4)
		for _, pj := range paperJobs {
			s := pj.size
			j := job(s, &d)
			gotPaper, gotOurs := admitting(t, paper, j), admitting(t, ours, j)
			if a < 1 && len(gotPaper) != 1 || a == 1 && len(gotPaper) != 4 || a > 1 && len(gotPaper) != 0 {
				t.Errorf("a = %g, size %g: the paper's expression admits %v", a, s, gotPaper)
			}
			if len(gotOurs) != 1 || gotOurs[0] != iv.Of(s) {
				t.Errorf("a = %g, size %g: ours admits %v, want [%d]", a, s, gotOurs, iv.Of(s))
			}
		}
	}
}

func TestIntervalFor(t *testing.T) {
	cfg := HostConfig{Intervals: 4, Hosts: map[string]int{
		"slot2@l02.math.spbu.ru": 3,
		"l02.math.spbu.ru":       1,
		"L03":                    2,
	}}
	tests := []struct {
		host, slot string
		fallback   int
		want       int
		err        string
	}{
		{"l02.math.spbu.ru", "slot1@l02.math.spbu.ru", 0, 1, ""},
		{"l02.math.spbu.ru", "SLOT2@l02.math.spbu.ru", 0, 3, ""},
		{"l03.math.spbu.ru", "slot1@l03.math.spbu.ru", 0, 2, ""},
		{"l04.math.spbu.ru", "slot1@l04.math.spbu.ru", 4, 4, ""},
		{"l04.math.spbu.ru", "slot1@l04.math.spbu.ru", 0, 0, `neither slot "slot1@l04.math.spbu.ru" nor host "l04.math.spbu.ru" is in the SITA-E hosts table`},
	}
	for _, tt := range tests {
		c := cfg
		c.Interval = tt.fallback
		got, err := c.IntervalFor(tt.host, tt.slot)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("IntervalFor(%q, %q) = %d, %v; want %d, %q", tt.host, tt.slot, got, err, tt.want, tt.err)
		}
	}
}

func TestHostConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  HostConfig
		want string
	}{
		{HostConfig{}, ""},
		{HostConfig{Intervals: 0, Interval: 9, Source: "bogus"}, ""}, // off: nothing is checked
		{HostConfig{Intervals: 4, Interval: 2}, ""},
		{HostConfig{Intervals: 4, Source: SourceConfig, K: 1, P: 2, A: 1, Interval: 4}, ""},
		{HostConfig{Intervals: -1}, "intervals = -1: must be between 0 (off) and 65536"},
		{HostConfig{Intervals: 4, Interval: 5}, "interval = 5: must be between 1 and intervals = 4"},
		{HostConfig{Intervals: 4, Interval: -1}, "interval = -1"},
		{HostConfig{Intervals: 4, Hosts: map[string]int{"h": 0}}, `hosts: "h" = 0: the interval must be between 1 and intervals = 4`},
		{HostConfig{Intervals: 4, Attribute: "Image Size"}, `attribute: "Image Size" is not a ClassAd attribute name`},
		{HostConfig{Intervals: 4, Attribute: "undefined"}, `attribute: "undefined" is a ClassAd keyword`},
		{HostConfig{Intervals: 4, Source: "jobs"}, `source = "jobs": must be "job" or "config"`},
		{HostConfig{Intervals: 4, Source: SourceConfig}, "source = config: k = 0: the smallest size must be a positive number"},
		{HostConfig{Intervals: 4, Source: SourceConfig, K: 5, P: 2, A: 1}, "source = config: p = 2: the largest size must be a number above k = 5"},
		{HostConfig{Intervals: 4, K: 1, P: 2}, "source = job with fallback parameters: a = 0"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tt.cfg, err, tt.want)
		}
	}
	if attrs, req, err := HostAd(HostConfig{Intervals: 0, Interval: 3}, "h", ""); attrs != nil || req != "" || err != nil {
		t.Errorf("SITA-E off: %v %q %v", attrs, req, err)
	}
	if _, _, err := HostAd(HostConfig{Intervals: 4, Interval: 7}, "h", ""); err == nil {
		t.Error("HostAd accepted an invalid configuration")
	}
	if _, _, err := HostAd(HostConfig{Intervals: 4, Hosts: map[string]int{"x": 1}}, "h", ""); err == nil {
		t.Error("HostAd accepted a host missing from the table")
	}
}

// The generated attributes and clauses, as a slot ad prints them:
// testdata/hostad.golden. UPDATE=1 rewrites it. (Literal boundaries, whose
// last digits depend on the platform's math, are checked by
// TestHostAdConfigSource.)
func TestHostAdGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range []struct {
		title string
		cfg   HostConfig
	}{
		{"source = job, interval 1 of 4", HostConfig{Intervals: 4, Interval: 1}},
		{"source = job, interval 3 of 4", HostConfig{Intervals: 4, Interval: 3}},
		{"source = job with fallback, interval 4 of 4, size attribute JobSize", HostConfig{Intervals: 4, Interval: 4, K: 1e4, P: 1e7, A: 1.01, Attribute: "JobSize"}},
		{"one interval", HostConfig{Intervals: 1, Interval: 1}},
	} {
		attrs, req, err := HostAd(c.cfg, "host", "")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "# %s\n", c.title)
		for _, a := range attrs {
			b.WriteString(a.String() + "\n")
		}
		fmt.Fprintf(&b, "requirements clause: %s\n\n", req)
	}
	golden := filepath.Join("testdata", "hostad.golden")
	if os.Getenv("UPDATE") != "" {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("HostAd output differs from %s (UPDATE=1 rewrites it):\n%s", golden, b.String())
	}
}

// With source = config the boundaries are literals, exactly Boundaries':
// paper 003's for interval 2 of 4.
func TestHostAdConfigSource(t *testing.T) {
	attrs, req, err := HostAd(HostConfig{Intervals: 4, Interval: 2, Source: SourceConfig, K: 1e4, P: 1e7, A: 1.01}, "h", "")
	if err != nil {
		t.Fatal(err)
	}
	paper, _ := Pareto{K: 1e4, P: 1e7, A: 1.01}.Boundaries(4)
	if fmt.Sprintf("%.2f %.2f", paper.X[1], paper.X[2]) != "53801.76 297920.97" {
		t.Fatalf("boundaries %v", paper.X)
	}
	want := []struct {
		name  string
		value any
	}{
		{AttrSource, "config"}, {AttrSizeAttr, "ImageSize"}, {AttrIntervals, int64(4)}, {AttrInterval, int64(2)},
		{AttrMinSize, 1e4}, {AttrMaxSize, 1e7}, {AttrVariability, 1.01},
		{AttrLowerBound, paper.X[1]}, {AttrUpperBound, paper.X[2]},
	}
	if len(attrs) != len(want) {
		t.Fatalf("attributes %v", attrs)
	}
	for i, w := range want {
		l, ok := attrs[i].Expr.(*ast.Literal)
		if attrs[i].Name != w.name || !ok {
			t.Errorf("attribute %d: %v, want %s", i, attrs[i], w.name)
			continue
		}
		switch v := w.value.(type) {
		case string:
			ok = l.Kind == ast.StringLit && l.Str == v
		case int64:
			ok = l.Kind == ast.IntLit && l.Int == v
		case float64:
			ok = l.Kind == ast.RealLit && l.Real == v
		}
		if !ok {
			t.Errorf("%v, want %v", attrs[i], w.value)
		}
	}
	if want := "(TARGET.ImageSize is undefined || TARGET.ImageSize >= MY.SitaLowerBound && TARGET.ImageSize < MY.SitaUpperBound)"; req != want {
		t.Errorf("clause %s\nwant   %s", req, want)
	}
}
