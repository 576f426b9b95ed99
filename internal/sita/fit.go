package sita

import (
	"fmt"
	"math"
	"slices"
)

// Estimators of B(k, p, a) from a set of sizes.
const (
	Moments = "moments" // the method of moments, as paper 003
	MLE     = "mle"     // maximum likelihood
)

// Methods lists the estimators, in the order tools print them.
var Methods = []string{Moments, MLE}

// MinReliable is how many sizes a fit needs to be trusted: paper 003
// cites more than 1000.
const MinReliable = 1000

// Fit is B(k, p, a) estimated from a set of sizes, with measures of how
// well it fits them.
type Fit struct {
	Method string  // Moments or MLE
	Pareto         // the estimate
	N      int     // how many sizes
	Mean   float64 // their mean
	// LogLik is the log-likelihood of the sizes under the estimate; the
	// larger, the better (MLE maximizes it).
	LogLik float64
	// KS is the Kolmogorov-Smirnov distance between the sizes' empirical
	// CDF and the estimate's: the largest gap, between 0 and 1.
	KS float64
	// Warning is non-empty when the fit is unreliable (too few sizes).
	Warning string
}

// SizeError is a size that cannot be fitted: not a number, infinite, zero
// or negative. Index is its place in the input, from 0.
type SizeError struct {
	Index int
	Value float64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("size %d is %g: sizes must be positive numbers", e.Index+1, e.Value)
}

// FitSizes estimates B(k, p, a) from sizes with the named method.
func FitSizes(method string, sizes []float64) (Fit, error) {
	switch method {
	case Moments:
		return FitMoments(sizes)
	case MLE:
		return FitMLE(sizes)
	}
	return Fit{}, fmt.Errorf("unknown fit method %q (use %s or %s)", method, Moments, MLE)
}

// FitMoments estimates B(k, p, a) as paper 003 does: k is the smallest
// size, p the largest, and a solves E(X) = mean of the sizes. E(X)
// decreases in a, from (p-k)/ln(p/k) as a tends to 0 down to k as a
// grows, so a is found by bisection (on ln a) and exists when the mean
// lies between those limits. It may come out below 1.
func FitMoments(sizes []float64) (Fit, error) {
	st, err := summarize(sizes)
	if err != nil {
		return Fit{}, err
	}
	r := st.max / st.min
	target := st.mean / st.min
	mean := func(a float64) float64 { return Pareto{K: 1, P: r, A: a}.Mean() }
	if limit := (r - 1) / math.Log(r); target >= limit*(1-1e-12) {
		return Fit{}, fmt.Errorf("the sizes' mean %.6g is at or above (p-k)/ln(p/k) = %.6g, the largest mean a bounded Pareto on [%g, %g] can have: they are not heavy-tailed, and no a > 0 fits",
			st.mean, limit*st.min, st.min, st.max)
	}
	a, err := solveDecreasing(mean, target)
	if err != nil {
		return Fit{}, fmt.Errorf("method of moments: %w", err)
	}
	return st.fit(Moments, a, sizes), nil
}

// FitMLE estimates B(k, p, a) by maximum likelihood (Aban, Meerschaert
// and Panorska, "Parameter estimation for the truncated Pareto
// distribution", JASA 2006): the likelihood grows with k and falls with
// p, so k is the smallest size and p the largest; a solves the score
// equation
//
//	1/a - ln(p/k) / ((p/k)^a - 1) = mean of ln(x/k),
//
// whose left side decreases from ln(p/k)/2 (as a tends to 0) to 0, by
// bisection on ln a. A solution exists when the mean log-size lies below
// the midpoint of ln k and ln p.
func FitMLE(sizes []float64) (Fit, error) {
	st, err := summarize(sizes)
	if err != nil {
		return Fit{}, err
	}
	l := math.Log(st.max / st.min)
	if st.meanLog >= l/2*(1-1e-12) {
		return Fit{}, fmt.Errorf("the sizes' mean log %.6g is at or above the midpoint of ln k and ln p (%.6g): they are not heavy-tailed, and no a > 0 fits",
			st.meanLog+math.Log(st.min), math.Log(st.min)+l/2)
	}
	a, err := solveDecreasing(func(a float64) float64 { return meanLog(a, l) }, st.meanLog)
	if err != nil {
		return Fit{}, fmt.Errorf("maximum likelihood: %w", err)
	}
	return st.fit(MLE, a, sizes), nil
}

