// Package sitatune is the live SITA-E tuner that `kite sita tune` runs:
// it reads the sizes of a schedd's most recent jobs from its queue and
// history, fits B(k, p, a) to them with sita.Tuner, and sets the plan the
// idle jobs carry (Min_size_of_job, Max_size_of_job, Pareto_variability),
// which hosts with source = "job" read: paper 003 keeps what changes in
// the job ads, so the plan moves without touching a host.
//
// A Tuner is one running tuner: each Pass reads, fits and decides, and
// with Apply writes. The plan it set stays in force across passes (the
// Hold counts from it); until it has set one, the plan in force is the
// one most idle jobs carry. A pass that keeps the plan still writes it
// into the idle jobs that do not carry it (jobs submitted since, or
// carrying an older plan), so that every idle job is placed by the plan
// in force.
package sitatune

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/wire"
)

// Options say what a Tuner reads and whether it writes.
type Options struct {
	// Tune is the fit's window, threshold, estimator and hold (see
	// sita.TuneConfig); Intervals is required.
	Tune sita.TuneConfig
	// Attr is the job attribute holding the size ("" is ImageSize).
	Attr string
	// Selection is the jobs the tuner reads and writes.
	Selection wire.JobSelection
	// Apply writes the plan into the idle jobs; without it a pass only
	// reports what it would do.
	Apply bool
}

// Pass is what one pass saw and did.
type Pass struct {
	// Window is how many sizes the fit had.
	Window int
	// Check is the fit and the drift of the plan in force under it.
	Check sita.Check
	// Current is the plan in force before the pass (nil: none), and
	// Carriers how many idle jobs carried it.
	Current  *sita.Pareto
	Carriers int
	// Plan is the plan in force after the pass; its Generation counts
	// the plans this tuner has set (0: a plan it found on the jobs).
	Plan sita.Plan
	// Set is how many idle jobs the pass wrote the plan into.
	Set int
}

// Tuner follows a schedd's workload; it is not safe for concurrent use.
type Tuner struct {
	client *wire.Client
	opts   Options
	set    *sita.Plan // the plan this tuner set, once it has
}

// New returns a tuner that reads and writes through client (a schedd's).
func New(client *wire.Client, opts Options) (*Tuner, error) {
	if opts.Attr == "" {
		opts.Attr = sita.DefaultSizeAttr
	}
	if err := sita.ValidAttrName(opts.Attr); err != nil {
		return nil, fmt.Errorf("the size attribute: %w", err)
	}
	cfg, err := opts.Tune.Check()
	if err != nil {
		return nil, err
	}
	opts.Tune = cfg
	return &Tuner{client: client, opts: opts}, nil
}

// Options returns the tuner's options, defaults filled in.
func (t *Tuner) Options() Options { return t.opts }

// job is one job the tuner reads.
type job struct {
	qdate int64
	size  float64
	idle  bool
	plan  *sita.Pareto
}

// Pass reads the window, fits it, moves the plan when its drift passes
// the threshold and the hold has passed since this tuner's last move,
// and with Apply writes the plan into the idle jobs: all of them after a
// move, those that do not carry it otherwise.
func (t *Tuner) Pass(ctx context.Context, now time.Time) (Pass, error) {
	jobs, err := t.read(ctx)
	if err != nil {
		return Pass{}, err
	}
	if len(jobs) == 0 {
		return Pass{}, fmt.Errorf("no jobs with %s in the queue or the history", t.opts.Attr)
	}
	// The most recent first; the window is the first W.
	slices.SortStableFunc(jobs, func(a, b job) int { return cmp.Compare(b.qdate, a.qdate) })
	window := jobs[:min(len(jobs), t.opts.Tune.Window)]
	var p Pass
	p.Current, p.Carriers = planInForce(jobs)
	var since time.Time // the zero time: no hold before this tuner's first move
	if t.set != nil {
		p.Current, p.Carriers = &t.set.Pareto, carrying(jobs, t.set.Pareto)
		since = t.set.At
	}
	tu, err := sita.NewTuner(t.opts.Tune, p.Current, since)
	if err != nil {
		return Pass{}, fmt.Errorf("the plan the idle jobs carry: %w", err)
	}
	for _, j := range window {
		tu.Observe(j.size)
	}
	p.Window = len(window)
	p.Plan, p.Check, err = tu.Tune(now)
	if err != nil {
		return p, fmt.Errorf("fitting the %d most recent sizes: %w", len(window), err)
	}
	p.Plan.Generation = 0
	if t.set != nil {
		p.Plan.Generation = t.set.Generation
	}
	if p.Check.Moved {
		p.Plan.Generation++
	}
	if !t.opts.Apply || p.Current == nil && !p.Check.Moved {
		return p, nil
	}
	if p.Check.Moved {
		t.set = &p.Plan
		p.Set, err = t.write(ctx, p.Plan.Pareto, false)
		return p, err
	}
	p.Set, err = t.write(ctx, *p.Current, true)
	return p, err
}

