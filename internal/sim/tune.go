package sim

import (
	"fmt"
	"time"

	"github.com/kite-sched/kite/internal/sita"
)

// SITA-E tuning in a run (a policy's sita.tune): the negotiator's tuner
// (internal/sita.Tuner) sees each job's size as the job arrives (the
// size a cycle shows it), fits B(k, p, a) to the most recent ones every
// Every seconds, and when its plan moves, every host re-advertises its
// interval's new boundaries: the slot ads change in place, as a startd's
// ad changes without a restart, and the next cycle matches with them.

// TuneSpec is a policy's sita.tune table.
type TuneSpec struct {
	// Every is how often (virtual seconds) the tuner fits the window.
	Every float64
	// Config is the tuner's window, threshold, hold and estimator
	// (Intervals comes from the policy's sita.intervals).
	Config sita.TuneConfig
}

// Retune is one move of a run's plan.
type Retune struct {
	At        float64   `json:"at"` // virtual seconds
	K         float64   `json:"k"`
	P         float64   `json:"p"`
	A         float64   `json:"a"`
	Bounds    []float64 `json:"bounds"`
	Drift     float64   `json:"drift_pct"` // the old plan's expected M under the fit
	Sizes     int       `json:"sizes"`
	Generated int       `json:"generation"`
}

// tuning is a run's tuner state.
type tuning struct {
	tuner *sita.Tuner
	every float64
	next  float64
	plan  *sitaPlan
	moves []Retune
	err   error // a host ad the new plan could not make: the run fails
}

// simTime is a virtual time as the tuner's clock.
func simTime(t float64) time.Time {
	return time.Unix(epoch, 0).Add(time.Duration(t * float64(time.Second)))
}

// startTuning prepares the tuner for a policy that asks for one.
func (e *engine) startTuning(spec *SitaSpec, plan *sitaPlan) error {
	if spec == nil || spec.Tune == nil {
		return nil
	}
	cfg := spec.Tune.Config
	cfg.Intervals = spec.Intervals
	initial := sita.Pareto{K: plan.cfg.K, P: plan.cfg.P, A: plan.cfg.A}
	t, err := sita.NewTuner(cfg, &initial, simTime(0))
	if err != nil {
		return fmt.Errorf("sita.tune: %w", err)
	}
	e.tune = &tuning{tuner: t, every: spec.Tune.Every, plan: plan}
	return nil
}

// observeArrival gives the tuner an arriving job's size (its work: the
// size a generated job's size attribute holds).
func (e *engine) observeArrival(j int32) {
	tn := e.tune
	if tn == nil {
		return
	}
	tn.tuner.Observe(e.jobs[j].work)
}

// maybeTune fits and, when the plan moves, re-advertises every host's
// boundaries.
func (e *engine) maybeTune() {
	tn := e.tune
	if tn == nil || e.now < tn.next || tn.err != nil {
		return
	}
	tn.next = e.now + tn.every
	plan, c, err := tn.tuner.Tune(simTime(e.now))
	if err != nil || !c.Moved {
		return // too few sizes yet, or a window no B(k, p, a) fits: keep the plan
	}
	tn.plan.cfg.K, tn.plan.cfg.P, tn.plan.cfg.A = plan.Pareto.K, plan.Pareto.P, plan.Pareto.A
	for _, s := range e.slots {
		cfg := tn.plan.cfg
		cfg.Interval = tn.plan.intervals[s.machine]
		attrs, _, err := sita.HostAd(cfg, e.machines[s.machine].name, s.name)
		if err != nil {
			tn.err = fmt.Errorf("SITA-E tuning, %s: %w", s.name, err)
			return
		}
		for _, a := range attrs {
			s.ad.Set(a.Name, a.Expr)
		}
	}
	tn.moves = append(tn.moves, Retune{At: e.now, K: plan.Pareto.K, P: plan.Pareto.P, A: plan.Pareto.A,
		Bounds: plan.Intervals.X, Drift: c.Drift, Sizes: plan.Sizes, Generated: plan.Generation})
	e.wantCycle()
}
