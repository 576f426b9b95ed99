package sita

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// simpson integrates g over [lo, hi] with Simpson's rule on the log scale
// (t = ln x), which suits the power-law integrands here: it is the
// independent check of the closed forms.
func simpson(g func(x float64) float64, lo, hi float64) float64 {
	const panels = 20000
	a, b := math.Log(lo), math.Log(hi)
	h := (b - a) / panels
	// Clamped, so that rounding of exp(ln x) never steps outside [lo, hi].
	f := func(t float64) float64 { x := min(max(math.Exp(t), lo), hi); return g(x) * x }
	sum := f(a) + f(b)
	for i := 1; i < panels; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(a+float64(i)*h)
	}
	return sum * h / 3
}

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// The distributions the tests cover: a < 1, a = 1 (exactly and within the
// tolerance), a just outside the tolerance, the paper's 1.01, a > 1.
var testDists = []Pareto{
	{K: 1e4, P: 1e7, A: 0.5},
	{K: 1e4, P: 1e7, A: 1},
	{K: 1e4, P: 1e7, A: 1 + 1e-10},
	{K: 1e4, P: 1e7, A: 1 - 1e-7},
	{K: 1e4, P: 1e7, A: 1.01},
	{K: 1, P: 1e3, A: 1.5},
	{K: 3, P: 50, A: 2.7},
	{K: 1e3, P: 1e10, A: 0.2},
	{K: 0.5, P: 2, A: 7},
}

func TestCDFIsIntegralOfPDF(t *testing.T) {
	for _, d := range testDists {
		for _, q := range []float64{0.001, 0.1, 0.5, 0.9, 1} {
			x := d.Quantile(q)
			got := simpson(d.PDF, d.K, x)
			if !near(got, d.CDF(x), 1e-6) && math.Abs(got-d.CDF(x)) > 1e-9 {
				t.Errorf("%v: integral of PDF to %g = %.10g, CDF = %.10g", d, x, got, d.CDF(x))
			}
		}
		if d.CDF(d.K/2) != 0 || d.CDF(d.K) != 0 || d.CDF(d.P) != 1 || d.CDF(2*d.P) != 1 {
			t.Errorf("%v: CDF outside (k, p) is not 0 / 1", d)
		}
		if d.PDF(d.K/2) != 0 || d.PDF(2*d.P) != 0 {
			t.Errorf("%v: PDF outside [k, p] is not 0", d)
		}
	}
}

func TestQuantileInvertsCDF(t *testing.T) {
	for _, d := range testDists {
		for _, u := range []float64{0, 1e-9, 0.25, 0.5, 0.75, 0.999, 1} {
			x := d.Quantile(u)
			if x < d.K || x > d.P {
				t.Errorf("%v: Quantile(%g) = %g outside [k, p]", d, u, x)
			}
			if got := d.CDF(x); math.Abs(got-u) > 1e-9 {
				t.Errorf("%v: CDF(Quantile(%g)) = %.12g", d, u, got)
			}
		}
		if d.Quantile(0) != d.K || d.Quantile(1) != d.P {
			t.Errorf("%v: Quantile(0), Quantile(1) = %g, %g", d, d.Quantile(0), d.Quantile(1))
		}
	}
}

// Mean agrees with numeric integration and with the formulas of
// algorithms.md §1 written as they stand.
func TestMean(t *testing.T) {
	for _, d := range testDists {
		num := simpson(func(x float64) float64 { return x * d.PDF(x) }, d.K, d.P)
		if !near(d.Mean(), num, 1e-6) {
			t.Errorf("%v: Mean = %.10g, integral = %.10g", d, d.Mean(), num)
		}
		if got := d.Load(d.K, d.P); !near(got, d.Mean(), 1e-12) {
			t.Errorf("%v: Load(k, p) = %.12g, Mean = %.12g", d, got, d.Mean())
		}
		k, p, a := d.K, d.P, d.A
		var formula float64
		if isOne(a) {
			formula = k * p * math.Log(p/k) / (p - k)
		} else {
			formula = k * p * (math.Pow(p, a-1) - math.Pow(k, a-1)) / (math.Pow(p, a) - math.Pow(k, a)) * a / (a - 1)
		}
		// The textbook form loses digits near a = 1; the tolerance allows it.
		if !near(d.Mean(), formula, 1e-5) {
			t.Errorf("%v: Mean = %.10g, formula = %.10g", d, d.Mean(), formula)
		}
	}
}

