package daemon

import (
	"log/slog"
	"time"
)

// UpdateRetry paces a daemon's updates to the collector after a failure:
// an update that did not land is tried again soon (1 s, doubling, at most
// the update interval) instead of at the next interval, so that a daemon
// is in the collector within moments of the collector answering again. It
// logs the failure at Warn when updates start failing and every tenth
// failure after that (a collector down for an hour does not flood the
// log), and at Info when they land again. Not safe for concurrent use:
// one advertising loop owns it.
type UpdateRetry struct {
	Log      *slog.Logger
	What     string        // what is sent, for the log: "slot ads"
	Interval time.Duration // the update interval: the longest wait
	fails    int
}

// retryFirst is the wait after the first failure.
const retryFirst = time.Second

// Done records how an update went and returns a channel that fires when
// the next update is due because of it: after a backoff when it failed,
// never (nil) when it landed.
func (r *UpdateRetry) Done(err error) <-chan time.Time {
	if err == nil {
		if r.fails > 0 {
			r.Log.Info("updating the collector again", "what", r.What, "failures", r.fails)
		}
		r.fails = 0
		return nil
	}
	r.fails++
	wait := r.backoff()
	if r.fails == 1 || r.fails%10 == 0 {
		r.Log.Warn("updating the collector failed", "what", r.What, "failures", r.fails, "retry_in", wait, "err", err)
	} else {
		r.Log.Debug("updating the collector failed", "what", r.What, "failures", r.fails, "retry_in", wait, "err", err)
	}
	return time.After(wait)
}

// backoff is the wait before the next try after fails failures.
func (r *UpdateRetry) backoff() time.Duration {
	wait := retryFirst << min(r.fails-1, 16)
	if r.Interval > 0 && wait > r.Interval {
		wait = r.Interval
	}
	return wait
}
