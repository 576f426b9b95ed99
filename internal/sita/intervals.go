package sita

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/kite-sched/kite/classad/ast"
)

// MaxIntervals bounds the number of intervals n: each host's Requirements
// holds two of the n+1 boundaries, but tools print tables of n rows.
const MaxIntervals = 1 << 16

// Intervals are the size intervals of SITA-E: boundaries
// k = X[0] < X[1] < ... < X[n] = p. Interval i (1-based) is
// [X[i-1], X[i]), the last one closed; sizes below k belong to the first
// interval and sizes above p to the last, so every size has exactly one.
type Intervals struct {
	X []float64
}

// Boundaries returns the n equal-load intervals of d: each carries the
// same expected load, the integral of x dF(x) over it being 1/n of the
// mean. For a != 1
//
//	x_i = ( i/n p^(1-a) + (n-i)/n k^(1-a) )^(1/(1-a))
//
// and for a = 1 (|a-1| < OneTolerance) x_i = k (p/k)^(i/n).
//
// They are computed, with r = p/k and f = i/n, as
//
//	a = 1:  k * pow(r, f)
//	a != 1: k * pow(1 + f * (pow(r, 1-a) - 1), 1/(1-a))
//
// (the formula divided through by k^(1-a), so that no power of k or p
// alone overflows), with f as a ClassAd prints it (16 digits), which are
// the very operations the expressions of HostAd perform: a slot whose boundaries come from a job's parameters
// compares the job's size with the same float64 values, and Of places
// every size, boundaries included, where the slots do. The relative error
// is below 1e-7 for a within 1e-8 of 1, and near 1e-15 elsewhere.
func (d Pareto) Boundaries(n int) (Intervals, error) {
	if err := d.Validate(); err != nil {
		return Intervals{}, err
	}
	if n < 1 || n > MaxIntervals {
		return Intervals{}, fmt.Errorf("n = %d: the number of intervals must be between 1 and %d", n, MaxIntervals)
	}
	x := make([]float64, n+1)
	x[0], x[n] = d.K, d.P
	for i := 1; i < n; i++ {
		x[i] = min(max(boundary(d.K, d.P, d.A, fraction(i, n)), x[i-1]), d.P)
	}
	return Intervals{X: x}, nil
}

// fraction returns j/n as the ClassAd printer writes it (%.15E), so that
// an expression holding it means the same after a trip through text (the
// wire's JSON form carries expressions as text).
func fraction(j, n int) float64 {
	var buf [32]byte
	f, _ := strconv.ParseFloat(string(ast.AppendReal(buf[:0], float64(j)/float64(n))), 64)
	return f
}

// boundary is x at the fraction f of the load, as boundaryExpr writes it.
func boundary(k, p, a, f float64) float64 {
	r := p / k
	if isOne(a) {
		return k * math.Pow(r, f)
	}
	return k * math.Pow(1+f*(math.Pow(r, 1-a)-1), 1.0/(1-a))
}

// N returns the number of intervals.
func (iv Intervals) N() int { return len(iv.X) - 1 }

// Lower returns the lower boundary of interval i (1-based), X[i-1].
func (iv Intervals) Lower(i int) float64 { return iv.X[i-1] }

// Upper returns the upper boundary of interval i (1-based), X[i].
func (iv Intervals) Upper(i int) float64 { return iv.X[i] }

// Of returns the interval (1-based) a size belongs to: i with
// X[i-1] <= size < X[i], the last interval closed, sizes below X[0] in the
// first and sizes above X[n] in the last. NaN, which the generated
// Requirements admit nowhere, is put in the first.
func (iv Intervals) Of(size float64) int {
	inner := iv.X[1 : len(iv.X)-1]
	// The number of inner boundaries at or below size.
	return 1 + sort.Search(len(inner), func(j int) bool { return !(inner[j] <= size) })
}

// Loads returns the total size that falls into each interval (index i-1
// for interval i), and how many sizes fall into each.
func (iv Intervals) Loads(sizes []float64) (loads []float64, counts []int) {
	loads = make([]float64, iv.N())
	counts = make([]int, iv.N())
	for _, s := range sizes {
		i := iv.Of(s) - 1
		loads[i] += s
		counts[i]++
	}
	return loads, counts
}

// ExpectedLoads returns, for each interval, the expected size one job of
// d carries there (the integral of x dF(x) over the interval; they sum to
// the mean) and the probability that a job falls there.
func (d Pareto) ExpectedLoads(iv Intervals) (loads, probs []float64) {
	n := iv.N()
	loads = make([]float64, n)
	probs = make([]float64, n)
	for i := 1; i <= n; i++ {
		lo, hi := iv.Lower(i), iv.Upper(i)
		if i == 1 {
			lo = math.Inf(-1)
		}
		if i == n {
			hi = math.Inf(1)
		}
		loads[i-1] = d.Load(lo, hi)
		probs[i-1] = d.CDF(hi) - d.CDF(lo)
	}
	return loads, probs
}

// Imbalance returns the objective M of SITA-E for the loads L_i of n
// hosts (or host groups): the mean absolute deviation from the mean load,
//
//	M = (1/n) sum_i | (1/n) sum_j L_j - L_i |,
//
// with the mean load, and M as a percentage of the mean (0 when the mean
// is 0).
func Imbalance(loads []float64) (m, mean, percent float64) {
	if len(loads) == 0 {
		return 0, 0, 0
	}
	n := float64(len(loads))
	for _, l := range loads {
		mean += l
	}
	mean /= n
	for _, l := range loads {
		m += math.Abs(mean - l)
	}
	m /= n
	if mean != 0 {
		percent = 100 * m / mean
	}
	return m, mean, percent
}
