package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// watchOptions say how often a watch asks and when it stops.
type watchOptions struct {
	interval time.Duration // between polls of the schedd
	timeout  time.Duration // give up after this long; 0: never
	exitHeld bool          // stop as soon as a watched job is held
	// stopStuck stops when every job left in the queue is held: nothing
	// moves until someone releases them.
	stopStuck bool
	schedd    string // the schedd's name, for the status line
}

// watchEnd says why a watch ended.
type watchEnd int

const (
	endDone        watchEnd = iota // every job left the queue
	endHeld                        // a job is held (exitHeld)
	endStuck                       // every queued job is held (stopStuck)
	endTimeout                     // the timeout passed
	endInterrupted                 // Ctrl-C, or the context ended
)

// maxListed caps the held or failed jobs listed after a watch.
const maxListed = 10

// run polls until the watch ends, showing the progress on d, then
// prints a summary, the held jobs and the failed ones. It returns why it
// ended; an error is a failure to ask the schedd, or no job to watch.
func (w *queueWatch) run(ctx context.Context, d *display, o watchOptions, now func() time.Time) (watchEnd, error) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := now()
	var deadline <-chan time.Time
	if o.timeout > 0 {
		t := time.NewTimer(o.timeout)
		defer t.Stop()
		deadline = t.C
	}
	var redraw <-chan time.Time
	if d.tty {
		t := time.NewTicker(redrawInterval)
		defer t.Stop()
		redraw = t.C
	}
	status := func() string {
		return fmt.Sprintf("%d job(s) at schedd %s, asked every %s; %s elapsed. Ctrl-C stops watching.",
			w.total.Total, o.schedd, o.interval, formatSpan(now().Sub(start)))
	}
	end, err := w.loop(ctx, d, o, now, status, deadline, redraw)
	if err != nil {
		return end, err
	}
	return end, w.finish(d, end, now().Sub(start), now())
}

// loop polls and shows until the watch ends.
func (w *queueWatch) loop(ctx context.Context, d *display, o watchOptions, now func() time.Time, status func() string,
	deadline, redraw <-chan time.Time) (watchEnd, error) {
	for {
		if err := w.poll(ctx, now()); err != nil {
			if ctx.Err() != nil {
				return endInterrupted, nil
			}
			return endInterrupted, err
		}
		if w.total.Total == 0 {
			return endDone, errNoJobs
		}
		if err := d.show(w.rows(now()), status()); err != nil {
			return endInterrupted, err
		}
		if end, over := w.over(o); over {
			return end, nil
		}
		next := time.NewTimer(o.interval)
	wait:
		for {
			select {
			case <-ctx.Done():
				next.Stop()
				return endInterrupted, nil
			case <-deadline:
				next.Stop()
				return endTimeout, nil
			case <-redraw:
				d.show(w.rows(now()), status())
			case <-next.C:
				break wait
			}
		}
	}
}

// errNoJobs is a watch with nothing to watch.
var errNoJobs = fmt.Errorf("no jobs to watch: none in the queue match")

// over says whether the watch is over, and why.
func (w *queueWatch) over(o watchOptions) (watchEnd, bool) {
	switch c := w.total; {
	case c.remaining() == 0:
		return endDone, true
	case o.exitHeld && c.Held > 0:
		return endHeld, true
	case o.stopStuck && c.stuck():
		return endStuck, true
	}
	return endDone, false
}

// finish draws the last view (without the status line) and prints the
// summary, the held jobs and the failed ones.
func (w *queueWatch) finish(d *display, end watchEnd, elapsed time.Duration, now time.Time) error {
	if err := d.show(w.rows(now), ""); err != nil {
		return err
	}
	d.release()
	lines := []string{summaryLine(w.total, elapsed)}
	lines = append(lines, listed("Held", w.held())...)
	lines = append(lines, listed("Failed", w.failed())...)
	for _, l := range lines {
		if err := d.println(l); err != nil {
			return err
		}
	}
	return nil
}

// listed prints up to maxListed items under a heading word.
func listed(what string, items []string) []string {
	var out []string
	for i, it := range items {
		if i == maxListed {
			out = append(out, fmt.Sprintf("  ... and %d more", len(items)-maxListed))
			break
		}
		out = append(out, fmt.Sprintf("%s %s", what, it))
	}
	return out
}
