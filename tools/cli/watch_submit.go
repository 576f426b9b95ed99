package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/internal/wire"
)

// waitFlag is kite submit's --wait[=TIMEOUT]: on, and how long to wait
// at most (a duration, or seconds as condor_wait's -wait; 0: forever).
type waitFlag struct {
	on      bool
	timeout time.Duration
}

func (f *waitFlag) String() string {
	switch {
	case !f.on:
		return ""
	case f.timeout == 0:
		return "forever"
	}
	return f.timeout.String()
}

func (f *waitFlag) Set(s string) error {
	f.on, f.timeout = true, 0
	if s == "forever" || s == "" {
		return nil
	}
	if secs, err := strconv.Atoi(s); err == nil && secs >= 0 {
		f.timeout = time.Duration(secs) * time.Second
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a timeout: give a duration (90s, 10m, 2h) or seconds", s)
	}
	f.timeout = d
	return nil
}

func (f *waitFlag) Type() string { return "timeout" }

// waitForCluster is kite submit --wait: it watches the new cluster until
// every job has left the queue, then fails unless every job completed
// with exit code 0. It stops early, failing, when every job left in the
// queue is held.
func (o *submitOptions) waitForCluster(ctx context.Context, s *scheddConn, w io.Writer, cluster int64) error {
	q := wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{strconv.FormatInt(cluster, 10)}}}
	qw := newQueueWatch(s.client, q)
	opts := watchOptions{interval: o.interval, timeout: o.wait.timeout, stopStuck: true, schedd: s.name}
	end, err := qw.run(ctx, newDisplay(w, isTerminal(w)), opts, time.Now)
	if err != nil {
		return err
	}
	return waitVerdict(end, qw.total)
}

// waitVerdict is kite submit --wait's exit status: nil only when every
// job completed and none failed.
func waitVerdict(end watchEnd, c jobCounts) error {
	switch end {
	case endTimeout:
		return fmt.Errorf("Time expired.")
	case endInterrupted:
		return fmt.Errorf("interrupted: %d job(s) still queued", c.remaining())
	case endStuck:
		return fmt.Errorf("every job left in the queue is held (%d): release them (kite release) or remove them (kite rm)", c.Held)
	}
	var bad []string
	if c.Failed > 0 {
		bad = append(bad, fmt.Sprintf("%d job(s) exited non-zero", c.Failed))
	}
	if c.Removed > 0 {
		bad = append(bad, fmt.Sprintf("%d job(s) removed", c.Removed))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, ", "))
	}
	return nil
}
