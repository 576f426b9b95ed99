package schedd

import (
	"context"
	"fmt"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

// handleDAGThrottle changes a running DAG's throttles (HTCondor's
// htcondor dag throttle, dagman-interaction.rst "Editing DAG
// Throttles"): the DAG's record is rewritten in one transaction, so the
// new values outlive a restart of the schedd, and the pump applies them
// at once. Node jobs already queued stay; a lower throttle holds back
// the next ones. A higher MaxHold starts HOLD scripts that wait.
func (s *Server) handleDAGThrottle(ctx context.Context, r *wire.Request) (any, error) {
	var body wire.DAGThrottle
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	for _, v := range []*int{body.MaxJobs, body.MaxIdle, body.MaxPre, body.MaxPost, body.MaxHold, body.MaxSubmits} {
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
		setIfGiven(&st.rec.MaxHold, body.MaxHold)
		setIfGiven(&st.rec.MaxSubmits, body.MaxSubmits)
		tx.OnRollback(func() { st.rec = old })
		out = throttlesOf(&st.rec)
		if out == throttlesOf(&old) {
			return nil
		}
		s.putDAGRecord(tx, st)
		s.dagNote(st, "", fmt.Sprintf("Throttles changed by %s: maxjobs %d, maxidle %d, maxpre %d, maxpost %d, maxhold %d, maxsubmits %d",
			r.Caller.Name, out.MaxJobs, out.MaxIdle, out.MaxPre, out.MaxPost, out.MaxHold, out.MaxSubmits))
		s.startHoldScripts(tx, st)
		s.flushJournal(tx, st, false, false)
		tx.AfterCommit(s.dags.wake)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// throttlesOf are a DAG's throttles as the API gives them.
func throttlesOf(rec *dagRecord) wire.DAGThrottles {
	return wire.DAGThrottles{MaxJobs: rec.MaxJobs, MaxIdle: rec.MaxIdle, MaxPre: rec.MaxPre, MaxPost: rec.MaxPost,
		MaxHold: rec.MaxHold, MaxSubmits: rec.MaxSubmits}
}

// setIfGiven sets *dst to *v when v is given.
func setIfGiven(dst, v *int) {
	if v != nil {
		*dst = *v
	}
}

// dagSubmitInterval is DAGMan's submit interval
// (DAGMAN_USER_LOG_SCAN_INTERVAL, 5 s by default): a DAG with MaxSubmits
// (DAGMAN_MAX_SUBMITS_PER_INTERVAL) submits at most that many node jobs
// in each. Without it, Kite submits nodes as they become ready.
const dagSubmitInterval = 5 * time.Second

// submitWindow counts a DAG's node submissions in the current submit
// interval; it is read and changed with the queue locked.
type submitWindow struct {
	start time.Time // when the interval began
	n     int       // submissions in it
	wake  time.Time // the end of the interval the pump is woken at
}

// submitSlot reports whether the DAG may submit a node job now, counting
// it in the current submit interval when it may. When the interval is
// full, the pump is woken at its end (once per interval).
func (s *Server) submitSlot(tx *queue.Tx, st *dagState) bool {
	limit := st.rec.MaxSubmits
	if limit <= 0 {
		return true
	}
	w := &st.subs
	old := *w
	tx.OnRollback(func() { *w = old })
	now := s.now()
	if now.Sub(w.start) >= dagSubmitInterval || now.Before(w.start) {
		w.start, w.n = now, 0
	}
	if w.n < limit {
		w.n++
		return true
	}
	if end := w.start.Add(dagSubmitInterval); !w.wake.Equal(end) {
		w.wake = end
		tx.AfterCommit(func() { s.cfg.afterFunc(end.Sub(now), s.dags.wake) })
	}
	return false
}

// holdScripts are a DAG's HOLD scripts: how many run, and those that
// wait for one of them to end (MaxHold, DAGMan's -MaxHold). It is read
// and changed with the queue locked.
type holdScripts struct {
	running int
	waiting []nodeWork
}

// queueHoldScript starts a HOLD script once tx is durable, or lets it
// wait while MaxHold of the DAG's run.
func (s *Server) queueHoldScript(tx *queue.Tx, st *dagState, w nodeWork) {
	h := &st.holds
	old := *h
	tx.OnRollback(func() { *h = old })
	h.waiting = append(h.waiting, w)
	s.startHoldScripts(tx, st)
	if len(h.waiting) > 0 {
		name := st.rec.DAG.Nodes[w.node].Name
		s.dagNote(st, "", fmt.Sprintf("Node %s: HOLD script deferred: %d HOLD script(s) run (-MaxHold %d)", name, h.running, st.rec.MaxHold))
	}
}

// startHoldScripts starts, once tx is durable, the waiting HOLD scripts
// that MaxHold lets run now. One whose DAG was held since is dropped:
// the hold stops HOLD scripts, and they are not run again.
func (s *Server) startHoldScripts(tx *queue.Tx, st *dagState) {
	h := &st.holds
	for len(h.waiting) > 0 && (st.rec.MaxHold <= 0 || h.running < st.rec.MaxHold) {
		w := h.waiting[0]
		h.waiting = h.waiting[1:]
		if st.rec.Held || w.ctx.Err() != nil {
			continue
		}
		h.running++
		life := s.dags.ctx
		tx.AfterCommit(func() { s.wg.Go(func() { s.runHoldScript(w, life) }) })
	}
	if len(h.waiting) == 0 {
		h.waiting = nil
	}
}

// holdScriptDone records the end of a HOLD script and starts one that
// waits.
func (s *Server) holdScriptDone(st *dagState) {
	err := s.q.Update(func(tx *queue.Tx) error {
		h := &st.holds
		h.running-- // it ended, whatever the commit does
		old := *h
		tx.OnRollback(func() { *h = old })
		s.startHoldScripts(tx, st)
		return nil
	})
	if err != nil {
		s.log.Error("DAG: a HOLD script's end", "dag", st.rec.ID, "err", err)
	}
}

// maySubmit takes a submission of the submit interval for a node that
// submits its job as it starts (one without a PRE script, not NOOP),
// reporting whether it may.
func (s *Server) maySubmit(tx *queue.Tx, st *dagState, node *dag.Node) bool {
	if node.Scripts[dag.Pre] != nil || node.Noop {
		return true
	}
	return s.submitSlot(tx, st)
}

// dagHoldClaim is how long the claims of a DAG's node jobs with children
// are kept idle after them: the DAG's DAGMAN_HOLD_CLAIM_TIME, else the
// schedd's dag_hold_claim_time.
func (s *Server) dagHoldClaim(st *dagState) time.Duration {
	if c := st.rec.HoldClaim; c != nil {
		return time.Duration(*c) * time.Second
	}
	return s.cfg.DAGHoldClaim
}
