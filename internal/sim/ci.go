package sim

import (
	"math"
)

// Confidence intervals over seeds. Each seed of a scenario is an
// independent replication (its own workload, failures and draws), so a
// metric's values over n seeds are n independent estimates and its mean
// has the interval
//
//	mean ± t(1 - (1-level)/2, n-1) · s / √n
//
// with s the sample standard deviation and t Student's quantile. With a
// warm-up (Setup.Warmup) each replication estimates the steady state; the
// interval says how far the seeds' mean may be from it, at the level, as
// far as n replications of the stated length can tell.

// ciFields are the metrics the summary gives intervals for.
var ciFields = []func(*Metrics) *float64{
	func(m *Metrics) *float64 { return &m.Makespan },
	func(m *Metrics) *float64 { return &m.Utilization },
	func(m *Metrics) *float64 { return &m.WaitMean },
	func(m *Metrics) *float64 { return &m.ExecMean },
	func(m *Metrics) *float64 { return &m.TotalMean },
	func(m *Metrics) *float64 { return &m.Slowdown },
	func(m *Metrics) *float64 { return &m.Passing },
	func(m *Metrics) *float64 { return &m.AvEff },
	func(m *Metrics) *float64 { return &m.AvDone },
	func(m *Metrics) *float64 { return &m.Imbalance },
	func(m *Metrics) *float64 { return &m.ImbalancePct },
}

// intervals returns the half-widths of the runs' All metrics at the
// level, or nil with fewer than two runs or no level.
func intervals(runs []*RunResult, level float64) *Metrics {
	if len(runs) < 2 || level <= 0 {
		return nil
	}
	ci := &Metrics{}
	xs := make([]float64, len(runs))
	for _, field := range ciFields {
		for i, r := range runs {
			xs[i] = *field(&r.All)
		}
		*field(ci) = HalfWidth(xs, level)
	}
	return ci
}

// HalfWidth is the half-width of the level confidence interval of the
// mean of xs, independent draws: t(1-(1-level)/2, n-1) s/√n. It is 0 for
// fewer than two values.
func HalfWidth(xs []float64, level float64) float64 {
	n := len(xs)
	if n < 2 {
		return 0
	}
	var m moments
	for _, x := range xs {
		m.add(x)
	}
	s := math.Sqrt(m.variance() * float64(n) / float64(n-1))
	if s <= 1e-12*math.Abs(m.mean()) {
		return 0 // equal values but for rounding
	}
	return StudentT(1-(1-level)/2, n-1) * s / math.Sqrt(float64(n))
}

// StudentT returns the p quantile (0 < p < 1) of Student's t
// distribution with df degrees of freedom, by bisection on its CDF.
func StudentT(p float64, df int) float64 {
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -StudentT(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for tCDF(hi, df) < p {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if !(mid > lo && mid < hi) {
			break
		}
		if tCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tCDF is P(T <= t) for t >= 0: 1 - I_x(df/2, 1/2)/2 with x = df/(df+t²).
func tCDF(t float64, df int) float64 {
	v := float64(df)
	return 1 - betaInc(v/2, 0.5, v/(v+t*t))/2
}

// betaInc is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Lentz's method), on the side where it converges.
func betaInc(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFrac(a, b, x) / a
	}
	return 1 - front*betaFrac(b, a, 1-x)/b
}

// betaFrac evaluates the continued fraction of the incomplete beta.
func betaFrac(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		for _, num := range []float64{
			fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)),
			-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1)),
		} {
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
		}
		if math.Abs(d*c-1) < 1e-15 {
			break
		}
	}
	return h
}
