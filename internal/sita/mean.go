package sita

import (
	"fmt"
	"math"
)

// WithMean returns B(k, p, a) with the k that gives the distribution the
// stated mean: the setup of Harchol-Balter, Crovella and Murta, who hold
// p and the mean fixed while a varies. The mean grows with k (from 0 as k
// nears 0 to p as k nears p), so k is found by bisection on ln k; mean
// must lie strictly between 0 and p.
func WithMean(mean, p, a float64) (Pareto, error) {
	switch {
	case !finite(p) || p <= 0:
		return Pareto{}, fmt.Errorf("p = %g: the largest size must be a positive number", p)
	case !finite(a) || a <= 0:
		return Pareto{}, fmt.Errorf("a = %g: the variability must be a positive number", a)
	case !finite(mean) || mean <= 0 || mean >= p:
		return Pareto{}, fmt.Errorf("mean = %g: must lie between 0 and p = %g", mean, p)
	}
	at := func(k float64) float64 { return Pareto{K: k, P: p, A: a}.Mean() }
	lo, hi := mean, mean // at(lo) <= mean < at(hi), hi < p
	for at(lo) > mean {
		if lo /= 2; lo < p*1e-300 {
			return Pareto{}, fmt.Errorf("mean = %g with p = %g and a = %g needs k below %g", mean, p, a, lo)
		}
	}
	hi = lo
	for at(hi) <= mean {
		next := math.Sqrt(hi * p)
		if !(next > hi && next < p) {
			return Pareto{}, fmt.Errorf("mean = %g with p = %g and a = %g: no k below p gives it", mean, p, a)
		}
		lo, hi = hi, next
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if !(mid > lo && mid < hi) {
			break
		}
		if at(mid) > mean {
			hi = mid
		} else {
			lo = mid
		}
	}
	d := Pareto{K: math.Sqrt(lo * hi), P: p, A: a}
	return d, d.Validate()
}
