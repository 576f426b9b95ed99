package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/wire"
)

func init() { addCommand(newDAGCmd) }

// newDAGCmd is kite dag, HTCondor's htcondor dag noun: for now its
// throttle verb.
func newDAGCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "dag",
		Short: "Act on a running DAG (htcondor dag)",
	}
	c.AddCommand(newDAGThrottleCmd(g))
	return c
}

type dagThrottleOptions struct {
	g                                     *globals
	name                                  string
	nodes, idle, pre, post, hold, submits int
}

func newDAGThrottleCmd(g *globals) *cobra.Command {
	o := &dagThrottleOptions{g: g}
	c := &cobra.Command{
		Use:   "throttle [--nodes N] [--idle N] [--pre N] [--hold N] [--post N] [--submissions N] DAG-ID",
		Short: "Change a running DAG's throttles (htcondor dag throttle)",
		Long: `Change the throttles of a DAG that runs, as htcondor dag throttle does
(the HTCondor manual, dagman-interaction.rst "Editing DAG Throttles"):
--nodes N (node jobs queued at once: submit_dag's -maxjobs), --idle N
(-maxidle), --pre N, --hold N and --post N (scripts running at once;
-maxpre, -maxhold, -maxpost), --submissions N (node jobs submitted in
each submit interval of 5 s: DAGMAN_MAX_SUBMITS_PER_INTERVAL); 0 is no
limit. At least one is needed. The schedd keeps the new values with the
DAG, so they outlive its restarts, and applies them at once: node jobs
already queued and scripts already running stay, and a lower throttle
holds the next ones back. It prints the throttles in effect; the DAG's
ad shows them too (DAGMan_MaxJobs, DAGMan_MaxIdle, DAGMan_MaxPreScripts,
DAGMan_MaxHoldScripts, DAGMan_MaxPostScripts,
DAGMan_MaxSubmitsPerInterval).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(c.Context(), c, c.OutOrStdout(), args[0])
		},
	}
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd that runs the DAG (its name or host:port)")
	f.IntVar(&o.nodes, "nodes", 0, "the most node jobs queued at once (0: no limit)")
	f.IntVar(&o.idle, "idle", 0, "no more node jobs are submitted while this many are idle (0: no limit)")
	f.IntVar(&o.pre, "pre", 0, "the most PRE scripts running at once (0: no limit)")
	f.IntVar(&o.post, "post", 0, "the most POST scripts running at once (0: no limit)")
	f.IntVar(&o.hold, "hold", 0, "the most HOLD scripts running at once (0: no limit)")
	f.IntVar(&o.submits, "submissions", 0, "the most node jobs submitted in each submit interval of 5 s (0: no limit)")
	return c
}

func (o *dagThrottleOptions) run(ctx context.Context, c *cobra.Command, w io.Writer, arg string) error {
	id, err := strconv.ParseInt(strings.TrimSuffix(arg, ".0"), 10, 64)
	if err != nil || id < 1 {
		return usageError{fmt.Errorf("%q is not a DAG's id (the cluster kite submit_dag printed)", arg)}
	}
	body := wire.DAGThrottle{ID: id}
	for _, f := range []struct {
		flag string
		v    *int
		dst  **int
	}{{"nodes", &o.nodes, &body.MaxJobs}, {"idle", &o.idle, &body.MaxIdle}, {"pre", &o.pre, &body.MaxPre},
		{"hold", &o.hold, &body.MaxHold}, {"post", &o.post, &body.MaxPost}, {"submissions", &o.submits, &body.MaxSubmits}} {
		if !c.Flags().Changed(f.flag) {
			continue
		}
		if *f.v < 0 {
			return usageError{fmt.Errorf("--%s %d: throttles must not be negative (0 is no limit)", f.flag, *f.v)}
		}
		*f.dst = f.v
	}
	if body == (wire.DAGThrottle{ID: id}) {
		return usageError{errors.New("give at least one of --nodes, --idle, --pre, --hold, --post, --submissions")}
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	var out wire.DAGThrottles
	if err := s.client.Call(ctx, "POST", wire.PathDAGThrottle, body, &out); err != nil {
		return err
	}
	limit := func(n int) string {
		if n == 0 {
			return "none"
		}
		return strconv.Itoa(n)
	}
	_, err = fmt.Fprintf(w, "DAG %d throttles: nodes %s, idle %s, pre %s, hold %s, post %s, submissions %s\n", id,
		limit(out.MaxJobs), limit(out.MaxIdle), limit(out.MaxPre), limit(out.MaxHold), limit(out.MaxPost), limit(out.MaxSubmits))
	return err
}