// Across a = 1 the mean is continuous: the two forms meet.
func TestMeanContinuousAtOne(t *testing.T) {
	at := Pareto{K: 1e4, P: 1e7, A: 1}.Mean()
	for _, a := range []float64{1 - 1e-6, 1 - 2e-9, 1 + 2e-9, 1 + 1e-6} {
		if got := (Pareto{K: 1e4, P: 1e7, A: a}).Mean(); !near(got, at, 1e-5) {
			t.Errorf("Mean at a = %v is %.10g, at 1 %.10g", a, got, at)
		}
	}
}

func TestSampleMean(t *testing.T) {
	d := Pareto{K: 1, P: 100, A: 1.5}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	sum := 0.0
	for range n {
		x := d.Sample(r)
		if x < d.K || x > d.P {
			t.Fatalf("sample %g outside [k, p]", x)
		}
		sum += x
	}
	if got := sum / n; !near(got, d.Mean(), 0.01) {
		t.Errorf("sample mean %g, Mean %g", got, d.Mean())
	}
}

func TestValidate(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		d    Pareto
		want string
	}{
		{Pareto{K: 1, P: 2, A: 1}, ""},
		{Pareto{K: 0, P: 2, A: 1}, "smallest size must be a positive number"},
		{Pareto{K: -1, P: 2, A: 1}, "smallest size must be a positive number"},
		{Pareto{K: math.NaN(), P: 2, A: 1}, "smallest size must be a positive number"},
		{Pareto{K: 2, P: 2, A: 1}, "largest size must be a number above k"},
		{Pareto{K: 2, P: inf, A: 1}, "largest size must be a number above k"},
		{Pareto{K: 5e-324, P: 1e308, A: 1}, "too large"},
		{Pareto{K: 1, P: 2, A: 0}, "variability must be a positive number"},
		{Pareto{K: 1, P: 2, A: -1}, "variability must be a positive number"},
		{Pareto{K: 1, P: 2, A: inf}, "variability must be a positive number"},
	}
	for _, tt := range tests {
		_, err := New(tt.d.K, tt.d.P, tt.d.A)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("New(%v): %v, want %q", tt.d, err, tt.want)
		}
	}
}

// Harchol-Balter, Crovella and Murta hold p = 1e10 and the mean at 3000
// while a varies: WithMean finds the k that gives that mean, and refuses
// a mean outside (0, p).
func TestWithMean(t *testing.T) {
	for _, a := range []float64{0.5, 1, 1.1, 1.5, 1.9, 3} {
		d, err := WithMean(3000, 1e10, a)
		if err != nil {
			t.Fatalf("a = %g: %v", a, err)
		}
		if got := d.Mean(); math.Abs(got-3000) > 3000*1e-9 {
			t.Errorf("a = %g: k = %g gives mean %g, want 3000", a, d.K, got)
		}
		if !(d.K > 0 && d.K < 3000) {
			t.Errorf("a = %g: k = %g, want between 0 and the mean", a, d.K)
		}
	}
	for _, bad := range [][3]float64{{0, 1e10, 1.5}, {1e10, 1e10, 1.5}, {3000, 1e10, 0}, {3000, -1, 1.5}, {math.NaN(), 1e10, 1.5}} {
		if _, err := WithMean(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("WithMean(%g, %g, %g): want an error", bad[0], bad[1], bad[2])
		}
	}
}
