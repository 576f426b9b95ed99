package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/sim"
)

func init() { addCommand(func(*globals) *cobra.Command { return newSimCmd() }) }

type simOptions struct {
	json, csv bool
	plot      string
	seeds     []uint
	policies  []string
	parallel  int
}

func newSimCmd() *cobra.Command {
	o := &simOptions{}
	c := &cobra.Command{
		Use:   "sim SCENARIO.toml",
		Short: "Compare scheduling policies in the simulator: the real negotiator in virtual time",
		Long: `kite sim runs a scenario: a simulated pool (machines with speeds, slots,
failures, on/off schedules, changing load), a workload (generated sizes and
arrivals, or job ads from a file such as kite history -json) and the policies
to compare, each with every seed. Matching runs through the negotiator's own
cycle and ClassAd matchmaking, and the strategies of the live negotiator.

It prints, per policy: makespan, utilization, mean and variance of waiting,
execution and total time, mean slowdown, job passing, JoSchKa's avEff and
avDONE, and the load imbalance M over hosts; per job type and per batch too.
--json and --csv give the raw numbers; --plot draws the running jobs of each
type over time and the work per host as SVG. The same scenario and seed give
the same numbers every time.

Scenario files are TOML; examples/sim holds the papers' setups.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(c.Context(), c.OutOrStdout(), args[0])
		},
	}
	f := c.Flags()
	f.BoolVar(&o.json, "json", false, "print every run's numbers, series and host loads as JSON")
	f.BoolVar(&o.csv, "csv", false, "print one CSV row per run and job type (times in seconds)")
	f.StringVar(&o.plot, "plot", "", "write an SVG plot of running jobs per type and work per host to this file")
	f.UintSliceVar(&o.seeds, "seed", nil, "run with these seeds instead of the scenario's (repeat or comma-separate)")
	f.StringSliceVar(&o.policies, "policy", nil, "run only these policies (by name; repeat or comma-separate)")
	f.IntVar(&o.parallel, "parallel", 0, "runs at once (0: one per CPU)")
	return c
}

func (o *simOptions) run(ctx context.Context, w io.Writer, path string) error {
	if o.json && o.csv {
		return usageError{fmt.Errorf("--json and --csv exclude each other")}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	sc, err := sim.Load(path)
	if err != nil {
		return err
	}
	opt := sim.Options{Policies: o.policies, Parallel: o.parallel}
	for _, s := range o.seeds {
		opt.Seeds = append(opt.Seeds, uint64(s))
	}
	rep, err := sim.Run(ctx, sc, opt)
	if err != nil {
		return err
	}
	if o.plot != "" {
		if err := writePlot(o.plot, rep); err != nil {
			return err
		}
	}
	switch {
	case o.json:
		return sim.WriteJSON(w, rep)
	case o.csv:
		return sim.WriteCSV(w, rep)
	}
	return sim.WriteTable(w, rep)
}

func writePlot(path string, rep *sim.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := sim.WritePlot(f, rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
