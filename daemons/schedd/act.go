package schedd

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/attrclass"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// tool names the command that made a change, for reasons: "via kite hold
// (by user alice)", as HTCondor writes "via condor_hold (by user alice)".
func toolReason(action, caller string) string {
	verb := map[string]string{wire.ActRemove: "rm", wire.ActHold: "hold", wire.ActRelease: "release", wire.ActVacate: "vacate_job"}[action]
	return fmt.Sprintf("via kite %s (by user %s)", verb, caller)
}

// mayChange reports whether the caller may change a job.
func mayChange(caller auth.Identity, owner string) bool {
	return caller.Name == owner || caller.Allows(auth.Administrator)
}

// chosen is the jobs a selection picks in one transaction: those the
// caller may change, and a count of the others.
type chosen struct {
	jobs    []*queue.Job
	matched int
	denied  int
}

// choose applies a selection inside a transaction.
func choose(tx *queue.Tx, sel *selection, caller auth.Identity) chosen {
	out, _, _ := chooseFrom(tx, sel, caller, queue.JobID{}, math.MaxInt)
	return out
}

// chooseFrom applies a selection inside a transaction to the jobs from id
// from on, until it has chosen limit jobs (or looked at eight times as
// many). It returns the id to go on from and whether jobs may be left.
func chooseFrom(tx *queue.Tx, sel *selection, caller auth.Identity, from queue.JobID, limit int) (chosen, queue.JobID, bool) {
	var out chosen
	var m queue.Materializer
	r := tx.Reader()
	looked := 0
	for c := range sel.clusters(r) {
		if c.ID < from.Cluster || len(sel.owners) > 0 && !contains(sel.owners, c.Owner) {
			continue
		}
		start := int64(0)
		if c.ID == from.Cluster {
			start = from.Proc
		}
		for j := range c.JobsFrom(start) {
			if len(out.jobs) >= limit || looked/8 >= limit {
				return out, j.ID, true
			}
			looked++
			if !sel.picks(j) {
				continue
			}
			if sel.constraint != nil {
				v := tx.View(j)
				if !sel.holds(m.Ad(&v)) {
					continue
				}
			}
			out.matched++
			if !mayChange(caller, j.Owner()) {
				out.denied++
				continue
			}
			out.jobs = append(out.jobs, j)
		}
	}
	return out, queue.JobID{}, false
}

// actBatch is how many jobs one transaction of rm, hold or release
// changes at most. Each batch is durable on its own, with its events: a
// change of a million jobs needs memory for two batches (one staged
// while the other commits), and lets other changes and a stop in between.
const actBatch = 5_000

