package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/sitatune"
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
// are its hysteresis. The passes are internal/sitatune's; this file
// parses the flags and prints what each pass saw.

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
At or below the threshold the plan stays: the threshold keeps a fit that
wobbles from window to window from moving it; with --apply it is still
written into the idle jobs that do not carry it (jobs submitted since).
With --every the tuner runs until interrupted, tuning at that interval;
the plan it set stays in force, and moves at most once per --hold. An
interrupt lets the pass under way finish and report (a second ends the
tuner at once).`,
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

func (o *sitaTuneOptions) run(c *cobra.Command, args []string) error {
	if err := checkN(o.n); err != nil {
		return err
	}
	if err := sita.ValidAttrName(o.attr); err != nil {
		return usageError{fmt.Errorf("--attr: %v", err)}
	}
	if o.every < 0 || o.hold < 0 || o.hold > 0 && o.every == 0 {
		return usageError{fmt.Errorf("--every and --hold must be positive, --hold only with --every")}
	}
	ctx := c.Context()
	cfg := sita.TuneConfig{Intervals: o.n, Window: o.window, MinSizes: min(o.window, 2), Threshold: o.threshold, Method: o.method, Hold: o.hold}
	if _, err := cfg.Check(); err != nil {
		return usageError{err}
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	t, err := sitatune.New(s.client, sitatune.Options{Tune: cfg, Attr: o.attr, Selection: o.selection(args), Apply: o.apply})
	if err != nil {
		return usageError{err}
	}
	w := c.OutOrStdout()
	if o.every == 0 {
		return o.once(ctx, w, s.name, t)
	}
	// The first interrupt stops the tuner once its pass is through: a
	// pass cut short could leave a plan written into jobs that it does
	// not report. A second interrupt ends it at once.
	interrupted, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(interrupted, stop)
	return o.loop(ctx, interrupted, w, s.name, t)
}

// loop tunes at every interval until interrupted ends; a pass that fails
// (the schedd restarting, no sized jobs yet) is reported and the next
// tries again. Passes run under ctx: one under way when interrupted ends
// goes on to its end.
func (o *sitaTuneOptions) loop(ctx, interrupted context.Context, w io.Writer, schedd string, t *sitatune.Tuner) error {
	tick := time.NewTicker(o.every)
	defer tick.Stop()
	for {
		if err := o.once(ctx, w, schedd, t); err != nil {
			fmt.Fprintf(w, "tune: %v\n", err)
		}
		select {
		case <-interrupted.Done():
			return nil
		case <-tick.C:
		}
	}
}

// once runs one pass of the tuner and reports it.
func (o *sitaTuneOptions) once(ctx context.Context, w io.Writer, schedd string, t *sitatune.Tuner) error {
	p, err := t.Pass(ctx, time.Now())
	if p.Check.Fit.Method != "" { // it fitted
		o.report(w, schedd, p)
	}
	if err != nil {
		return fmt.Errorf("the queue and history of %s: %w", schedd, err)
	}
	return nil
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

// report prints the fit, the plan in force, the drift and the decision.
func (o *sitaTuneOptions) report(w io.Writer, schedd string, p sitatune.Pass) {
	c := p.Check
	fmt.Fprintf(w, "window: the %d most recent sizes of the queue and history of %s\n", p.Window, schedd)
	fmt.Fprintf(w, "fit: %s by %s\n", c.Fit.Pareto, c.Fit.Method)
	if c.Fit.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", c.Fit.Warning)
	}
	if p.Current == nil {
		fmt.Fprintf(w, "plan in force: none (no idle job carries %s, %s and %s)\n", sita.JobMinSize, sita.JobMaxSize, sita.JobVariability)
	} else {
		fmt.Fprintf(w, "plan in force: %s, carried by %d idle jobs; its expected imbalance under the fit: %.1f %% of the mean load (threshold %g %%)\n",
			p.Current, p.Carriers, c.Drift, o.threshold)
	}
	switch {
	case c.Held:
		fmt.Fprintf(w, "hold: the plan moved less than --hold ago; the move waits\n")
	case !c.Moved:
		fmt.Fprintf(w, "keep: the plan in force is within the threshold\n")
	default:
		var b []string
		for _, x := range p.Plan.Intervals.X[1 : len(p.Plan.Intervals.X)-1] {
			b = append(b, bound(x))
		}
		fmt.Fprintf(w, "move: to %s, boundaries %s\n", p.Plan.Pareto, strings.Join(b, ", "))
		if !o.apply {
			fmt.Fprintf(w, "(--apply writes it into the idle jobs)\n")
		}
	}
	if p.Set > 0 || c.Moved && o.apply {
		fmt.Fprintf(w, "set on %d idle jobs\n", p.Set)
	}
}
