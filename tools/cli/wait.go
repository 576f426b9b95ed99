package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/userlog"
)

type waitOptions struct {
	num          int
	wait         int
	echo, status bool
	poll         time.Duration
	progress     bool
	// With -progress: the view, the jobs' states, when it was last drawn.
	d        *display
	lp       *logProgress
	lastShow time.Time
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
with status 1 ("Time expired.").

-progress (the default when standard output is a terminal) shows the jobs'
progress as they go: one line per cluster with a bar (# completed,
x removed, = running, ! held, . idle), the share done, the counts and an
ETA from the rate of the latest completions. -progress=false keeps
condor_wait's output alone. See docs/progress.md.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			var job string
			if len(args) == 2 {
				job = args[1]
			}
			if !c.Flags().Changed("progress") {
				o.progress = isTerminal(c.OutOrStdout())
			}
			return o.run(c.Context(), c.OutOrStdout(), args[0], job)
		},
	}
	f := c.Flags()
	f.IntVar(&o.num, "num", 0, "wait for this many jobs to end (default: all)")
	f.IntVar(&o.wait, "wait", -1, "give up after this many seconds (default: never)")
	f.BoolVar(&o.echo, "echo", false, "print the events as they are read")
	f.BoolVar(&o.status, "status", false, "print when jobs are submitted, start and end")
	f.BoolVar(&o.progress, "progress", false, "show progress bars and an ETA (default: when standard output is a terminal)")
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
	if o.progress {
		o.d, o.lp = newDisplay(w, isTerminal(w)), newLogProgress()
	}
	for {
		if err := o.readAll(r, w, t); err != nil {
			return err
		}
		o.showProgress(false)
		if o.finished(t) {
			o.showProgress(true)
			fmt.Fprintln(w, "All jobs done.")
			return nil
		}
		select {
		case <-ctx.Done():
			o.showProgress(true)
			return ctx.Err()
		case <-deadline:
			o.showProgress(true)
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
		if o.lp != nil {
			o.lp.event(&ev)
		}
		if o.echo {
			o.print(w, string(userlog.Options{}.Append(nil, &ev)))
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
		o.print(w, fmt.Sprintf(format, args...))
	}
}

// print prints text, above the progress view if there is one.
func (o *waitOptions) print(w io.Writer, text string) {
	if o.d != nil {
		o.d.println(text)
		return
	}
	io.WriteString(w, text)
}

// showProgress draws the progress view: on a terminal at most every
// redrawInterval, unless last (the final view, left on the screen).
func (o *waitOptions) showProgress(last bool) {
	if o.d == nil {
		return
	}
	now := time.Now()
	if o.d.tty && !last && now.Sub(o.lastShow) < redrawInterval {
		return
	}
	o.lastShow = now
	o.d.show(o.lp.rows(now), "")
	if last {
		o.d.release()
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
