package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

type submitOptions struct {
	g         *globals
	name      string
	dryRun    string        // --dry-run[=FILE]: "" off, "-" standard output
	wait      waitFlag      // --wait[=TIMEOUT]
	interval  time.Duration // how often --wait asks the schedd
	appends   []string      // -append / -a
	queue     string        // -queue
	batchName string        // -batch-name
	file      string        // -file
	terse     bool
	verbose   bool
	// interactive: a placeholder job with a shell in it (submit_interactive.go)
	interactive bool
	// spool sends the jobs' input files to the schedd (submit_spool.go);
	// remote is -remote NAME: --name NAME --spool.
	spool  bool
	remote string
}

func init() { addCommand(newSubmitCmd) }

func newSubmitCmd(g *globals) *cobra.Command {
	o := &submitOptions{g: g}
	c := &cobra.Command{
		Use:   "submit [options] [name=value ...] [FILE]",
		Short: "Submit the jobs a submit description file describes (condor_submit)",
		Long: `Read an HTCondor submit description file and queue its jobs at the schedd,
as one cluster: "N job(s) submitted to cluster C." FILE "-" reads standard
input, as does no FILE without --queue. Relative names are resolved
against the current directory, as condor_submit does. An error names
file:line and submits nothing.

As condor_submit(1): name=value arguments define submit commands or
macros as if written at the top of the file (the file's own definitions
win); -a/--append "cmd = value" (repeatable) adds commands just before
each queue statement; --queue ARGS is the queue statement of a file
without one (with condor_submit's single-dash -queue, the words up to the
next option); --batch-name NAME sets JobBatchName over the file's;
--terse prints "C.first - C.last"; --verbose (implied by FILE "-" unless
--terse) prints each job's ad after "** Proc C.P:"; --file FILE is FILE.

--spool (condor_submit -spool; --remote NAME is --name NAME --spool)
sends each job's input files to the schedd, which keeps them and runs the
job from its copy; the completed job stays in the queue with its output
until kite transfer_data fetches it (docs/transfer.md).

--dry-run prints the job ads instead, in long form, and sends nothing;
--dry-run=FILE (condor_submit's -dry-run FILE) writes them to FILE and
prints what submitting would.

--wait then watches the cluster, with a progress bar, until every job has
left the queue (condor_submit followed by condor_wait), and prints a
summary. The status is 0 only when every job completed with exit code 0;
it is 1 when a job exited non-zero or by a signal, was removed, or when
every job left in the queue is held (the hold reasons are printed; the
jobs stay queued), and on a timeout: --wait=10m (or seconds, --wait=600)
gives up after that long ("Time expired."). See docs/progress.md.`,
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(c.Context(), c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr(), args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd to submit to (its name or host:port)")
	f.StringVar(&o.dryRun, "dry-run", "", "print the job ads (=FILE: write them to FILE) instead of submitting them")
	f.Lookup("dry-run").NoOptDefVal = "-"
	f.SetAnnotation("dry-run", condorWords, []string{condorOneWord})
	f.Var(&o.wait, "wait", "wait for the jobs to leave the queue, showing progress; =TIMEOUT gives up after that long")
	f.Lookup("wait").NoOptDefVal = "forever"
	f.DurationVar(&o.interval, "interval", 2*time.Second, "with --wait: how often to ask the schedd")
	f.StringArrayVarP(&o.appends, "append", "a", nil, `a submit command ("cmd = value") read just before each queue statement; repeatable`)
	f.StringVar(&o.queue, "queue", "", "the queue statement's arguments, for a file without one")
	f.SetAnnotation("queue", condorWords, []string{condorManyWords})
	f.StringVar(&o.batchName, "batch-name", "", "the batch name (JobBatchName), over the file's")
	f.StringVar(&o.file, "file", "", "the submit description file (as FILE)")
	f.BoolVar(&o.terse, "terse", false, `print only the job ids: "C.first - C.last"`)
	f.BoolVar(&o.verbose, "verbose", false, `print each job's ad after "** Proc C.P:" instead of the summary`)
	f.BoolVar(&o.spool, "spool", false, "send the jobs' input files to the schedd, which keeps them and the output until kite transfer_data fetches it")
	f.StringVar(&o.remote, "remote", "", "submit to this schedd, spooling the input (--name NAME --spool)")
	f.BoolVar(&o.interactive, "interactive", false, "claim a slot for a shell: submit a placeholder job, open a shell in it once it runs, remove it when the shell exits")
	return c
}

// submitArgs sorts kite submit's arguments: name=value words are
// definitions, any other is the file (one at most, and not with --file).
func (o *submitOptions) submitArgs(args []string) (file string, vars []string, err error) {
	file = o.file
	for _, a := range args {
		if strings.Contains(a, "=") {
			vars = append(vars, a)
			continue
		}
		if file != "" {
			return "", nil, usageError{fmt.Errorf("more than one submit file: %s and %s", file, a)}
		}
		file = a
	}
	return file, vars, nil
}

// commandLine is what the options add to the submit file, -batch-name
// last so that it wins, as condor_submit appends it: MY.JobBatchName =
// "NAME" (a NAME already in quotes as it is).
func (o *submitOptions) commandLine(vars []string) (submit.CommandLine, error) {
	cl := submit.CommandLine{Vars: vars, Append: o.appends, Queue: o.queue}
	if name := o.batchName; name != "" {
		if !strings.HasPrefix(name, `"`) {
			if strings.ContainsAny(name, "\"\\") {
				return cl, usageError{fmt.Errorf("--batch-name %s: a name with quotes or backslashes must be given as a ClassAd string, in quotes", name)}
			}
			name = `"` + name + `"`
		}
		cl.Append = append(slices.Clone(cl.Append), "MY.JobBatchName = "+name)
	}
	return cl, nil
}

func (o *submitOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	file, vars, err := o.submitArgs(args)
	if err != nil {
		return err
	}
	cl, err := o.commandLine(vars)
	if err != nil {
		return err
	}
	if o.interactive {
		if cl, err = o.interactiveLine(file, cl); err != nil {
			return err
		}
	}
	if o.remote != "" {
		if o.name != "" && o.name != o.remote {
			return usageError{fmt.Errorf("--remote %s and --name %s name two schedds", o.remote, o.name)}
		}
		o.name, o.spool = o.remote, true
	}
	if o.spool && o.interactive {
		return usageError{errors.New("--spool (or --remote) and --interactive cannot be used together")}
	}
	if o.wait.on && o.interval <= 0 {
		return usageError{fmt.Errorf("--interval must be positive")}
	}
	src, name, err := readSubmitSource(stdin, file, cl)
	if err != nil {
		return err
	}
	d, warns, err := submit.ParseWith(name, src, cl)
	printWarnings(stderr, warns)
	if err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	env := submit.LocalEnv(dir)
	env.Version = "kite " + daemon.Version
	if name != "-" && name != "(command line)" {
		env.SubmitFile, _ = filepath.Abs(name)
	}
	verbose := o.verbose || (file == "-" && !o.terse)
	if o.dryRun != "" {
		return o.dryRunTo(stdout, stderr, d, env, verbose)
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	var prepare func(*submit.Cluster) error
	if o.spool {
		prepare = prepareSpool
	}
	res, c, err := sendCluster(ctx, s.client, d, env, stderr, prepare)
	if err != nil {
		return err
	}
	if o.spool {
		if err := sendInputs(ctx, s.client, c); err != nil {
			return err
		}
	}
	if err := o.report(stdout, c, res.Procs, res.Cluster, "submitted", verbose); err != nil {
		return err
	}
	if o.interactive {
		return o.attach(ctx, s, stdin, stdout, stderr, res)
	}
	if !o.wait.on {
		return nil
	}
	return o.waitForCluster(ctx, s, stdout, res.Cluster)
}

// dryRunTo expands the description as cluster 1 and prints the job ads,
// or writes them to the --dry-run file and prints the summary.
func (o *submitOptions) dryRunTo(stdout, stderr io.Writer, d *submit.Description, env submit.Env, verbose bool) error {
	env.Cluster, env.Owner = 1, currentUser()
	c, warns, err := d.Expand(env)
	printWarnings(stderr, warns)
	if err != nil {
		return err
	}
	if o.dryRun == "-" {
		if err := printCluster(stdout, c); err != nil {
			return err
		}
		if o.terse {
			return o.report(stdout, c, len(c.Procs), 1, "dry-run", false)
		}
		return nil
	}
	f, err := os.Create(o.dryRun)
	if err != nil {
		return err
	}
	err = printCluster(f, c)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return o.report(stdout, c, len(c.Procs), 1, "dry-run", verbose)
}

// report prints what condor_submit prints once the jobs are in: with
// --terse "C.first - C.last", with --verbose each job's ad after "** Proc
// C.P:", else "N job(s) submitted to cluster C." (verb "dry-run" for a
// dry run). procs is the number of jobs; c is nil for a job factory
// (max_idle, max_materialize), whose jobs the schedd makes later.
func (o *submitOptions) report(w io.Writer, c *submit.Cluster, procs int, cluster int64, verb string, verbose bool) error {
	var err error
	switch {
	case o.terse:
		_, err = fmt.Fprintf(w, "%d.0 - %d.%d\n", cluster, cluster, procs-1)
	case verbose && c != nil:
		for i := range c.Procs {
			if _, err = fmt.Fprintf(w, "\n** Proc %d.%d:\n", cluster, i); err != nil {
				return err
			}
			if err = printLong(w, []*classad.Ad{c.Job(i)}); err != nil {
				return err
			}
		}
	default:
		_, err = fmt.Fprintf(w, "%d job(s) %s to cluster %d.\n", procs, verb, cluster)
	}
	return err
}

// submitTo asks the schedd for a cluster id, expands the description with
// it and sends the cluster: the code path of kite submit.
func submitTo(ctx context.Context, c *wire.Client, d *submit.Description, env submit.Env, stderr io.Writer) (wire.SubmitResult, error) {
	res, _, err := sendCluster(ctx, c, d, env, stderr, nil)
	return res, err
}

// sendCluster is submitTo, returning the cluster sent too; prepare, when
// set, changes the cluster before it is sent (--spool).
func sendCluster(ctx context.Context, c *wire.Client, d *submit.Description, env submit.Env, stderr io.Writer, prepare func(*submit.Cluster) error) (wire.SubmitResult, *submit.Cluster, error) {
	var nc wire.NewCluster
	if err := c.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return wire.SubmitResult{}, nil, err
	}
	env.Cluster, env.Owner, env.MaxJobs = int(nc.Cluster), nc.Owner, nc.MaxJobs
	cl, late, warns, err := d.ExpandLate(env)
	printWarnings(stderr, warns)
	if err != nil {
		return wire.SubmitResult{}, nil, err
	}
	if late != nil { // max_idle or max_materialize: a job factory, no cluster of ads
		if prepare != nil {
			return wire.SubmitResult{}, nil, errSpoolFactory
		}
		var res wire.SubmitResult
		err = c.CallRaw(ctx, "POST", wire.PathSubmitFactory+"?cluster="+strconv.FormatInt(nc.Cluster, 10), late.AppendJSON(nil), &res)
		return res, nil, err
	}
	if len(cl.Procs) == 0 {
		return wire.SubmitResult{}, nil, fmt.Errorf("%s: no jobs to submit (queue 0)", d.File())
	}
	if prepare != nil {
		if err := prepare(cl); err != nil {
			return wire.SubmitResult{}, nil, err
		}
	}
	body := cl.AppendJSON(nil)
	var res wire.SubmitResult
	err = c.CallRaw(ctx, "POST", wire.PathSubmit+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res)
	return res, cl, err
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

// readSubmitSource reads the submit file: FILE, standard input for "-",
// and for no FILE standard input too, unless the command line says all
// (a queue statement and some commands), as condor_submit(1) reads it.
// It returns the text and the name errors give it.
func readSubmitSource(stdin io.Reader, file string, cl submit.CommandLine) ([]byte, string, error) {
	switch {
	case file == "" && cl.Queue != "" && len(cl.Vars)+len(cl.Append) > 0:
		return nil, "(command line)", nil
	case file == "" || file == "-":
		src, err := io.ReadAll(stdin)
		return src, "-", err
	}
	src, err := os.ReadFile(file)
	return src, file, err
}
