package sita

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Tuning SITA-E: paper 003 fits B(k, p, a) once, to a job set, and fixes
// the boundaries; a pool whose jobs change needs them to follow. A Tuner
// keeps the sizes of the most recent jobs, fits B(k, p, a) to them, and
// moves its plan (the n equal-load intervals) when the plan it has would
// load the hosts unequally under the new fit: by more than the threshold,
// as SITA-E's imbalance M in percent of the mean load. That is the
// hysteresis: a fit that wobbles within the threshold, as fits to heavy
// tails do from window to window, moves nothing, and after a move the
// plan stays at least Hold.

// TuneConfig says how a Tuner follows the workload.
type TuneConfig struct {
	// Intervals is n, the hosts (or host groups) of the plan.
	Intervals int
	// Window is how many of the most recent sizes the fit uses
	// (default 2000).
	Window int
	// MinSizes is how many sizes the window must hold before the tuner
	// moves a plan (default MinReliable, paper 003's reliable fit).
	MinSizes int
	// Threshold is the expected imbalance, in percent of the mean load,
	// at which the plan moves (default 10).
	Threshold float64
	// Hold is the least time between moves (default 0).
	Hold time.Duration
	// Method is the estimator, Moments (default) or MLE.
	Method string
}

// withDefaults fills the zero fields and checks the others.
func (c TuneConfig) withDefaults() (TuneConfig, error) {
	if c.Window == 0 {
		c.Window = 2000
	}
	if c.MinSizes == 0 {
		c.MinSizes = min(MinReliable, c.Window)
	}
	if c.Threshold == 0 {
		c.Threshold = 10
	}
	if c.Method == "" {
		c.Method = Moments
	}
	var errs []error
	if c.Intervals < 1 || c.Intervals > MaxIntervals {
		errs = append(errs, fmt.Errorf("intervals = %d: must be between 1 and %d", c.Intervals, MaxIntervals))
	}
	if c.Window < 2 {
		errs = append(errs, fmt.Errorf("window = %d: the fit needs at least 2 sizes", c.Window))
	}
	if c.MinSizes < 2 || c.MinSizes > c.Window {
		errs = append(errs, fmt.Errorf("min_sizes = %d: must be between 2 and the window (%d)", c.MinSizes, c.Window))
	}
	if !(c.Threshold > 0 && c.Threshold < 100) {
		errs = append(errs, fmt.Errorf("threshold = %g: must be a percentage of the mean load above 0 and below 100", c.Threshold))
	}
	if c.Hold < 0 {
		errs = append(errs, fmt.Errorf("hold = %v: must not be negative", c.Hold))
	}
	if c.Method != Moments && c.Method != MLE {
		errs = append(errs, fmt.Errorf("method = %q: use %s or %s", c.Method, Moments, MLE))
	}
	return c, errors.Join(errs...)
}

// Plan is a set of intervals and what it came from.
type Plan struct {
	// Generation counts the plans: 1 for the first.
	Generation int
	// At is when the plan was made.
	At time.Time
	// Pareto is the distribution the intervals are equal-load for.
	Pareto Pareto
	// Intervals are its boundaries.
	Intervals Intervals
	// Sizes is how many sizes the fit had (0 for a plan given, not fitted).
	Sizes int
}

// Check is what one Tune saw: the fit to the window and the expected
// imbalance of the plan in force under it.
type Check struct {
	Fit Fit
	// Drift is the plan's expected imbalance M under Fit, in percent of
	// the mean load.
	Drift float64
	// Moved says the plan moved (to the plan Tune returned).
	Moved bool
	// Held says the plan should have moved but Hold had not passed.
	Held bool
}

// Tuner follows a workload's sizes with a plan. It is not safe for
// concurrent use.
type Tuner struct {
	cfg   TuneConfig
	ring  []float64
	next  int
	full  bool
	seen  int
	plan  Plan
	valid bool
}

// NewTuner returns a tuner; initial, if not nil, is the plan in force
// until the first move (its Generation 1).
func NewTuner(cfg TuneConfig, initial *Pareto, at time.Time) (*Tuner, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	t := &Tuner{cfg: cfg, ring: make([]float64, cfg.Window)}
	if initial != nil {
		iv, err := initial.Boundaries(cfg.Intervals)
		if err != nil {
			return nil, fmt.Errorf("initial plan: %w", err)
		}
		t.plan, t.valid = Plan{Generation: 1, At: at, Pareto: *initial, Intervals: iv}, true
	}
	return t, nil
}

// Config returns the tuner's configuration, defaults filled in.
func (t *Tuner) Config() TuneConfig { return t.cfg }

// Observe adds job sizes to the window; sizes that are not positive
// numbers are skipped (they cannot be fitted), and it says how many.
func (t *Tuner) Observe(sizes ...float64) (skipped int) {
	for _, s := range sizes {
		if !(s > 0) || math.IsInf(s, 0) {
			skipped++
			continue
		}
		t.ring[t.next] = s
		t.next = (t.next + 1) % len(t.ring)
		t.full = t.full || t.next == 0
		t.seen++
	}
	return skipped
}

// window returns the sizes held.
func (t *Tuner) window() []float64 {
	if t.full {
		return t.ring
	}
	return t.ring[:t.next]
}

// Plan returns the plan in force, and false before the first.
func (t *Tuner) Plan() (Plan, bool) { return t.plan, t.valid }

// Tune fits the window and moves the plan when its expected imbalance
// under the fit passes the threshold (and Hold has passed since the
// last move); the first plan is made as soon as the window holds
// MinSizes. It returns the plan in force afterwards and what it saw.
// With too few sizes it changes nothing and says so in the error.
func (t *Tuner) Tune(now time.Time) (Plan, Check, error) {
	w := t.window()
	if len(w) < t.cfg.MinSizes {
		return t.plan, Check{}, fmt.Errorf("%d sizes seen, %d needed for a fit", len(w), t.cfg.MinSizes)
	}
	fit, err := FitSizes(t.cfg.Method, w)
	if err != nil {
		return t.plan, Check{}, err
	}
	c := Check{Fit: fit, Drift: 100}
	if t.valid {
		loads, _ := fit.Pareto.ExpectedLoads(t.plan.Intervals)
		_, _, c.Drift = Imbalance(loads)
	}
	if c.Drift <= t.cfg.Threshold {
		return t.plan, c, nil
	}
	if t.valid && now.Sub(t.plan.At) < t.cfg.Hold {
		c.Held = true
		return t.plan, c, nil
	}
	iv, err := fit.Pareto.Boundaries(t.cfg.Intervals)
	if err != nil {
		return t.plan, c, err
	}
	t.plan = Plan{Generation: t.plan.Generation + 1, At: now, Pareto: fit.Pareto, Intervals: iv, Sizes: len(w)}
	t.valid, c.Moved = true, true
	return t.plan, c, nil
}

// Check returns the configuration with its defaults filled in, or what is
// wrong with it.
func (c TuneConfig) Check() (TuneConfig, error) { return c.withDefaults() }
