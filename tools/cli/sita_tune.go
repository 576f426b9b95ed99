package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/wire"
)

// kite sita tune: the live SITA-E tuner. Hosts with source = "job"
// compute their boundaries from each job's own k, p and a (paper 003's
// design: the machines' ads need no restart, the jobs carry the fit).
// tune fits B(k, p, a) to the sizes of the most recent jobs of the queue
// and history, sets the plan the idle jobs carry against it, and when
// that plan would load the intervals unequally by more than the
// threshold, moves it: with --apply it writes the new k, p and a into the
// idle jobs, and the next negotiation cycle places them by the new
// boundaries. With --every it is a small running tuner that follows a
// drifting workload by itself; the threshold, and --hold between moves,
// are its hysteresis.

type sitaTuneOptions struct {
	g         *globals
	n         int
	window    int
	threshold float64
	method    string
	attr      string
	apply     bool
	name      string
	cons      []string
	every     time.Duration // > 0: tune again at this interval until interrupted
	hold      time.Duration // with every: the least time between two moves
}

func newSitaTuneCmd(g *globals) *cobra.Command {
	o := sitaTuneOptions{g: g}
	c := &cobra.Command{
		Use:   "tune -n N [--window W] [--threshold PCT] [--apply [--every D [--hold D]]] [owner | cluster | cluster.proc ...]",
		Short: "Refit k, p, a to recent job sizes and move the idle jobs' intervals when the workload drifts",
		Long: `Fit B(k, p, a) to the sizes of the W most recent jobs (by QDate) of the
schedd's queue and history that the arguments and --constraint select, and
set the plan the idle jobs carry (their Min_size_of_job, Max_size_of_job
and Pareto_variability, which hosts with source = "job" read) against it:
the plan's expected imbalance M under the fit, in percent of the mean
load. Above --threshold the plan moves: the new k, p and a, and with
--apply they are written into the selected idle jobs, so that the next
negotiation cycle places them by the new boundaries (no host restarts).
At or below the threshold nothing changes: the threshold keeps a fit
that wobbles from window to window from moving the plan. With --every the
tuner runs until interrupted, tuning at that interval, and moves the plan
at most once per --hold.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error { return o.run(c, args) },
	}
	f := c.Flags()
	f.IntVarP(&o.n, "intervals", "n", 0, "number of intervals (hosts or host groups)")
	f.IntVar(&o.window, "window", 2000, "how many of the most recent sizes to fit")
	f.Float64Var(&o.threshold, "threshold", 10, "move the plan when its expected imbalance passes this percentage of the mean load")
	f.StringVar(&o.method, "fit", sita.Moments, "estimator: moments or mle")
	f.StringVar(&o.attr, "attr", sita.DefaultSizeAttr, "the job attribute holding the size")
	f.BoolVar(&o.apply, "apply", false, "write the moved plan into the idle jobs")
	f.StringVar(&o.name, "name", "", "the schedd to ask (its name or host:port)")
	f.StringArrayVar(&o.cons, "constraint", nil, "only jobs for which the expression is true")
	f.DurationVar(&o.every, "every", 0, "keep running, tuning at this interval (with --apply: the plan follows the workload)")
	f.DurationVar(&o.hold, "hold", 0, "with --every: keep a moved plan at least this long")
	c.MarkFlagRequired("intervals")
	return c
}

// tuneJob is one job the tuner reads.
type tuneJob struct {
	id    string
	qdate int64
	size  float64
	idle  bool
	plan  *sita.Pareto
}

func (o *sitaTuneOptions) run(c *cobra.Command, args []string) error {
	if err := checkN(o.n); err != nil {
		return err
	}
	if err := sita.ValidAttrName(o.attr); err != nil {
		return usageError{fmt.Errorf("--attr: %v", err)}
	}
	cfg, err := sita.TuneConfig{Intervals: o.n, Window: o.window, MinSizes: min(o.window, 2), Threshold: o.threshold, Method: o.method}.Check()
	if err != nil {
		return usageError{err}
	}
	if o.every < 0 || o.hold < 0 || o.hold > 0 && o.every == 0 {
		return usageError{fmt.Errorf("--every and --hold must be positive, --hold only with --every")}
	}
	ctx := c.Context()
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	sel, w := o.selection(args), c.OutOrStdout()
	if o.every == 0 {
		_, err := o.once(ctx, w, s, sel, cfg, true)
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return o.loop(ctx, w, s, sel, cfg)
}

// loop tunes at every interval until ctx ends; a pass that fails (the
// schedd restarting, no sized jobs yet) is reported and the next tries
// again.
func (o *sitaTuneOptions) loop(ctx context.Context, w io.Writer, s *scheddConn, sel wire.JobSelection, cfg sita.TuneConfig) error {
	var moved time.Time
	tick := time.NewTicker(o.every)
	defer tick.Stop()
	for {
		may := moved.IsZero() || time.Since(moved) >= o.hold
		if did, err := o.once(ctx, w, s, sel, cfg, may); err != nil {
			fmt.Fprintf(w, "tune: %v\n", err)
		} else if did {
			moved = time.Now()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// once tunes one time: it reads the window, fits, reports and, when the
// plan moves and may move, writes it with --apply; it says whether it
// wrote.
func (o *sitaTuneOptions) once(ctx context.Context, w io.Writer, s *scheddConn, sel wire.JobSelection, cfg sita.TuneConfig, may bool) (bool, error) {
	jobs, err := o.read(ctx, s.client, sel)
	if err != nil {
		return false, err
	}
	if len(jobs) == 0 {
		return false, fmt.Errorf("the queue and history of %s: no jobs with %s", s.name, o.attr)
	}
	// The most recent first; the window is the first W.
	slices.SortStableFunc(jobs, func(a, b tuneJob) int { return cmp.Compare(b.qdate, a.qdate) })
	window := jobs[:min(len(jobs), cfg.Window)]
	current, carriers := planInForce(jobs)
	t, err := sita.NewTuner(cfg, current, time.Unix(0, 0))
	if err != nil {
		return false, fmt.Errorf("the plan the idle jobs carry: %w", err)
	}
	for _, j := range window {
		t.Observe(j.size)
	}
	plan, check, err := t.Tune(time.Unix(1, 0))
	if err != nil {
		return false, fmt.Errorf("fitting the %d most recent sizes: %w", len(window), err)
	}
	o.report(w, s.name, len(window), check, current, carriers, plan)
	if !check.Moved || !o.apply {
		return false, nil
	}
	if !may {
		fmt.Fprintf(w, "hold: the plan moved less than --hold ago; the move waits\n")
		return false, nil
	}
	return true, o.write(ctx, w, s.client, sel, plan.Pareto)
}

// selection is the jobs the arguments and --constraint select.
func (o *sitaTuneOptions) selection(args []string) wire.JobSelection {
	ids, owners := splitArgs(args)
	var parts []string
	for _, c := range o.cons {
		parts = append(parts, "("+c+")")
	}
	return wire.JobSelection{IDs: ids, Owners: owners, Constraint: strings.Join(parts, " && ")}
}

// read reads the selected jobs of the queue and the history that have a
// size.
func (o *sitaTuneOptions) read(ctx context.Context, cl *wire.Client, sel wire.JobSelection) ([]tuneJob, error) {
	proj := []string{"ClusterId", "ProcId", "QDate", "JobStatus", o.attr, sita.JobMinSize, sita.JobMaxSize, sita.JobVariability}
	var jobs []tuneJob
	add := func(ad *classad.Ad) error {
		size := classad.EvalNumberOr(ad, o.attr, 0)
		if !(size > 0) {
			return nil // not sized: SITA-E does not place it
		}
		j := tuneJob{id: jobLabel(ad, len(jobs)+1), qdate: int64(classad.EvalNumberOr(ad, "QDate", 0)), size: size,
			idle: classad.EvalNumberOr(ad, "JobStatus", 0) == 1}
		if ps := jobParams([]*classad.Ad{ad}); ps != nil && ps[0] != nil {
			j.plan = ps[0]
		}
		jobs = append(jobs, j)
		return nil
	}
	if err := streamAds(ctx, cl, wire.PathQueue, wire.JobQuery{JobSelection: sel, Projection: proj}, add); err != nil {
		return nil, err
	}
	h := wire.HistoryQuery{IDs: sel.IDs, Owners: sel.Owners, Constraint: sel.Constraint, Projection: proj}
	if err := streamAds(ctx, cl, wire.PathHistory, h, add); err != nil {
		return nil, err
	}
	return jobs, nil
}

// planInForce is the plan the idle jobs carry: the parameters most of
// them carry (jobs sorted newest first; ties go to the newest), and how
// many carry it. nil when no idle job carries one.
func planInForce(jobs []tuneJob) (*sita.Pareto, int) {
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

// report prints the fit, the plan in force, the drift and the decision.
func (o *sitaTuneOptions) report(w io.Writer, schedd string, n int, c sita.Check, current *sita.Pareto, carriers int, plan sita.Plan) {
	fmt.Fprintf(w, "window: the %d most recent sizes of the queue and history of %s\n", n, schedd)
	fmt.Fprintf(w, "fit: %s by %s\n", c.Fit.Pareto, c.Fit.Method)
	if c.Fit.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", c.Fit.Warning)
	}
	if current == nil {
		fmt.Fprintf(w, "plan in force: none (no idle job carries %s, %s and %s)\n", sita.JobMinSize, sita.JobMaxSize, sita.JobVariability)
	} else {
		fmt.Fprintf(w, "plan in force: %s, carried by %d idle jobs; its expected imbalance under the fit: %.1f %% of the mean load (threshold %g %%)\n",
			current, carriers, c.Drift, o.threshold)
	}
	if !c.Moved {
		fmt.Fprintf(w, "keep: the plan in force is within the threshold\n")
		return
	}
	var b []string
	for _, x := range plan.Intervals.X[1 : len(plan.Intervals.X)-1] {
		b = append(b, bound(x))
	}
	fmt.Fprintf(w, "move: to %s, boundaries %s\n", plan.Pareto, strings.Join(b, ", "))
	if !o.apply {
		fmt.Fprintf(w, "(--apply writes it into the idle jobs)\n")
	}
}

// write sets the new plan on the selected idle jobs.
func (o *sitaTuneOptions) write(ctx context.Context, w io.Writer, cl *wire.Client, sel wire.JobSelection, d sita.Pareto) error {
	idle := "JobStatus == 1"
	if sel.Constraint != "" {
		idle = "(" + sel.Constraint + ") && " + idle
	}
	sel.Constraint = idle
	attrs := map[string]string{
		sita.JobMinSize:     tomlFloat(d.K),
		sita.JobMaxSize:     tomlFloat(d.P),
		sita.JobVariability: tomlFloat(d.A),
	}
	var res wire.ActResult
	if err := cl.Call(ctx, "POST", wire.PathEdit, wire.Edit{JobSelection: sel, Attrs: attrs}, &res); err != nil {
		return err
	}
	if res.Changed == 0 && res.Denied > 0 {
		return fmt.Errorf("permission denied: %d idle job(s) are not yours", res.Denied)
	}
	fmt.Fprintf(w, "set on %d idle jobs\n", res.Changed)
	if res.Denied > 0 {
		return fmt.Errorf("%d idle job(s) are not yours: unchanged", res.Denied)
	}
	return nil
}
