// Package sita is the mathematics of SITA-E (size-interval task assignment
// with equal load) on bounded Pareto job sizes, and its expression as
// ClassAds, after paper 003 (Golubev 2010; ../shared/docs/algorithms.md §1).
//
// Job sizes follow B(k, p, a): k the smallest size, p the largest, a > 0
// the variability. n hosts (or host groups) each take one interval of
// sizes, the boundaries k = x0 < x1 < ... < xn = p chosen so that every
// interval carries the same expected load:
//
//	sizes ──FitMoments / FitMLE──▶ Pareto{K, P, A} ──Boundaries(n)──▶ Intervals{X}
//	                                  │ CDF, PDF, Mean, Quantile,         │ Of(size): interval i
//	                                  │ Sample, Load(u, v),               │ Loads(sizes): L_i
//	                                  │ ExpectedLoads(iv)                 ▼
//	                                  │                         Imbalance(L): M, % of mean
//	HostConfig ([startd.sita]) ──HostAd(cfg, host, slot)──▶ slot attributes + Requirements clause
//
// Intervals are half-open, [x(i-1), x(i)), the last one closed; a size
// below k belongs to the first interval and one above p to the last, so
// every size has exactly one interval. HostAd writes the same rule as
// ClassAd expressions for a slot's ad, with the boundaries as literals
// (k, p, a from configuration) or computed inside the expressions from
// the job's own Min_size_of_job, Max_size_of_job and Pareto_variability,
// as paper 003 does; unlike the paper's expression, which compares
// powers of the size, admits nothing when a > 1 and, at a = 1 (where
// every power is 1), every size on every host, these are right for
// a < 1, a = 1 and a > 1.
//
// The simulator uses the same pieces: Sample (or Quantile) draws sizes,
// Boundaries plans the intervals and Intervals.Of assigns a job.
//
// Fits take k as the smallest size and p as the largest; a comes from
// the method of moments (the paper's) or maximum likelihood, both by
// bisection, and a fit from fewer than MinReliable sizes carries a
// warning. Bad input (no sizes, a size that is zero, negative or not a
// number, sizes that are all equal, sizes no a > 0 fits) is an error
// that says what is wrong; nothing returns NaN.
package sita
