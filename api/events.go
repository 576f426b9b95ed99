package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kite-sched/kite/internal/userlog"
)

// EventLog reads a job event log, the file a submit description's `log`
// names, in HTCondor's format (HTCondor's JobEventLog): the schedd
// appends each event of the jobs that name it.
type EventLog struct {
	f *os.File
	r *userlog.Reader
	// Poll is how often Follow looks for new events at the end of the
	// log (default 100 ms).
	Poll time.Duration
}

// OpenEventLog opens a job event log for reading from its start.
func OpenEventLog(path string) (*EventLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &EventLog{f: f, r: userlog.NewReader(f, path), Poll: 100 * time.Millisecond}, nil
}

// Close closes the log.
func (l *EventLog) Close() error { return l.f.Close() }

// Next returns the next complete event, or io.EOF when the log holds no
// more yet. A malformed event is an error naming its line; the next call
// goes on after it.
func (l *EventLog) Next() (Event, error) { return l.r.Next() }

// Follow hands each event to each as the log grows, until each returns
// ErrStop (Follow then returns nil) or another error, or ctx ends.
func (l *EventLog) Follow(ctx context.Context, each func(Event) error) error {
	var tick *time.Ticker
	for {
		ev, err := l.r.Next()
		switch {
		case err == nil:
			if err := each(ev); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
			continue
		case !errors.Is(err, io.EOF):
			return err
		}
		if tick == nil {
			tick = time.NewTicker(l.Poll)
			defer tick.Stop()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// ErrStop stops Follow and WatchJob without an error.
var ErrStop = errors.New("stop following")

// WatchJob follows the events of one job ("cluster.proc") in the log at
// path until it terminates or is aborted (removed), handing each to each.
func WatchJob(ctx context.Context, path, job string, each func(Event) error) error {
	var id userlog.JobID
	if _, err := fmt.Sscanf(job, "%d.%d", &id.Cluster, &id.Proc); err != nil {
		return fmt.Errorf("job %q: want cluster.proc", job)
	}
	l, err := OpenEventLog(path)
	if err != nil {
		return err
	}
	defer l.Close()
	return l.Follow(ctx, func(ev Event) error {
		if ev.Job.Cluster != id.Cluster || ev.Job.Proc != id.Proc {
			return nil
		}
		if err := each(ev); err != nil {
			return err
		}
		if ev.Code == userlog.Terminated || ev.Code == userlog.Aborted {
			return ErrStop
		}
		return nil
	})
}
