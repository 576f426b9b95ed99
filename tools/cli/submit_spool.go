package cli

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/spool"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// kite submit --spool (condor_submit -spool; -remote NAME is --name NAME
// --spool): the jobs are queued held, "Spooling input data files" (hold
// code 16), with HTCondor's LeaveJobInQueue for spooled jobs unless the
// file sets one; then each job's input files go to the schedd as a tar
// archive, and the schedd keeps them and releases the job. The submit
// directory may then change or go: the job runs from its copy. kite
// transfer_data fetches the output (transfer_data.go).

// errSpoolFactory refuses to spool a job factory, whose jobs the schedd
// makes later.
var errSpoolFactory = errors.New("--spool: a job factory (max_idle or max_materialize) cannot be spooled: its jobs are made later, at the schedd")

// prepareSpool makes a cluster's jobs wait for their input, checking
// first that every input is a file the tool can read.
func prepareSpool(c *submit.Cluster) error {
	for i := range c.Procs {
		job := c.Job(i)
		id := jobIDOf(job)
		if v, _ := classad.EvalAttr(job, attr.JobStatus, nil); v.String() == strconv.Itoa(attr.Held) {
			return fmt.Errorf("job %s: hold = true cannot be used with --spool or --remote (the job is held until its input is spooled)", id)
		}
		if v, _ := classad.EvalAttr(job, attr.JobUniverse, nil); v.String() == strconv.Itoa(attr.UniverseLocal) || v.String() == strconv.Itoa(attr.UniverseScheduler) {
			return fmt.Errorf("job %s: --spool is for jobs that run on execute machines, not at the schedd (universe local or scheduler)", id)
		}
		if v, _ := classad.EvalAttr(job, attr.ShouldTransferFiles, nil); v.String() == `"NO"` {
			return fmt.Errorf("job %s: should_transfer_files = NO: --spool sends the input files, which the job must transfer", id)
		}
		if _, err := spoolFiles(job); err != nil {
			return fmt.Errorf("job %s: %w", id, err)
		}
	}
	c.Ad.Set(attr.JobStatus, ast.Int(attr.Held))
	c.Ad.Set(attr.HoldReason, ast.Str(attr.SpoolingReason))
	c.Ad.Set(attr.HoldReasonCode, ast.Int(attr.HoldSpoolingInput))
	if e, ok := c.Ad.Lookup(attr.LeaveJobInQueue); !ok || isLiteralFalse(e) {
		leave, err := classad.ParseExpr(attr.LeaveSpooledInQueue)
		if err != nil {
			return err
		}
		c.Ad.Set(attr.LeaveJobInQueue, leave)
	}
	return nil
}

// isLiteralFalse reports whether e is false as written (condor_submit's
// default LeaveJobInQueue).
func isLiteralFalse(e ast.Expr) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.BoolLit && !l.Bool
}

// spoolFile is an input file to send: its name in the archive and where
// it is on this side.
type spoolFile struct{ name, path string }

// spoolFiles lists a job's input files (package spool), each checked to
// be a plain file the tool can read.
func spoolFiles(job *classad.Ad) ([]spoolFile, error) {
	inputs, err := spool.Inputs(job)
	if err != nil {
		return nil, err
	}
	iwd, _ := classad.EvalAttr(job, attr.Iwd, nil)
	dir, _ := iwd.StringValue()
	files := make([]spoolFile, len(inputs))
	for i, in := range inputs {
		path := in.Name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("input file %s: %w", in.Name, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("input file %s: not a plain file (--spool sends files)", in.Name)
		}
		files[i] = spoolFile{in.Name, path}
	}
	return files, nil
}

// sendInputs sends each job's input files to the schedd, which releases
// the job once they are in.
func sendInputs(ctx context.Context, client *wire.Client, c *submit.Cluster) error {
	for i := range c.Procs {
		files, err := spoolFiles(c.Job(i))
		if err == nil {
			err = sendJobInputs(ctx, client, jobIDOf(c.Job(i)), files)
		}
		if err != nil {
			return fmt.Errorf("spooling the input of job %s (it stays held; kite rm it): %w", jobIDOf(c.Job(i)), err)
		}
	}
	return nil
}

// sendJobInputs streams one job's input files as a tar archive.
func sendJobInputs(ctx context.Context, client *wire.Client, id string, files []spoolFile) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeArchive(pw, files)) }()
	body, err := client.SendStream(ctx, "PUT", wire.PathSpoolInput+"?job="+id, pr, wire.ContentTypeTar)
	pr.CloseWithError(errors.New("request ended"))
	if err != nil {
		return err
	}
	io.Copy(io.Discard, body)
	return body.Close()
}

// writeArchive writes files into a tar archive.
func writeArchive(w io.Writer, files []spoolFile) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		if err := addFile(tw, f); err != nil {
			return err
		}
	}
	return tw.Close()
}

// addFile adds one file to an archive.
func addFile(tw *tar.Writer, f spoolFile) error {
	in, err := os.Open(f.path)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	h := &tar.Header{Name: f.name, Mode: int64(fi.Mode().Perm()), Size: fi.Size(), ModTime: fi.ModTime(), Typeflag: tar.TypeReg}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if _, err := io.CopyN(tw, in, fi.Size()); err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	return nil
}

// jobIDOf is a job's id, cluster.proc.
func jobIDOf(job *classad.Ad) string {
	c, _ := classad.EvalAttr(job, attr.ClusterID, nil)
	p, _ := classad.EvalAttr(job, attr.ProcID, nil)
	return c.String() + "." + p.String()
}