// meanLog is E(ln(X/k)) under B(k, p, a) with ln(p/k) = l:
// 1/a - l/(e^(a l) - 1), by its series when a l is small.
func meanLog(a, l float64) float64 {
	if x := a * l; x < 1e-4 {
		return l/2 - x*l/12 + x*x*x*l/720
	}
	return 1/a - l/math.Expm1(a*l)
}

// stats summarizes a set of sizes.
type stats struct {
	n        int
	min, max float64
	mean     float64
	meanLog  float64 // mean of ln(x/min)
}

// summarize checks the sizes and summarizes them.
func summarize(sizes []float64) (stats, error) {
	if len(sizes) == 0 {
		return stats{}, fmt.Errorf("no sizes to fit")
	}
	st := stats{n: len(sizes), min: math.Inf(1), max: math.Inf(-1)}
	for i, s := range sizes {
		if !finite(s) || s <= 0 {
			return stats{}, &SizeError{Index: i, Value: s}
		}
		st.min, st.max = min(st.min, s), max(st.max, s)
		st.mean += s / float64(len(sizes))
	}
	if st.min == st.max {
		return stats{}, fmt.Errorf("all %d sizes are %g: a bounded Pareto needs sizes that differ", len(sizes), st.min)
	}
	if !finite(st.max / st.min) {
		return stats{}, fmt.Errorf("the sizes span too wide a range (%g to %g)", st.min, st.max)
	}
	for _, s := range sizes {
		st.meanLog += math.Log(s/st.min) / float64(len(sizes))
	}
	return st, nil
}

// fit completes a Fit with a.
func (st stats) fit(method string, a float64, sizes []float64) Fit {
	d := Pareto{K: st.min, P: st.max, A: a}
	f := Fit{Method: method, Pareto: d, N: st.n, Mean: st.mean, KS: ks(d, sizes)}
	n := float64(st.n)
	f.LogLik = n*(math.Log(a)-math.Log(st.min)-math.Log(d.mass())) - (a+1)*n*st.meanLog
	if st.n < MinReliable {
		f.Warning = fmt.Sprintf("only %d sizes: a fit from fewer than %d is unreliable", st.n, MinReliable)
	}
	return f
}

// ks returns the Kolmogorov-Smirnov distance between the sizes and d.
func ks(d Pareto, sizes []float64) float64 {
	s := slices.Clone(sizes)
	slices.Sort(s)
	n := float64(len(s))
	mass := d.mass() // CDF's denominator, once
	worst := 0.0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		f := min(max(-math.Expm1(-d.A*math.Log(s[i]/d.K))/mass, 0), 1)
		worst = max(worst, math.Abs(float64(j)/n-f), math.Abs(float64(i)/n-f))
		i = j
	}
	return worst
}

// Bounds of the search for a: beyond them the sizes are degenerate for a
// bounded Pareto.
const (
	minA = 1e-12
	maxA = 1e12
)

// solveDecreasing finds a > 0 with f(a) = target for f decreasing, by
// bracketing and bisection on ln a.
func solveDecreasing(f func(float64) float64, target float64) (float64, error) {
	lo, hi := 1.0, 1.0
	for f(lo) < target {
		if lo /= 2; lo < minA {
			return 0, fmt.Errorf("a would be below %g", minA)
		}
	}
	for f(hi) > target {
		if hi *= 2; hi > maxA {
			return 0, fmt.Errorf("a would be above %g: nearly every size equals the smallest", maxA)
		}
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if !(mid > lo && mid < hi) {
			break
		}
		if f(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi), nil
}
