package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/wire"
)

// The job actions: kite rm, kite hold, kite release, kite vacate_job
// (condor_rm, condor_hold, condor_release, condor_vacate_job).
var actions = []struct {
	use, action, done, short string
}{
	{"rm", wire.ActRemove, "marked for removal", "Remove jobs from the queue (condor_rm)"},
	{"hold", wire.ActHold, "held", "Hold jobs: they do not run until released (condor_hold)"},
	{"release", wire.ActRelease, "released", "Release held jobs (condor_release)"},
	{"vacate_job", wire.ActVacate, "vacated", "Vacate running jobs: they stop and go back to idle (condor_vacate_job)"},
}

type actOptions struct {
	g                *globals
	action, done     string
	name, constraint string
	reason           string
	subcode          int
	all, fast        bool
	forcex, held     bool
}

func init() {
	for _, a := range actions {
		addCommand(func(g *globals) *cobra.Command { return newActCmd(g, a.use, a.action, a.done, a.short) })
	}
}

func newActCmd(g *globals, use, action, done, short string) *cobra.Command {
	o := &actOptions{g: g, action: action, done: done}
	c := &cobra.Command{
		Use:   use + " [options] [cluster | cluster.proc | owner ...]",
		Short: short,
		Long: short + `.

Each argument is a cluster, a job (cluster.proc) or an owner; -constraint
selects the jobs for which an expression is true, -all every job you may
change. Owners may change only their own jobs; administrators anyone's.`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 && o.constraint == "" && !o.all {
				return usageError{errors.New("name jobs, owners, -constraint or -all")}
			}
			return o.run(c.Context(), c.OutOrStdout(), c.ErrOrStderr(), args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd (its name or host:port)")
	f.StringVar(&o.constraint, "constraint", "", "act on the jobs for which the expression is true")
	f.BoolVar(&o.all, "all", false, "act on every job you may change")
	if action == wire.ActHold || action == wire.ActRemove {
		f.StringVar(&o.reason, "reason", "", "the reason to record (HoldReason, RemoveReason)")
	}
	if action == wire.ActHold {
		f.IntVar(&o.subcode, "subcode", 0, "the HoldReasonSubCode to record")
	}
	if action == wire.ActRemove {
		f.BoolVar(&o.forcex, "forcex", false, "remove only jobs in the X (removed) state, at once; Kite removes every job at once, so it leaves none in that state")
		f.BoolVar(&o.held, "held", false, "remove only the held jobs among those selected")
	}
	if action == wire.ActVacate {
		f.BoolVar(&o.fast, "fast", false, "kill the jobs at once, without their soft kill signal first")
	}
	return c
}

func (o *actOptions) run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	failed := 0
	one := func(sel wire.JobSelection, what, none string) error {
		if o.forcex {
			sel.Constraint = xStateOnly(sel.Constraint)
		}
		if o.held {
			sel.Constraint = withStatus(sel.Constraint, 5)
		}
		req := wire.Act{Action: o.action, JobSelection: sel, Reason: o.reason, SubCode: o.subcode, Fast: o.fast}
		res, err := s.api.Act(ctx, req)
		if err != nil {
			return err
		}
		switch {
		case res.Changed > 0 || res.Factories > 0 || res.DAGs > 0:
			fmt.Fprintf(stdout, "%s %s\n", what, o.done)
		case res.Denied > 0:
			failed++
			fmt.Fprintf(stderr, "%s: permission denied (not your jobs)\n", none)
		default:
			failed++
			fmt.Fprintf(stderr, "%s\n", none)
		}
		return nil
	}
	for _, a := range args {
		sel, what, none := o.describe(a)
		if err := one(sel, what, none); err != nil {
			return err
		}
	}
	if o.constraint != "" || o.all {
		sel := wire.JobSelection{Constraint: o.constraint, All: o.all}
		what := fmt.Sprintf("Jobs matching constraint (%s) have been", o.constraint)
		none := fmt.Sprintf("Couldn't find any jobs matching constraint (%s) to act on", o.constraint)
		if o.constraint == "" {
			what, none = "All jobs have been", "Couldn't find any jobs to act on"
		}
		if err := one(sel, what, none); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of the selections changed no job", failed)
	}
	return nil
}

// xStateOnly narrows a constraint to jobs in the X state (JobStatus 3),
// condor_rm -forcex's jobs: HTCondor keeps a removed job there until its
// remote side is cleaned up; Kite's schedd takes a removed job out of the
// queue in the same commit, so none is ever found.
func xStateOnly(constraint string) string { return withStatus(constraint, 3) }

// withStatus narrows a constraint to jobs of one JobStatus (condor_rm
// -forcex: 3, -held: 5).
func withStatus(constraint string, status int) string {
	if constraint == "" {
		return "JobStatus == " + strconv.Itoa(status)
	}
	return "(" + constraint + ") && JobStatus == " + strconv.Itoa(status)
}

// describe turns an argument into a selection and condor_rm's sentences.
func (o *actOptions) describe(a string) (wire.JobSelection, string, string) {
	if !isJobID(a) {
		return wire.JobSelection{Owners: []string{a}},
			fmt.Sprintf("All jobs of user %q have been", a),
			fmt.Sprintf("Couldn't find any jobs of user %q to act on", a)
	}
	sel := wire.JobSelection{IDs: []string{a}}
	if _, _, hasProc := cut(a, '.'); hasProc {
		return sel, "Job " + a, "Job " + a + " not found or not in a state to act on"
	}
	return sel, "All jobs in cluster " + a + " have been", "Couldn't find any jobs in cluster " + a + " to act on"
}

func cut(s string, sep byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
