package sita

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// OneTolerance is how close to 1 the variability a must be to be treated
// as exactly 1, where the formulas change form (logarithms instead of
// powers of 1-a).
const OneTolerance = 1e-9

// isOne reports whether a counts as 1. The test is written as the
// generated ClassAd expressions write it, so both agree to the bit.
func isOne(a float64) bool { return a-1 < OneTolerance && a-1 > -OneTolerance }

// Pareto is the bounded Pareto distribution B(k, p, a): sizes between k
// and p with density a k^a x^(-a-1) / (1 - (k/p)^a). The closer a is to 0,
// the heavier the tail; a may be below or above 1.
//
// Every method works in units of k, through expm1 and log1p, so that it
// stays accurate when p/k is huge, when a is near 1 and when a is large.
type Pareto struct {
	K float64 // smallest size, > 0
	P float64 // largest size, > K
	A float64 // variability, > 0
}

// New returns B(k, p, a) after checking that 0 < k < p, that p/k is
// finite and that a > 0.
func New(k, p, a float64) (Pareto, error) {
	d := Pareto{K: k, P: p, A: a}
	return d, d.Validate()
}

// Validate reports what is wrong with the parameters, if anything.
func (d Pareto) Validate() error {
	switch {
	case !finite(d.K) || d.K <= 0:
		return fmt.Errorf("k = %g: the smallest size must be a positive number", d.K)
	case !finite(d.P) || d.P <= d.K:
		return fmt.Errorf("p = %g: the largest size must be a number above k = %g", d.P, d.K)
	case !finite(d.P / d.K):
		return fmt.Errorf("p/k = %g/%g is too large", d.P, d.K)
	case !finite(d.A) || d.A <= 0:
		return fmt.Errorf("a = %g: the variability must be a positive number", d.A)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// String prints the parameters as B(k, p, a).
func (d Pareto) String() string { return fmt.Sprintf("B(k=%g, p=%g, a=%g)", d.K, d.P, d.A) }

// logRange is ln(p/k) > 0.
func (d Pareto) logRange() float64 { return math.Log(d.P / d.K) }

// mass is 1 - (k/p)^a, the normalizing constant.
func (d Pareto) mass() float64 { return -math.Expm1(-d.A * d.logRange()) }

// CDF returns P(X <= x): 0 below k, 1 from p on.
func (d Pareto) CDF(x float64) float64 {
	switch {
	case x <= d.K:
		return 0
	case x >= d.P:
		return 1
	}
	return -math.Expm1(-d.A*math.Log(x/d.K)) / d.mass()
}

// PDF returns the density at x, 0 outside [k, p].
func (d Pareto) PDF(x float64) float64 {
	if x < d.K || x > d.P {
		return 0
	}
	return math.Exp(math.Log(d.A)-math.Log(d.K)-(d.A+1)*math.Log(x/d.K)) / d.mass()
}

// Quantile returns the size x with CDF(x) = u, for u in [0, 1]: the
// inverse CDF. Sample uses it.
func (d Pareto) Quantile(u float64) float64 {
	switch {
	case !(u > 0):
		return d.K
	case u >= 1:
		return d.P
	}
	x := d.K * math.Exp(-math.Log1p(-u*d.mass())/d.A)
	return min(max(x, d.K), d.P)
}

// Sample draws one size from r by inverting the CDF.
func (d Pareto) Sample(r *rand.Rand) float64 { return d.Quantile(r.Float64()) }

// Mean returns E(X) = k p (p^(a-1) - k^(a-1)) / (p^a - k^a) * a/(a-1), or
// k p ln(p/k) / (p - k) when a = 1.
func (d Pareto) Mean() float64 {
	a := d.A
	if isOne(a) {
		a = 1
	}
	return d.K * a * powDiff(1-a, d.logRange()) / d.mass()
}

// powDiff returns (e^(c L) - 1)/c, which is L when c = 0: the integral of
// t^(c-1) dt over [1, e^L]. The load integrals are made of it.
func powDiff(c, l float64) float64 {
	if c == 0 {
		return l
	}
	return math.Expm1(c*l) / c
}

// Load returns the expected size carried per job by sizes in [u, v]:
// the integral of x dF(x) over [u, v] clipped to [k, p]. Load(k, p) is
// the mean.
func (d Pareto) Load(u, v float64) float64 {
	u, v = max(u, d.K), min(v, d.P)
	if !(u < v) {
		return 0
	}
	a := d.A
	if isOne(a) {
		a = 1
	}
	// k a/mass * integral of (x/k)^(-a) dx/k over [u/k, v/k], written as
	// (u/k)^(1-a) * (((v/u)^(1-a) - 1)/(1-a)).
	lu := math.Log(u / d.K)
	return d.K * a / d.mass() * math.Exp((1-a)*lu) * powDiff(1-a, math.Log(v/u))
}
