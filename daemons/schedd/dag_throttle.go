package schedd

import (
	"context"
	"fmt"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/wire"
)

// handleDAGThrottle changes a running DAG's throttles (HTCondor's
// htcondor dag throttle, dagman-interaction.rst "Editing DAG
// Throttles"): the DAG's record is rewritten in one transaction, so the
// new values outlive a restart of the schedd, and the pump applies them
// at once. Node jobs already queued stay; a lower throttle holds back
// the next ones.
func (s *Server) handleDAGThrottle(ctx context.Context, r *wire.Request) (any, error) {
	var body wire.DAGThrottle
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	for _, v := range []*int{body.MaxJobs, body.MaxIdle, body.MaxPre, body.MaxPost} {
		if v != nil && *v < 0 {
			return nil, wire.BadRequest("dag throttle: throttles must not be negative (0 is no limit)")
		}
	}
	var out wire.DAGThrottles
	err := s.q.Update(func(tx *queue.Tx) error {
		st, ok := s.dags.m[body.ID]
		if !ok || st.rec.Finished {
			return wire.NotFound("dag throttle: no DAG %d runs here", body.ID)
		}
		if !mayChange(r.Caller, st.rec.Owner) {
			return wire.Forbidden("dag throttle: DAG %d is %s's", body.ID, st.rec.Owner)
		}
		old := st.rec
		setIfGiven(&st.rec.MaxJobs, body.MaxJobs)
		setIfGiven(&st.rec.MaxIdle, body.MaxIdle)
		setIfGiven(&st.rec.MaxPre, body.MaxPre)
		setIfGiven(&st.rec.MaxPost, body.MaxPost)
		tx.OnRollback(func() { st.rec = old })
		rec := &st.rec
		out = wire.DAGThrottles{MaxJobs: rec.MaxJobs, MaxIdle: rec.MaxIdle, MaxPre: rec.MaxPre, MaxPost: rec.MaxPost}
		if out == (wire.DAGThrottles{MaxJobs: old.MaxJobs, MaxIdle: old.MaxIdle, MaxPre: old.MaxPre, MaxPost: old.MaxPost}) {
			return nil
		}
		s.putDAGRecord(tx, st)
		s.dagNote(st, "", fmt.Sprintf("Throttles changed by %s: maxjobs %d, maxidle %d, maxpre %d, maxpost %d",
			r.Caller.Name, out.MaxJobs, out.MaxIdle, out.MaxPre, out.MaxPost))
		s.flushJournal(tx, st, false, false)
		tx.AfterCommit(s.dags.wake)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// setIfGiven sets *dst to *v when v is given.
func setIfGiven(dst, v *int) {
	if v != nil {
		*dst = *v
	}
}
