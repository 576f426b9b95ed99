package scale

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// Turnover is how long the slots took from one job's start to the next
// one's on the same claim, from the start dates the startds reported
// (JobCurrentStartDate, whole seconds): the run time, and the chain
// that follows the job's end (the end report, the schedd's commit, the
// next job's activation at the startd).
//
// A start count over a window misses or doubles the jobs whose turns
// fall within one turnover of the window's edges, which is many when
// the pool was filled in a burst (every job lasts the same run time, so
// the burst repeats); the mean period between a slot's starts has no
// edges, and slots/period is the rate the pool sustains.
type Turnover struct {
	Period time.Duration // mean time between two starts on a slot
	Pairs  int           // consecutive starts measured
}

// Rate is the start rate slots slots sustain at this turnover.
func (t Turnover) Rate(slots int) float64 {
	if t.Period <= 0 {
		return 0
	}
	return float64(slots) / t.Period.Seconds()
}

// turnover is the mean period between consecutive starts of each slot,
// given each slot's start dates (Unix seconds, in any order). A slot's
// periods add up to its last start less its first, so the truncation of
// the dates to the second errs by under a second per slot, shared among
// its pairs: it cancels over slots whose first starts fell at different
// fractions of a second, not over a fill's burst, which needs several
// periods per slot (BenchmarkScale's window).
func turnover(starts map[string][]int64) Turnover {
	var sum int64
	var t Turnover
	for _, s := range starts {
		s = slices.Sorted(slices.Values(s))
		for i := 1; i < len(s); i++ {
			sum += s[i] - s[i-1]
			t.Pairs++
		}
	}
	if t.Pairs > 0 {
		t.Period = time.Duration(float64(sum) / float64(t.Pairs) * float64(time.Second))
	}
	return t
}

// Turnover measures the slots' turnover from the start dates of the
// jobs in the history and of the running jobs in the queue.
func (pl *Pool) Turnover(ctx context.Context) (Turnover, error) {
	starts := map[string][]int64{}
	add := func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return err
		}
		slot := classad.EvalStringOr(ad, attr.RemoteHost, classad.EvalStringOr(ad, attr.LastRemoteHost, ""))
		if at := classad.EvalIntOr(ad, attr.JobCurrentStartDate, 0); slot != "" && at > 0 {
			starts[slot] = append(starts[slot], at)
		}
		return nil
	}
	proj := []string{attr.JobCurrentStartDate, attr.RemoteHost, attr.LastRemoteHost}
	err := pl.user.Stream(ctx, "POST", wire.PathHistory, wire.HistoryQuery{Projection: proj}, add)
	if err != nil {
		return Turnover{}, err
	}
	q := wire.JobQuery{JobSelection: wire.JobSelection{Constraint: "JobStatus == 2"}, Projection: proj}
	if err := pl.user.Stream(ctx, "POST", wire.PathQueue, q, add); err != nil {
		return Turnover{}, err
	}
	return turnover(starts), nil
}
