package cli

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// kite transfer_data (condor_transfer_data) fetches the output of
// completed jobs submitted with kite submit --spool (or --remote): the
// schedd kept it in each job's spool directory, and the job in the queue
// (state C). The files land where the job would have written them without
// spooling, under its submit directory (SUBMIT_Iwd), written by the tool
// as the user who runs it; then the jobs leave the queue.

func init() { addCommand(newTransferDataCmd) }

type transferDataOptions struct {
	g                *globals
	name, constraint string
	all              bool
}

func newTransferDataCmd(g *globals) *cobra.Command {
	o := &transferDataOptions{g: g}
	c := &cobra.Command{
		Use:   "transfer_data [options] [cluster | cluster.proc | user ...]",
		Short: "Fetch the output of jobs submitted with --spool (condor_transfer_data)",
		Long: `Fetch the output the schedd kept for completed jobs submitted with
kite submit --spool or --remote (condor_submit -spool), into each job's
submit directory: the files the job wrote, its standard output and error
where the submit file named them. The jobs then leave the queue.

Each argument is a cluster, a job (cluster.proc) or a user; -constraint
selects the jobs for which an expression is true, -all every spooled job
you may fetch. Only a job's owner or an administrator may fetch its
output. Spooled jobs that have not completed are skipped, and named.`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 && o.constraint == "" && !o.all {
				return usageError{errors.New("name jobs, users, -constraint or -all")}
			}
			return o.run(c.Context(), c.OutOrStdout(), c.ErrOrStderr(), args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd (its name or host:port)")
	f.StringVar(&o.constraint, "constraint", "", "the jobs for which the expression is true")
	f.BoolVar(&o.all, "all", false, "every spooled job you may fetch")
	f.StringVar(&o.name, "addr", "", "the schedd's address (as -name host:port)")
	return c
}

// spooledJob is what transfer_data needs of a spooled job.
type spooledJob struct {
	id, owner, iwd string
	status         int64
	// renames maps the spool directory's names of the job's standard
	// output and error to the paths they go to, when in another directory.
	renames map[string]string
}

// spooledAttrs is the projection of the query for spooled jobs.
var spooledAttrs = []string{attr.ClusterID, attr.ProcID, attr.Owner, attr.JobStatus, attr.SubmitIwd,
	attr.Out, attr.Err, attr.SubmitOut, attr.SubmitErr}

func (o *transferDataOptions) run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	s, err := o.g.findSchedd(ctx, strings.Trim(o.name, "<>")) // -addr "<host:port>"
	if err != nil {
		return err
	}
	return o.fetch(ctx, s.client, stdout, stderr, args)
}

// fetch fetches the selected jobs' output from the schedd c and lets
// them leave the queue.
func (o *transferDataOptions) fetch(ctx context.Context, c *wire.Client, stdout, stderr io.Writer, args []string) error {
	jobs, err := o.spooledJobs(ctx, c, args)
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		return errors.New("no spooled jobs (kite submit --spool) match")
	}
	fmt.Fprintln(stdout, "Fetching data files...")
	var done []string
	for _, j := range jobs {
		if j.status != attr.Completed {
			fmt.Fprintf(stderr, "Job %s has not completed (status %s): its output is not ready\n", j.id, attr.StatusLetter(j.status))
			continue
		}
		err := fetchOutput(ctx, c, j)
		var we *wire.Error
		if errors.As(err, &we) && we.Code == wire.CodeForbidden {
			fmt.Fprintf(stderr, "Job %s: %v\n", j.id, we)
			continue
		}
		if err != nil {
			return fmt.Errorf("job %s: %w (the job stays in the queue; run kite transfer_data again)", j.id, err)
		}
		done = append(done, j.id)
	}
	if len(done) == 0 {
		return errors.New("no spooled job's output fetched")
	}
	var res wire.ActResult
	if err := c.Call(ctx, "POST", wire.PathSpoolDone, wire.SpoolDone{IDs: done}, &res); err != nil {
		return fmt.Errorf("fetched the output, but the jobs could not leave the queue: %w", err)
	}
	return nil
}

// spooledJobs queries the selected jobs that were spooled.
func (o *transferDataOptions) spooledJobs(ctx context.Context, c *wire.Client, args []string) ([]spooledJob, error) {
	var sel wire.JobSelection
	for _, a := range args {
		if isJobID(a) {
			sel.IDs = append(sel.IDs, a)
		} else {
			sel.Owners = append(sel.Owners, a)
		}
	}
	spooled := attr.SubmitIwd + " =!= undefined"
	sel.Constraint = spooled
	if o.constraint != "" {
		sel.Constraint = "(" + o.constraint + ") && " + spooled
	}
	var jobs []spooledJob
	err := streamRows(ctx, c, wire.PathQueue, wire.JobQuery{JobSelection: sel, Projection: spooledAttrs}, func(r *row) error {
		j := spooledJob{id: r.id(), owner: r.str(attr.Owner), iwd: r.str(attr.SubmitIwd), status: r.int(attr.JobStatus), renames: map[string]string{}}
		for _, p := range [][2]string{{attr.Out, attr.SubmitOut}, {attr.Err, attr.SubmitErr}} {
			if to := r.str(p[1]); to != "" {
				j.renames[r.str(p[0])] = to
			}
		}
		jobs = append(jobs, j)
		return nil
	})
	return jobs, err
}

// fetchOutput fetches a job's output archive and writes its files.
func fetchOutput(ctx context.Context, c *wire.Client, j spooledJob) error {
	body, err := c.SendStream(ctx, "GET", wire.PathSpoolOutput+"?job="+j.id, nil, "")
	if err != nil {
		return err
	}
	defer body.Close()
	tr := tar.NewReader(body)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the output archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(h.Name) {
			return fmt.Errorf("the output archive holds %q, not a plain file of the job's directory", h.Name)
		}
		if err := writeOutput(tr, j.target(h.Name), os.FileMode(h.Mode).Perm()); err != nil {
			return err
		}
	}
}

// target is where an output file goes: a renamed standard output or
// error to its path, any other file under the submit directory.
func (j spooledJob) target(name string) string {
	path := filepath.FromSlash(name)
	if to, ok := j.renames[name]; ok {
		path = to
	}
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(j.iwd, path)
}

// writeOutput writes one file beside its place and renames it there.
func writeOutput(r io.Reader, path string, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".kite-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, r)
	if err == nil {
		err = tmp.Chmod(perm | 0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}
