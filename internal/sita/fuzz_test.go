package sita

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzFit feeds odd size sets (all equal, one size, zeros, negatives,
// NaN, infinities, huge spans) to both estimators: each returns an error
// or a finite fit inside the sizes' range, never a panic or a NaN.
func FuzzFit(f *testing.F) {
	for _, seed := range [][]float64{
		{1, 2, 3, 100},
		{5},
		{7, 7, 7},
		{0, 1},
		{-1, 4},
		{math.NaN(), 1},
		{math.Inf(1), 2},
		{5e-324, 1e308},
		{10, 10, 10, 11},
		{12500, 25000, 50000, 3.2e6},
	} {
		f.Add(floats(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sizes := make([]float64, len(data)/8)
		for i := range sizes {
			sizes[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
		for _, m := range Methods {
			fit, err := FitSizes(m, sizes)
			if err != nil {
				continue
			}
			if err := fit.Validate(); err != nil {
				t.Fatalf("%s: invalid fit %v: %v", m, fit.Pareto, err)
			}
			if !finite(fit.LogLik) || !(fit.KS >= 0 && fit.KS <= 1) || !finite(fit.Mean) {
				t.Fatalf("%s: %+v", m, fit)
			}
		}
	})
}

func floats(fs []float64) []byte {
	b := make([]byte, 8*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(f))
	}
	return b
}

// FuzzBoundaries checks that any parameters either are refused or give
// n finite boundaries from k to p, in order, each carrying a finite load,
// that every size has an interval in 1..n, and that the host expressions
// generate and parse.
func FuzzBoundaries(f *testing.F) {
	f.Add(1e4, 1e7, 1.01, 4, 60000.0)
	f.Add(1.0, 2.0, 1.0, 1, 1.5)
	f.Add(1e-300, 1e300, 1e-9, 100, 0.0)
	f.Add(1.0, 1.0+1e-15, 1e6, 3, math.NaN())
	f.Add(0.0, -1.0, -1.0, -5, math.Inf(1))
	f.Fuzz(func(t *testing.T, k, p, a float64, n int, size float64) {
		d := Pareto{K: k, P: p, A: a}
		iv, err := d.Boundaries(n)
		if err != nil {
			return
		}
		if iv.X[0] != k || iv.X[n] != p {
			t.Fatalf("%v n=%d: ends %v", d, n, iv.X)
		}
		for i := 1; i <= n; i++ {
			if !finite(iv.X[i]) || iv.X[i] < iv.X[i-1] {
				t.Fatalf("%v n=%d: boundaries %v", d, n, iv.X)
			}
		}
		if i := iv.Of(size); i < 1 || i > n {
			t.Fatalf("%v n=%d: Of(%g) = %d", d, n, size, i)
		}
		if m := d.Mean(); !finite(m) || m < k*(1-1e-12) || m > p*(1+1e-12) {
			t.Fatalf("%v: mean %g", d, m)
		}
		if c := d.CDF(size); !(c >= 0 && c <= 1) && !math.IsNaN(size) {
			t.Fatalf("%v: CDF(%g) = %g", d, size, c)
		}
		if n <= 64 {
			cfg := HostConfig{Intervals: n, Interval: 1 + int(uint(n)/2)%n, Source: SourceConfig, K: k, P: p, A: a}
			if _, _, err := HostAd(cfg, "h", ""); err != nil {
				t.Fatalf("%+v: %v", cfg, err)
			}
		}
	})
}
