package sita

import (
	"fmt"
	"math"
	"testing"
)

// paperJobs is the 400-job set of paper 003: size (bytes) and count.
var paperJobs = []struct {
	size  float64
	count int
}{
	{12500, 80}, {25000, 160}, {50000, 80}, {100000, 40},
	{200000, 20}, {400000, 12}, {800000, 4}, {3200000, 4},
}

func paperSizes() []float64 {
	var s []float64
	for _, j := range paperJobs {
		for range j.count {
			s = append(s, j.size)
		}
	}
	return s
}

// Paper 003's worked example: k = 1e4, p = 1e7, a = 1.01, n = 4.
func TestPaperBoundaries(t *testing.T) {
	iv, err := Pareto{K: 1e4, P: 1e7, A: 1.01}.Boundaries(4)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10000.00", "53801.76", "297920.97", "1699610.08", "10000000.00"}
	for i, x := range iv.X {
		if got := fmt.Sprintf("%.2f", x); got != want[i] {
			t.Errorf("x%d = %s, want %s", i, got, want[i])
		}
	}
}

// Paper 003's 400 jobs fall into the four intervals with loads 9.0e6,
// 8.0e6, 8.0e6 and 12.8e6: M = 1.675e6, 17.7 % of the mean 9.45e6.
func TestPaperLoads(t *testing.T) {
	iv, _ := Pareto{K: 1e4, P: 1e7, A: 1.01}.Boundaries(4)
	loads, counts := iv.Loads(paperSizes())
	wantLoads := []float64{9.0e6, 8.0e6, 8.0e6, 12.8e6}
	wantCounts := []int{320, 60, 16, 4}
	for i := range loads {
		if loads[i] != wantLoads[i] || counts[i] != wantCounts[i] {
			t.Errorf("interval %d: load %g of %d jobs, want %g of %d", i+1, loads[i], counts[i], wantLoads[i], wantCounts[i])
		}
	}
	m, mean, pct := Imbalance(loads)
	if m != 1.675e6 || mean != 9.45e6 || fmt.Sprintf("%.1f", pct) != "17.7" {
		t.Errorf("M = %g, mean %g, %.3f %%; want 1.675e6, 9.45e6, 17.7 %%", m, mean, pct)
	}
}

// Every interval carries 1/n of the mean, checked by numeric integration
// of x f(x), for a < 1, a = 1 and a > 1.
func TestEqualLoad(t *testing.T) {
	for _, d := range testDists {
		for _, n := range []int{1, 2, 3, 4, 8} {
			iv, err := d.Boundaries(n)
			if err != nil {
				t.Fatal(err)
			}
			if iv.X[0] != d.K || iv.X[n] != d.P {
				t.Errorf("%v n=%d: ends %g, %g", d, n, iv.X[0], iv.X[n])
			}
			total := simpson(func(x float64) float64 { return x * d.PDF(x) }, d.K, d.P)
			loads, probs := d.ExpectedLoads(iv)
			sumP := 0.0
			for i := 1; i <= n; i++ {
				num := simpson(func(x float64) float64 { return x * d.PDF(x) }, iv.Lower(i), iv.Upper(i))
				if !near(num, total/float64(n), 1e-6) {
					t.Errorf("%v n=%d: interval %d integrates to %.10g, want %.10g", d, n, i, num, total/float64(n))
				}
				// Near a = 1 the boundaries lose digits (see Boundaries).
				tol := 1e-9
				if math.Abs(d.A-1) < 1e-4 {
					tol = 1e-7
				}
				if !near(loads[i-1], d.Mean()/float64(n), tol) {
					t.Errorf("%v n=%d: ExpectedLoads[%d] = %.10g, want %.10g", d, n, i, loads[i-1], d.Mean()/float64(n))
				}
				sumP += probs[i-1]
			}
			if math.Abs(sumP-1) > 1e-12 {
				t.Errorf("%v n=%d: probabilities sum to %.15g", d, n, sumP)
			}
		}
	}
}

// The boundaries agree with the formulas of algorithms.md §1 as written.
func TestBoundaryFormulas(t *testing.T) {
	for _, d := range testDists {
		const n = 5
		iv, _ := d.Boundaries(n)
		for i := 0; i <= n; i++ {
			f := float64(i) / n
			var want float64
			if isOne(d.A) {
				want = d.K * math.Pow(d.P/d.K, f)
			} else {
				c := 1 - d.A
				want = math.Pow(f*math.Pow(d.P, c)+(1-f)*math.Pow(d.K, c), 1/c)
			}
			// The textbook form loses digits as a nears 1.
			if !near(iv.X[i], want, 1e-6) {
				t.Errorf("%v: x%d = %.12g, formula %.12g", d, i, iv.X[i], want)
			}
		}
	}
}

// Extreme parameters give finite, increasing boundaries.
func TestBoundariesExtreme(t *testing.T) {
	for _, d := range []Pareto{
		{K: 1, P: 1e300, A: 300},
		{K: 1e-300, P: 1e-10, A: 0.001},
		{K: 1, P: 1 + 1e-12, A: 1.5},
		{K: 1, P: 1e300, A: 1e-12},
		{K: 1e4, P: 1e7, A: 1 + 1.1e-9},
		{K: 1e4, P: 1e7, A: 1e9},
	} {
		iv, err := d.Boundaries(16)
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		for i := 1; i < len(iv.X); i++ {
			if !finite(iv.X[i]) || iv.X[i] < iv.X[i-1] {
				t.Errorf("%v: x = %v", d, iv.X)
				break
			}
		}
	}
	if _, err := (Pareto{K: 1, P: 2, A: 1}).Boundaries(0); err == nil {
		t.Error("n = 0 accepted")
	}
	if _, err := (Pareto{K: 1, P: 1, A: 1}).Boundaries(2); err == nil {
		t.Error("k = p accepted")
	}
}

func TestOf(t *testing.T) {
	iv := Intervals{X: []float64{10, 20, 40, 80}}
	tests := []struct {
		size float64
		want int
	}{
		{-1, 1}, {0, 1}, {9.99, 1}, {10, 1}, {19.999, 1},
		{20, 2}, {39.999, 2}, {40, 3}, {79.9, 3}, {80, 3}, {1e9, 3},
		{math.Inf(-1), 1}, {math.Inf(1), 3},
	}
	for _, tt := range tests {
		if got := iv.Of(tt.size); got != tt.want {
			t.Errorf("Of(%g) = %d, want %d", tt.size, got, tt.want)
		}
	}
	one := Intervals{X: []float64{10, 80}}
	for _, s := range []float64{1, 10, 50, 80, 100} {
		if one.Of(s) != 1 {
			t.Errorf("one interval: Of(%g) = %d", s, one.Of(s))
		}
	}
}

func TestImbalance(t *testing.T) {
	tests := []struct {
		loads         []float64
		m, mean, perc float64
	}{
		{nil, 0, 0, 0},
		{[]float64{5, 5, 5}, 0, 5, 0},
		{[]float64{0, 0}, 0, 0, 0},
		{[]float64{10, 0}, 5, 5, 100},
		// Everything on one of four hosts: M is 150 % of the mean.
		{[]float64{0, 0, 0, 8}, 3, 2, 150},
	}
	for _, tt := range tests {
		m, mean, pct := Imbalance(tt.loads)
		if m != tt.m || mean != tt.mean || pct != tt.perc {
			t.Errorf("Imbalance(%v) = %g, %g, %g; want %g, %g, %g", tt.loads, m, mean, pct, tt.m, tt.mean, tt.perc)
		}
	}
}