func (s *Server) handleAct(ctx context.Context, r *wire.Request) (any, error) {
	var a wire.Act
	if err := r.Decode(&a); err != nil {
		return nil, err
	}
	sel, err := s.compileSelection(a.JobSelection)
	if err != nil {
		return nil, err
	}
	if sel.empty() && !a.All {
		return nil, wire.BadRequest("%s: name jobs, owners or a constraint (or all)", a.Action)
	}
	reason := a.Reason
	if reason == "" {
		reason = toolReason(a.Action, r.Caller.Name)
	}
	var act func(tx *queue.Tx, j *queue.Job, ev *eventBatch) bool
	switch a.Action {
	case wire.ActRemove:
		act = func(tx *queue.Tx, j *queue.Job, ev *eventBatch) bool { return s.remove(tx, j, reason, ev) }
	case wire.ActHold:
		act = func(tx *queue.Tx, j *queue.Job, ev *eventBatch) bool {
			return s.hold(tx, j, reason, attr.HoldUserRequest, a.SubCode, ev)
		}
	case wire.ActRelease:
		act = func(tx *queue.Tx, j *queue.Job, ev *eventBatch) bool { return s.releaseHeld(tx, j, reason, ev) }
	case wire.ActVacate:
		act = func(tx *queue.Tx, j *queue.Job, ev *eventBatch) bool { return s.vacateJob(tx, j, reason, a.Fast, ev) }
	default:
		return nil, wire.BadRequest("unknown action %q (remove, hold, release or vacate)", a.Action)
	}
	factories := 0
	if a.Action != wire.ActRelease { // a factory stops before its jobs do
		if factories, err = s.actFactories(sel, a.All, r.Caller, a.Action, reason); err != nil {
			return nil, wire.Unavailable("%v", err)
		}
	}
	dags, err := s.actDAGs(sel, a.All, r.Caller, a.Action, reason) // a removed DAG removes its node jobs
	if err != nil {
		return nil, wire.Unavailable("%v", err)
	}
	res, err := s.actBatches(sel, r.Caller, act)
	res.DAGs = dags
	if err == nil && a.Action == wire.ActRelease { // and resumes after them
		factories, err = s.actFactories(sel, a.All, r.Caller, a.Action, reason)
	}
	res.Factories = factories
	if res.Changed > 0 {
		s.kickAds()
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// actBatches applies act to the jobs a selection picks, actBatch jobs a
// transaction, each durable on its own; the next batch is chosen and
// changed while the last one commits. A schedd that stops meanwhile stops
// between batches, as a failed commit does: the jobs changed so far stay
// changed, the rest are not, and the error says how many changed so that
// the command may be given again for the rest.
func (s *Server) actBatches(sel *selection, caller auth.Identity, act func(tx *queue.Tx, j *queue.Job, ev *eventBatch) bool) (wire.ActResult, error) {
	var res, staged wire.ActResult
	wait := func() error { return nil } // the staged batch's commit
	settle := func() error {
		err := wait()
		if err == nil {
			res.Matched += staged.Matched
			res.Denied += staged.Denied
			res.Changed += staged.Changed
		}
		wait, staged = func() error { return nil }, wire.ActResult{}
		return err
	}
	stopping := s.background()
	for from, more, n := (queue.JobID{}), true, 0; more; n++ {
		if n > 0 && stopping.Err() != nil {
			if err := settle(); err != nil {
				return res, s.actFailed(err, res)
			}
			return res, wire.Unavailable("the schedd is stopping: %d of the jobs changed before it stopped; give the command again for the rest", res.Changed)
		}
		var batch wire.ActResult
		next, err := s.q.Stage(func(tx *queue.Tx) error {
			var ch chosen
			ch, from, more = chooseFrom(tx, sel, caller, from, s.cfg.actBatch)
			batch = wire.ActResult{Matched: ch.matched, Denied: ch.denied}
			ev := s.newEvents().sized(len(ch.jobs))
			for _, j := range ch.jobs {
				if act(tx, j, ev) {
					batch.Changed++
				}
			}
			ev.after(tx)
			return nil
		})
		if err == nil {
			err = settle()
		}
		if err != nil {
			if next != nil {
				next() // failed with the one before it
			}
			return res, s.actFailed(err, res)
		}
		wait, staged = next, batch
	}
	if err := settle(); err != nil {
		return res, s.actFailed(err, res)
	}
	return res, nil
}

// actFailed is the error of an rm, hold or release whose commit failed
// after res had changed jobs.
func (s *Server) actFailed(err error, res wire.ActResult) error {
	if res.Changed > 0 {
		return wire.Unavailable("%v (%d of the jobs changed before; give the command again for the rest)", err, res.Changed)
	}
	return wire.Unavailable("%v", err)
}

// remove takes a job out of the queue (an aborted event); a running job's
// claim is vacated.
func (s *Server) remove(tx *queue.Tx, j *queue.Job, reason string, ev *eventBatch) bool {
	if st := tx.Status(j); st == attr.Removed || st == attr.Completed {
		return false
	}
	s.stopClaims(tx, j, "removed")
	setStatus(tx, j, attr.Removed, s.now())
	tx.SetString(j, attr.RemoveReason, reason)
	v := tx.View(j)
	ev.add(&v, userlog.Event{Code: userlog.Aborted, Reason: reason})
	s.leave(tx, j)
	return true
}

// leave moves a job to the history, without the schedd's own attributes.
func (s *Server) leave(tx *queue.Tx, j *queue.Job) {
	if tx.Status(j) == attr.Completed {
		s.types.Completed(tx, j)
	}
	tx.Delete(j, attrClaimID)
	tx.Delete(j, attrStartdAddr)
	if v := tx.View(j); v.Int(attr.CheckpointNumber, 0) > 0 {
		id := j.ID
		tx.AfterCommit(func() { s.pruneCheckpoints(id, 0) }) // the job is gone for good
	}
	tx.Leave(j)
}

// hold holds an idle or running job with a reason and code.
func (s *Server) hold(tx *queue.Tx, j *queue.Job, reason string, code, sub int, ev *eventBatch) bool {
	if st := tx.Status(j); st != attr.Idle && st != attr.Running && st != attr.Suspended {
		return false
	}
	s.stopClaims(tx, j, "held")
	setStatus(tx, j, attr.Held, s.now())
	tx.SetString(j, attr.HoldReason, reason)
	tx.SetInt(j, attr.HoldReasonCode, int64(code))
	tx.SetInt(j, attr.HoldReasonSubCode, int64(sub))
	v := tx.View(j)
	tx.SetInt(j, attr.NumHolds, v.Int(attr.NumHolds, 0)+1)
	ev.add(&v, userlog.Event{Code: userlog.Held, Reason: reason, HoldCode: code, HoldSubCode: sub})
	return true
}

// releaseHeld is release by a user or a policy: a job held waiting for
// its spooled input stays held until the input is in (it would otherwise
// run without it, from the submit directory).
func (s *Server) releaseHeld(tx *queue.Tx, j *queue.Job, reason string, ev *eventBatch) bool {
	if v := tx.View(j); spooling(&v) {
		return false
	}
	return s.release(tx, j, reason, ev)
}

// release makes a held job idle again.
func (s *Server) release(tx *queue.Tx, j *queue.Job, reason string, ev *eventBatch) bool {
	if tx.Status(j) != attr.Held {
		return false
	}
	v := tx.View(j)
	if e, ok := v.Lookup(attr.HoldReason); ok {
		tx.Set(j, attr.LastHoldReason, e)
	}
	if e, ok := v.Lookup(attr.HoldReasonCode); ok {
		tx.Set(j, attr.LastHoldReasonCode, e)
	}
	setStatus(tx, j, attr.Idle, s.now())
	tx.Delete(j, attr.KiteAborts) // a release starts the count of lost machines again
	tx.SetString(j, attr.ReleaseReason, reason)
	tx.Delete(j, attr.HoldReason)
	tx.Delete(j, attr.HoldReasonCode)
	tx.Delete(j, attr.HoldReasonSubCode)
	ev.add(&v, userlog.Event{Code: userlog.Released, Reason: reason})
	return true
}

func (s *Server) handleEdit(ctx context.Context, r *wire.Request) (any, error) {
	var e wire.Edit
	if err := r.Decode(&e); err != nil {
		return nil, err
	}
	sel, err := s.compileSelection(e.JobSelection)
	if err != nil {
		return nil, err
	}
	if sel.empty() && !e.All {
		return nil, wire.BadRequest("edit: name jobs, owners or a constraint (or all)")
	}
	if len(e.Attrs) == 0 {
		return nil, wire.BadRequest("edit: no attributes to set")
	}
	names := make([]string, 0, len(e.Attrs))
	for n := range e.Attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	exprs := make([]ast.Expr, len(names))
	for i, n := range names {
		if !ast.IsPlainName(n) {
			return nil, wire.BadRequest("edit: %q is not an attribute name", n)
		}
		if why := attrclass.MayEdit(n, r.Caller.Allows(auth.Administrator)); why != "" {
			return nil, wire.Forbidden("edit: %s", why)
		}
		x, err := s.exprLimits().Parse(n, e.Attrs[n])
		if err != nil {
			return nil, wire.BadRequest("edit: %v", err)
		}
		exprs[i] = x
	}
	var res wire.ActResult
	err = s.q.Update(func(tx *queue.Tx) error {
		ch := choose(tx, sel, r.Caller)
		res = wire.ActResult{Matched: ch.matched, Denied: ch.denied, Changed: len(ch.jobs)}
		for _, j := range ch.jobs {
			for i, n := range names {
				tx.Set(j, n, exprs[i])
			}
		}
		return nil
	})
	if err != nil {
		return nil, wire.Unavailable("%v", err)
	}
	if res.Changed > 0 {
		s.kickAds() // an edit may make idle jobs match
	}
	return res, nil
}
