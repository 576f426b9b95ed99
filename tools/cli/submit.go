package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

type submitOptions struct {
	g        *globals
	name     string
	dryRun   bool
	wait     waitFlag      // --wait[=TIMEOUT]
	interval time.Duration // how often --wait asks the schedd
}

func init() { addCommand(newSubmitCmd) }

func newSubmitCmd(g *globals) *cobra.Command {
	o := &submitOptions{g: g}
	c := &cobra.Command{
		Use:   "submit [options] FILE",
		Short: "Submit the jobs a submit description file describes (condor_submit)",
		Long: `Read an HTCondor submit description file and queue its jobs at the schedd,
as one cluster: "N job(s) submitted to cluster C." FILE "-" reads standard
input. Relative names are resolved against the current directory, as
condor_submit does. An error names file:line and submits nothing.

--dry-run prints the job ads instead, in long form, and sends nothing.

--wait then watches the cluster, with a progress bar, until every job has
left the queue (condor_submit followed by condor_wait), and prints a
summary. The status is 0 only when every job completed with exit code 0;
it is 1 when a job exited non-zero or by a signal, was removed, or when
every job left in the queue is held (the hold reasons are printed; the
jobs stay queued), and on a timeout: --wait=10m (or seconds, --wait=600)
gives up after that long ("Time expired."). See docs/progress.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(c.Context(), c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr(), args[0])
		},
	}
	c.Flags().StringVar(&o.name, "name", "", "the schedd to submit to (its name or host:port)")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the job ads instead of submitting them")
	c.Flags().Var(&o.wait, "wait", "wait for the jobs to leave the queue, showing progress; =TIMEOUT gives up after that long")
	c.Flags().Lookup("wait").NoOptDefVal = "forever"
	c.Flags().DurationVar(&o.interval, "interval", 2*time.Second, "with --wait: how often to ask the schedd")
	return c
}

func (o *submitOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, file string) error {
	src, err := readSubmitFile(stdin, file)
	if err != nil {
		return err
	}
	d, warns, err := submit.Parse(file, src)
	for _, w := range warns {
		fmt.Fprintf(stderr, "Warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	env := submit.LocalEnv(dir)
	if o.wait.on && o.interval <= 0 {
		return usageError{fmt.Errorf("--interval must be positive")}
	}
	if o.dryRun {
		env.Cluster, env.Owner = 1, currentUser()
		c, warns, err := d.Expand(env)
		printWarnings(stderr, warns)
		if err != nil {
			return err
		}
		return printCluster(stdout, c)
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	res, err := submitTo(ctx, s.client, d, env, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d job(s) submitted to cluster %d.\n", res.Procs, res.Cluster)
	if !o.wait.on {
		return nil
	}
	return o.waitForCluster(ctx, s, stdout, res.Cluster)
}

// submitTo asks the schedd for a cluster id, expands the description with
// it and sends the cluster: the code path of kite submit.
func submitTo(ctx context.Context, c *wire.Client, d *submit.Description, env submit.Env, stderr io.Writer) (wire.SubmitResult, error) {
	var nc wire.NewCluster
	if err := c.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return wire.SubmitResult{}, err
	}
	env.Cluster, env.Owner, env.MaxJobs = int(nc.Cluster), nc.Owner, nc.MaxJobs
	cl, warns, err := d.Expand(env)
	printWarnings(stderr, warns)
	if err != nil {
		return wire.SubmitResult{}, err
	}
	if len(cl.Procs) == 0 {
		return wire.SubmitResult{}, fmt.Errorf("%s: no jobs to submit (queue 0)", d.File())
	}
	body := cl.AppendJSON(nil)
	var res wire.SubmitResult
	err = c.CallRaw(ctx, "POST", wire.PathSubmit+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res)
	return res, err
}

func printWarnings(w io.Writer, warns []submit.Warning) {
	for _, x := range warns {
		fmt.Fprintf(w, "Warning: %s\n", x)
	}
}

// printCluster prints every job of a cluster in long form.
func printCluster(w io.Writer, c *submit.Cluster) error {
	ads := make([]*classad.Ad, len(c.Procs))
	for i := range c.Procs {
		ads[i] = c.Job(i)
	}
	return printLong(w, ads)
}

func readSubmitFile(stdin io.Reader, file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(file)
}
