package sita

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func sample(d Pareto, n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	s := make([]float64, n)
	for i := range s {
		s[i] = d.Sample(r)
	}
	return s
}

// Both estimators recover a from 100 000 seeded sizes: maximum likelihood
// within 1 %, the method of moments (less efficient on heavy tails)
// within 2 %. k and p are the smallest and largest sizes: k within 0.1 %
// of the truth, p below it (far below for thin tails, where the largest
// sizes are rarely drawn).
func TestFitRecoversParameters(t *testing.T) {
	for i, a := range []float64{0.3, 0.6, 1, 1.01, 1.5, 2.5} {
		d := Pareto{K: 1e4, P: 1e7, A: a}
		sizes := sample(d, 100000, uint64(i+1))
		for _, tt := range []struct {
			method string
			tol    float64
		}{{Moments, 0.02}, {MLE, 0.01}} {
			f, err := FitSizes(tt.method, sizes)
			if err != nil {
				t.Fatalf("a=%v %s: %v", a, tt.method, err)
			}
			if !near(f.A, a, tt.tol) {
				t.Errorf("a=%v: %s gives a = %.4f, outside %g %%", a, tt.method, f.A, 100*tt.tol)
			}
			if !near(f.K, d.K, 0.001) || f.P > d.P || f.N != len(sizes) || f.Warning != "" {
				t.Errorf("a=%v %s: %+v", a, tt.method, f)
			}
			if f.KS > 0.01 {
				t.Errorf("a=%v %s: KS distance %.4f", a, tt.method, f.KS)
			}
		}
	}
}

// The method of moments matches the mean; maximum likelihood maximizes
// the likelihood, so its log-likelihood is at least that of any other a.
func TestFitProperties(t *testing.T) {
	sizes := sample(Pareto{K: 1, P: 1e4, A: 0.9}, 20000, 3)
	mo, err := FitMoments(sizes)
	if err != nil {
		t.Fatal(err)
	}
	if !near(mo.Pareto.Mean(), mo.Mean, 1e-9) {
		t.Errorf("moments: E(X) = %.12g, mean %.12g", mo.Pareto.Mean(), mo.Mean)
	}
	ml, err := FitMLE(sizes)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []float64{ml.A * 0.99, ml.A * 1.01, mo.A} {
		other := ml.Pareto.withA(a)
		if ll := logLik(other, sizes); ll > ml.LogLik+1e-6 {
			t.Errorf("a = %g has log-likelihood %.6f above the MLE's %.6f (a = %g)", a, ll, ml.LogLik, ml.A)
		}
	}
	if !near(logLik(ml.Pareto, sizes), ml.LogLik, 1e-9) {
		t.Errorf("LogLik %.9g, direct sum %.9g", ml.LogLik, logLik(ml.Pareto, sizes))
	}
}

func (d Pareto) withA(a float64) Pareto { d.A = a; return d }

// logLik sums ln f(x) directly.
func logLik(d Pareto, sizes []float64) float64 {
	s := 0.0
	for _, x := range sizes {
		s += math.Log(d.PDF(x))
	}
	return s
}

// Paper 003's 400 jobs fit with a below 1, and with the warning.
func TestFitPaperJobs(t *testing.T) {
	for _, m := range Methods {
		f, err := FitSizes(m, paperSizes())
		if err != nil {
			t.Fatal(err)
		}
		if f.K != 12500 || f.P != 3.2e6 || f.A < 0.8 || f.A > 0.9 || f.Mean != 94500 {
			t.Errorf("%s: %+v", m, f)
		}
		if !strings.Contains(f.Warning, "only 400 sizes: a fit from fewer than 1000 is unreliable") {
			t.Errorf("%s: warning %q", m, f.Warning)
		}
	}
}

func TestFitErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	uniform := make([]float64, 100)
	for i := range uniform {
		uniform[i] = float64(i + 1)
	}
	tests := []struct {
		name  string
		sizes []float64
		want  string
	}{
		{"none", nil, "no sizes to fit"},
		{"one", []float64{5}, "all 1 sizes are 5: a bounded Pareto needs sizes that differ"},
		{"equal", []float64{7, 7, 7}, "all 3 sizes are 7"},
		{"zero", []float64{1, 0, 3}, "size 2 is 0: sizes must be positive numbers"},
		{"negative", []float64{1, 2, -3}, "size 3 is -3"},
		{"nan", []float64{nan, 1}, "size 1 is NaN"},
		{"inf", []float64{1, inf}, "size 2 is +Inf"},
		{"span", []float64{5e-324, 1e308}, "too wide a range"},
		{"uniform", uniform, "not heavy-tailed"},
		{"light", []float64{1, 99, 100, 100}, "not heavy-tailed"},
	}
	for _, tt := range tests {
		for _, m := range Methods {
			_, err := FitSizes(m, tt.sizes)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s %s: %v, want %q", tt.name, m, err, tt.want)
			}
		}
	}
	var se *SizeError
	if _, err := FitMLE([]float64{1, -1}); !errors.As(err, &se) || se.Index != 1 {
		t.Errorf("SizeError: %v", err)
	}
	if _, err := FitSizes("median", []float64{1, 2}); err == nil || !strings.Contains(err.Error(), `unknown fit method "median"`) {
		t.Errorf("unknown method: %v", err)
	}
}

// Sizes nearly all at the minimum give a large a, or a clear error when a
// would be absurd; they never give NaN.
func TestFitNearlyAllAtMinimum(t *testing.T) {
	s := make([]float64, 1000)
	for i := range s {
		s[i] = 10
	}
	s[0] = 11
	for _, m := range Methods {
		f, err := FitSizes(m, s)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if !finite(f.A) || f.A < 10 {
			t.Errorf("%s: a = %g", m, f.A)
		}
	}
	s[0] = 10 * (1 + 1e-15)
	for _, m := range Methods {
		if f, err := FitSizes(m, s); err == nil && !finite(f.A) {
			t.Errorf("%s: a = %g", m, f.A)
		}
	}
}
