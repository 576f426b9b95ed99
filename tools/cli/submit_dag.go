package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

type submitDAGOptions struct {
	g                                 *globals
	name, batchName, outfileDir       string
	maxJobs, maxIdle, maxPre, maxPost int
	maxHold                           int
	dagmanConfig                      string
	force, noSubmit, wait             bool
	interval                          time.Duration
	rescueFrom, autoRescue            int
	loadSave                          string
}

func init() { addCommand(newSubmitDAGCmd) }

func newSubmitDAGCmd(g *globals) *cobra.Command {
	o := &submitDAGOptions{g: g}
	c := &cobra.Command{
		Use:   "submit_dag [options] FILE.dag",
		Short: "Submit a DAG of jobs (condor_submit_dag), run durably by the schedd",
		Long: `Read an HTCondor DAG file (DAGMan's language: JOB, PARENT ... CHILD, VARS,
RETRY, SCRIPT PRE/POST, ABORT-DAG-ON, FINAL, SPLICE, ...) and queue it at
the schedd, which runs its nodes as jobs in order. The DAG's state is kept
in the schedd's queue and changes in the same transactions as its jobs, so
a schedd that stops at any moment goes on where it was. A mistake in the
DAG is shown as file:line:col and nothing is submitted. See docs/dag.md.

As condor_submit_dag(1): -maxjobs N (node jobs queued at once), -maxidle N
(idle node jobs), -maxpre N, -maxpost N and -maxhold N (PRE, POST, HOLD
scripts running at once), -batch-name NAME, -outfile_dir DIR. The DAG's
CONFIG file (or -config FILE, --dagman_config) may set DAGMAN_MAX_JOBS_SUBMITTED,
DAGMAN_MAX_JOBS_IDLE, DAGMAN_MAX_PRE_SCRIPTS, DAGMAN_MAX_POST_SCRIPTS,
DAGMAN_MAX_HOLD_SCRIPTS, DAGMAN_MAX_SUBMITS_PER_INTERVAL (node jobs
submitted per 5 s; none by default) and DAGMAN_HOLD_CLAIM_TIME; the
options win over it, and any other setting is ignored with a warning. When the DAG failed before and left
rescue DAGs (FILE.dag.rescue001, ...), the newest is applied (-autorescue
0 turns this off); -DoRescueFrom N applies rescue DAG N; -force ignores
them (renaming them to .old); -load_save FILE applies a SAVE_POINT_FILE's
file instead (a bare name is in save_files/). -no_submit checks the DAG and prints its
nodes without submitting it. "kite q -dag" shows DAGs and their nodes;
"kite rm ID" removes a DAG with its running node jobs.

--wait then waits until the DAG is over and prints its outcome; the
status is condor_dagman's: 0 when it succeeded, 1 when a node failed, 2
when it was removed, ABORT-DAG-ON's value when aborted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(c.Context(), c, c.OutOrStdout(), args[0])
		},
	}
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd to submit to (its name or host:port)")
	f.IntVar(&o.maxJobs, "maxjobs", 0, "the most node jobs queued at once (0: no limit)")
	f.IntVar(&o.maxIdle, "maxidle", 0, "no more node jobs are submitted while this many are idle (0: no limit)")
	f.IntVar(&o.maxPre, "maxpre", 0, "the most PRE scripts running at once (0: no limit)")
	f.IntVar(&o.maxPost, "maxpost", 0, "the most POST scripts running at once (0: no limit)")
	f.IntVar(&o.maxHold, "maxhold", 0, "the most HOLD scripts running at once (0: no limit)")
	f.StringVar(&o.dagmanConfig, "dagman_config", "", "the DAG's DAGMan configuration file (condor_submit_dag -config; as the DAG file's CONFIG)")
	f.BoolVar(&o.force, "force", false, "ignore rescue DAGs, renaming them to .old")
	f.BoolVar(&o.noSubmit, "no_submit", false, "check the DAG and print its nodes; submit nothing")
	f.StringVar(&o.outfileDir, "outfile_dir", "", "where the DAG's own output files go (default: beside the DAG file)")
	f.IntVar(&o.rescueFrom, "dorescuefrom", 0, "apply rescue DAG N (FILE.dag.rescueNNN)")
	f.IntVar(&o.autoRescue, "autorescue", 1, "apply the newest rescue DAG (1) or not (0)")
	f.StringVar(&o.loadSave, "load_save", "", "start from a save point file (SAVE_POINT_FILE; a bare name is in save_files/) instead of a rescue DAG")
	f.StringVar(&o.batchName, "batch-name", "", "the node jobs' batch name (default FILE.dag+ID)")
	f.BoolVar(&o.wait, "wait", false, "wait until the DAG is over; exit with its status")
	f.DurationVar(&o.interval, "interval", time.Second, "with --wait: how often to ask the schedd")
	return c
}

func (o *submitDAGOptions) run(ctx context.Context, c *cobra.Command, stdout io.Writer, file string) error {
	if o.maxJobs < 0 || o.maxIdle < 0 || o.maxPre < 0 || o.maxPost < 0 || o.maxHold < 0 || o.rescueFrom < 0 {
		return usageError{errors.New("throttles and rescue numbers must not be negative")}
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	body := wire.DAGSubmit{File: abs, Files: map[string]string{}, MaxJobs: o.maxJobs, MaxIdle: o.maxIdle,
		MaxPre: o.maxPre, MaxPost: o.maxPost, BatchName: o.batchName, OutfileDir: o.outfileDir}
	d, err := readDAG(abs, body.Files)
	if err != nil {
		return err
	}
	if err := o.applyConfig(c, d, &body); err != nil {
		return err
	}
	if body.Rescue, err = o.rescue(stdout, abs); err != nil {
		return err
	}
	if body.Rescue != "" {
		src, err := os.ReadFile(body.Rescue)
		if err != nil {
			return err
		}
		if err := dag.ApplyRescue(d, body.Rescue, src); err != nil {
			return err
		}
		body.Files[body.Rescue] = string(src)
	}
	if o.noSubmit {
		return dag.Dump(stdout, d)
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	var nc wire.NewCluster
	if err := s.client.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return err
	}
	var res wire.SubmitResult
	if err := s.client.Call(ctx, "POST", wire.PathSubmitDAG+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "Submitting job(s).\n1 job(s) submitted to cluster %d.\nDAG %s: %d node(s), run by the schedd.\n", res.Cluster, file, res.Procs); err != nil {
		return err
	}
	if !o.wait {
		return nil
	}
	return o.waitDAG(ctx, stdout, s, res.Cluster)
}

// dagWaitDown is how long --wait goes on asking a schedd that does not
// answer (one restarting).
const dagWaitDown = 2 * time.Minute

// waitDAG asks the schedd about the DAG until it is over, then prints
// its counts and returns its exit status.
func (o *submitDAGOptions) waitDAG(ctx context.Context, stdout io.Writer, s *scheddConn, id int64) error {
	if o.interval <= 0 {
		return usageError{errors.New("--interval must be positive")}
	}
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	var down time.Time // since when the schedd does not answer
	for {
		var infos []wire.DAGInfo
		q := wire.DAGQuery{IDs: []int64{id}, Finished: true}
		err := s.client.Call(ctx, "POST", wire.PathDAGs, q, &infos)
		switch {
		case err != nil && down.IsZero():
			down = time.Now()
			fallthrough
		case err != nil && time.Since(down) < dagWaitDown:
			// The schedd restarts (at another address, perhaps): the DAG
			// goes on where it was.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
			}
			if again, err := o.g.findSchedd(ctx, o.name); err == nil {
				s = again
			}
			continue
		case err != nil:
			return err
		}
		down = time.Time{}
		if len(infos) != 1 {
			return fmt.Errorf("DAG %d is not in the schedd", id)
		}
		ad, err := classad.ParseJSON(infos[0].Ad)
		if err != nil {
			return err
		}
		if code, over := classad.EvalInt(ad, attr.ExitCode); over {
			fmt.Fprintf(stdout, "DAG %d is over (%s): %s done, %s failed, %s futile of %s node(s); exit status %d.\n", id,
				dagStatusName(ad), str(ad, attr.DAGNodesDone), str(ad, attr.DAGNodesFailed), str(ad, attr.DAGNodesFutile),
				str(ad, attr.DAGNodesTotal), code)
			if code != 0 {
				return exitStatus{code: int(code)}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// readDAG parses the DAG file, keeping the text of it and of every file
// it includes or splices, to send.
func readDAG(abs string, files map[string]string) (*dag.DAG, error) {
	src, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	files[abs] = string(src)
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(name)
		if err == nil {
			files[name] = string(b)
		}
		return b, err
	}
	return dag.Parse(abs, src, dag.Options{Dir: filepath.Dir(abs), ReadFile: read})
}

// rescue picks the rescue DAG to apply: -DoRescueFrom's, else the newest
// (with -autorescue 1), none with -force (which renames them .old).
func (o *submitDAGOptions) rescue(stdout io.Writer, abs string) (string, error) {
	newest, err := dag.NewestRescue(abs, func(name string) error { _, err := os.Stat(name); return err })
	if err != nil {
		return "", err
	}
	switch {
	case o.loadSave != "":
		name := dag.SavePointPath(filepath.Dir(abs), o.loadSave)
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("-load_save: %w", err)
		}
		fmt.Fprintf(stdout, "Running from save point file %s\n", name)
		return name, nil
	case o.force:
		for n := 1; n <= newest; n++ {
			if err := os.Rename(dag.RescueName(abs, n), dag.RescueName(abs, n)+".old"); err != nil {
				return "", err
			}
		}
		return "", nil
	case o.rescueFrom > 0:
		name := dag.RescueName(abs, o.rescueFrom)
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("-DoRescueFrom %d: %w", o.rescueFrom, err)
		}
		fmt.Fprintf(stdout, "Running rescue DAG %d\n", o.rescueFrom)
		return name, nil
	case o.autoRescue != 0 && newest > 0:
		fmt.Fprintf(stdout, "Running rescue DAG %d\n", newest)
		return dag.RescueName(abs, newest), nil
	}
	return "", nil
}

// applyConfig sets the DAG's throttles from the options and from its
// DAGMan configuration file (the DAG's CONFIG, or -config), as
// condor_dagman reads its DAGMAN_* settings (the HTCondor manual,
// dagman-reference.rst "CONFIG"): an option given wins over the file,
// a setting Kite does not apply is shown as a warning.
func (o *submitDAGOptions) applyConfig(c *cobra.Command, d *dag.DAG, body *wire.DAGSubmit) error {
	name := d.Config
	if o.dagmanConfig != "" {
		abs, err := filepath.Abs(o.dagmanConfig)
		if err != nil {
			return err
		}
		o.dagmanConfig = abs
	}
	switch {
	case o.dagmanConfig != "" && name != "" && filepath.Clean(inDAGDir(d.File, name)) != filepath.Clean(o.dagmanConfig):
		return fmt.Errorf("-config %s and the DAG's CONFIG %s: a DAG has one configuration file", o.dagmanConfig, name)
	case o.dagmanConfig != "":
		name = o.dagmanConfig
	case name != "":
		name = inDAGDir(d.File, name)
	}
	var k dag.Knobs
	if name != "" {
		src, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("the DAG's configuration file: %w", err)
		}
		var warns []*dag.Error
		if k, warns, err = dag.ParseKnobs(name, src); err != nil {
			return err
		}
		for _, w := range warns {
			fmt.Fprintf(c.ErrOrStderr(), "Warning: %s\n", w)
		}
	}
	f := c.Flags()
	for _, x := range []struct {
		flag string
		opt  int
		knob *int
		dst  *int
	}{
		{"maxjobs", o.maxJobs, k.MaxJobs, &body.MaxJobs}, {"maxidle", o.maxIdle, k.MaxIdle, &body.MaxIdle},
		{"maxpre", o.maxPre, k.MaxPre, &body.MaxPre}, {"maxpost", o.maxPost, k.MaxPost, &body.MaxPost},
		{"maxhold", o.maxHold, k.MaxHold, &body.MaxHold}, {"", 0, k.MaxSubmits, &body.MaxSubmits},
	} {
		switch {
		case x.flag != "" && f.Changed(x.flag):
			*x.dst = x.opt
		case x.knob != nil:
			*x.dst = *x.knob
		}
	}
	body.HoldClaimTime = k.HoldClaimTime
	return nil
}

// inDAGDir is a path a DAG file names, from the DAG file's directory.
func inDAGDir(dagFile, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(dagFile), name)
}
