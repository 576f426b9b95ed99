package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/daemons/schedd/userlog"
)

type waitOptions struct {
	num          int
	wait         int
	echo, status bool
	poll         time.Duration
}

func init() {
	addCommand(func(*globals) *cobra.Command { return newWaitCmd() })
}

func newWaitCmd() *cobra.Command {
	o := &waitOptions{poll: 100 * time.Millisecond}
	c := &cobra.Command{
		Use:   "wait [options] LOG [cluster | cluster.proc]",
		Short: "Wait for the jobs of a job event log to finish (condor_wait)",
		Long: `Watch a job event log (the submit file's log) until every job submitted to
it has terminated or been removed, or the number -num says. A job id limits
the watch to one cluster or job. -wait gives up after that many seconds,
with status 1 ("Time expired.").`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			var job string
			if len(args) == 2 {
				job = args[1]
			}
			return o.run(c.Context(), c.OutOrStdout(), args[0], job)
		},
	}
	f := c.Flags()
	f.IntVar(&o.num, "num", 0, "wait for this many jobs to end (default: all)")
	f.IntVar(&o.wait, "wait", -1, "give up after this many seconds (default: never)")
	f.BoolVar(&o.echo, "echo", false, "print the events as they are read")
	f.BoolVar(&o.status, "status", false, "print when jobs are submitted, start and end")
	return c
}

// tracker counts the jobs of a log that were submitted and that ended.
type tracker struct {
	cluster, proc int64 // the job id filter; 0 and -1 for none
	submitted     map[userlog.JobID]bool
	ended         map[userlog.JobID]bool
}

func (t *tracker) wants(id userlog.JobID) bool {
	return (t.cluster == 0 || id.Cluster == t.cluster) && (t.proc < 0 || id.Proc == t.proc)
}

func (o *waitOptions) run(ctx context.Context, w io.Writer, log, job string) error {
	t := &tracker{proc: -1, submitted: map[userlog.JobID]bool{}, ended: map[userlog.JobID]bool{}}
	if job != "" {
		if !isJobID(job) {
			return usageError{fmt.Errorf("%q is not a job id (cluster or cluster.proc)", job)}
		}
		fmt.Sscanf(job, "%d.%d", &t.cluster, &t.proc)
	}
	f, err := os.Open(log)
	if err != nil {
		return fmt.Errorf("cannot open the job event log: %w", err)
	}
	defer f.Close()
	r := userlog.NewReader(f, log)
	var deadline <-chan time.Time
	if o.wait >= 0 {
		timer := time.NewTimer(time.Duration(o.wait) * time.Second)
		defer timer.Stop()
		deadline = timer.C
	}
	for {
		if err := o.readAll(r, w, t); err != nil {
			return err
		}
		if o.finished(t) {
			fmt.Fprintln(w, "All jobs done.")
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return errors.New("Time expired.")
		case <-time.After(o.poll):
		}
	}
}

// readAll reads the events written so far.
func (o *waitOptions) readAll(r *userlog.Reader, w io.Writer, t *tracker) error {
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return nil
		}
		var se *userlog.SyntaxError
		if errors.As(err, &se) {
			return err
		}
		if err != nil {
			return err
		}
		if !t.wants(ev.Job) {
			continue
		}
		id := userlog.JobID{Cluster: ev.Job.Cluster, Proc: ev.Job.Proc}
		if o.echo {
			fmt.Fprint(w, string(userlog.Options{}.Append(nil, &ev)))
		}
		switch ev.Code {
		case userlog.Submit:
			t.submitted[id] = true
			o.say(w, "%s submitted\n", id)
		case userlog.Execute:
			o.say(w, "%s executing on host %s\n", id, ev.Host)
		case userlog.Terminated, userlog.Aborted:
			t.ended[id] = true
			o.say(w, "%s completed\n", id)
		}
	}
}

func (o *waitOptions) say(w io.Writer, format string, args ...any) {
	if o.status {
		fmt.Fprintf(w, format, args...)
	}
}

// finished reports whether the wait is over.
func (o *waitOptions) finished(t *tracker) bool {
	if o.num > 0 {
		return len(t.ended) >= o.num
	}
	if len(t.submitted) == 0 {
		return false
	}
	for id := range t.submitted {
		if !t.ended[id] {
			return false
		}
	}
	return true
}