// read reads the selected jobs of the queue, and of the history the
// Window that left it last, that have a size.
func (t *Tuner) read(ctx context.Context) ([]job, error) {
	sel := t.opts.Selection
	proj := []string{"QDate", "JobStatus", t.opts.Attr, sita.JobMinSize, sita.JobMaxSize, sita.JobVariability}
	var jobs []job
	add := func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return fmt.Errorf("the schedd sent a bad ad: %w", err)
		}
		size := classad.EvalNumberOr(ad, t.opts.Attr, 0)
		if !(size > 0) {
			return nil // not sized: SITA-E does not place it
		}
		jobs = append(jobs, job{qdate: int64(classad.EvalNumberOr(ad, "QDate", 0)), size: size,
			idle: classad.EvalNumberOr(ad, "JobStatus", 0) == 1, plan: Carried(ad)})
		return nil
	}
	if err := t.client.Stream(ctx, "POST", wire.PathQueue, wire.JobQuery{JobSelection: sel, Projection: proj}, add); err != nil {
		return nil, fmt.Errorf("reading the queue: %w", err)
	}
	// The history comes newest first, and a window of W takes from the
	// W jobs that left the queue last: a job that left before them is
	// missed only if W jobs queued before it left after it (a backlog
	// of W), and a pass costs the same however long the history grows.
	h := wire.HistoryQuery{IDs: sel.IDs, Owners: sel.Owners, Constraint: sel.Constraint, Projection: proj, Limit: t.opts.Tune.Window}
	if err := t.client.Stream(ctx, "POST", wire.PathHistory, h, add); err != nil {
		return nil, fmt.Errorf("reading the history: %w", err)
	}
	return jobs, nil
}

// Carried returns the plan a job ad carries (its Min_size_of_job,
// Max_size_of_job and Pareto_variability, all numbers), or nil.
func Carried(ad *classad.Ad) *sita.Pareto {
	var v [3]float64
	for i, name := range []string{sita.JobMinSize, sita.JobMaxSize, sita.JobVariability} {
		x, _ := classad.EvalAttr(ad, name, nil)
		f, ok := x.NumberValue()
		if !ok {
			return nil
		}
		v[i] = f
	}
	return &sita.Pareto{K: v[0], P: v[1], A: v[2]}
}

// planInForce is the plan the idle jobs carry: the parameters most of
// them carry (jobs sorted newest first; ties go to the newest), and how
// many carry it. nil when no idle job carries one.
func planInForce(jobs []job) (*sita.Pareto, int) {
	counts := map[sita.Pareto]int{}
	var order []sita.Pareto
	for _, j := range jobs {
		if !j.idle || j.plan == nil {
			continue
		}
		if counts[*j.plan] == 0 {
			order = append(order, *j.plan)
		}
		counts[*j.plan]++
	}
	var best *sita.Pareto
	for i := range order {
		if best == nil || counts[order[i]] > counts[*best] {
			best = &order[i]
		}
	}
	if best == nil {
		return nil, 0
	}
	return best, counts[*best]
}

// carrying counts the idle jobs that carry plan d.
func carrying(jobs []job, d sita.Pareto) int {
	n := 0
	for _, j := range jobs {
		if j.idle && j.plan != nil && *j.plan == d {
			n++
		}
	}
	return n
}

// write sets plan d on the selected idle jobs (only on those that do
// not carry it already, with missing) and returns how many it changed.
func (t *Tuner) write(ctx context.Context, d sita.Pareto, missing bool) (int, error) {
	sel := t.opts.Selection
	parts := []string{"JobStatus == 1"}
	if sel.Constraint != "" {
		parts = append([]string{"(" + sel.Constraint + ")"}, parts...)
	}
	attrs := map[string]string{
		sita.JobMinSize:     Real(d.K),
		sita.JobMaxSize:     Real(d.P),
		sita.JobVariability: Real(d.A),
	}
	if missing {
		var differ []string
		for _, name := range []string{sita.JobMinSize, sita.JobMaxSize, sita.JobVariability} {
			differ = append(differ, name+" =!= "+attrs[name])
		}
		parts = append(parts, "("+strings.Join(differ, " || ")+")")
	}
	sel.Constraint = strings.Join(parts, " && ")
	var res wire.ActResult
	if err := t.client.Call(ctx, "POST", wire.PathEdit, wire.Edit{JobSelection: sel, Attrs: attrs}, &res); err != nil {
		return 0, fmt.Errorf("writing the plan into the idle jobs: %w", err)
	}
	if res.Denied > 0 {
		return res.Changed, fmt.Errorf("permission denied: %d idle job(s) are not yours, unchanged", res.Denied)
	}
	return res.Changed, nil
}

// Real writes a parameter as a real literal that reads back to exactly f
// (1e4 as 10000.0; the shortest text otherwise).
func Real(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}
