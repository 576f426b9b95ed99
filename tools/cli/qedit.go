package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/wire"
)

type qeditOptions struct {
	g                *globals
	name, constraint string
}

func init() { addCommand(newQeditCmd) }

func newQeditCmd(g *globals) *cobra.Command {
	o := &qeditOptions{g: g}
	c := &cobra.Command{
		Use:   "qedit [options] {cluster | cluster.proc | owner | -constraint EXPR} ATTR VALUE [ATTR VALUE ...]",
		Short: "Set attributes of queued jobs (condor_qedit)",
		Long: `Set attributes of jobs: each VALUE is a ClassAd expression (a string needs
its quotes: kite qedit 12 Note '"hello"'). The jobs are the first argument's
(a cluster, a job or an owner), or those -constraint selects. Attributes the
schedd keeps (ClusterId, ProcId, Owner, JobStatus, ...) cannot be set.`,
		RunE: func(c *cobra.Command, args []string) error { return o.run(c.Context(), c.OutOrStdout(), args) },
	}
	c.Flags().StringVar(&o.name, "name", "", "the schedd (its name or host:port)")
	c.Flags().StringVar(&o.constraint, "constraint", "", "edit the jobs for which the expression is true")
	return c
}

func (o *qeditOptions) run(ctx context.Context, w io.Writer, args []string) error {
	var sel wire.JobSelection
	if o.constraint != "" {
		sel.Constraint = o.constraint
	} else {
		if len(args) == 0 {
			return usageError{errors.New("name a cluster, a job, an owner or -constraint")}
		}
		sel.IDs, sel.Owners = splitArgs(args[:1])
		args = args[1:]
	}
	if len(args) == 0 || len(args)%2 != 0 {
		return usageError{errors.New("give attributes and values in pairs: ATTR VALUE [ATTR VALUE ...]")}
	}
	attrs := map[string]string{}
	var order []string
	for i := 0; i < len(args); i += 2 {
		attrs[args[i]] = args[i+1]
		order = append(order, args[i])
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	res, err := s.api.Edit(ctx, wire.Edit{JobSelection: sel, Attrs: attrs})
	if err != nil {
		return err
	}
	if res.Changed == 0 {
		if res.Denied > 0 {
			return fmt.Errorf("permission denied: %d matching job(s) are not yours", res.Denied)
		}
		return errors.New("no matching jobs")
	}
	for _, a := range order {
		fmt.Fprintf(w, "Set attribute %q for %d matching jobs.\n", a, res.Changed)
	}
	return nil
}
