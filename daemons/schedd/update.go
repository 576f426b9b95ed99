package schedd

import (
	"context"
	"fmt"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/userlog"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// handleJobUpdate takes a startd's report of a job's event. The report
// must carry the claim the job runs under.
func (s *Server) handleJobUpdate(ctx context.Context, r *wire.Request) (any, error) {
	var u wire.JobUpdate
	if err := r.Decode(&u); err != nil {
		return nil, err
	}
	id, err := queue.ParseJobID(u.Job)
	if err != nil {
		return nil, wire.BadRequest("%v", err)
	}
	c := s.jobs.claimOf(id, u.ClaimID)
	if c == nil && s.jobs.reconnecting(id) {
		// Its startd has not answered the restart's question yet: the
		// event is taken once it has, when the job's claim is known.
		return nil, wire.Unavailable("job %s: the schedd is reconnecting to it; send the event again", u.Job)
	}
	if c == nil {
		return nil, wire.NotFound("job %s does not run under that claim here", u.Job)
	}
	s.met.events.WithLabelValues(eventLabel(u.Event)).Inc()
	at := time.Unix(u.Time, 0)
	if u.Time == 0 {
		at = s.now()
	}
	switch u.Event {
	case wire.EventStarted:
		return nil, s.started(id, c, at)
	case wire.EventExited, wire.EventHeld, wire.EventFailed:
		return nil, s.ended(id, c, &u, at)
	case wire.EventEvicted:
		s.jobs.finish(c)
		s.jobs.drop(c)
		reason := u.Reason
		if reason == "" {
			reason = "The startd evicted the job"
		}
		err := s.q.Update(func(tx *queue.Tx) error {
			j := tx.Job(id)
			if j == nil || tx.Status(j) != attr.Running {
				return nil
			}
			ev := s.newEvents()
			if u.StartedAt != 0 {
				s.recordStart(tx, j, c, time.Unix(u.StartedAt, 0), ev)
			}
			addUsage(tx, j, &u)
			s.toIdle(tx, j, reason, ev)
			ev.after(tx)
			return nil
		})
		s.kickAds()
		return nil, unavailable(err)
	}
	return nil, wire.BadRequest("unknown job event %q (started, exited, evicted, held, failed)", u.Event)
}

func unavailable(err error) error {
	if err == nil {
		return nil
	}
	return wire.Unavailable("%v", err)
}

// claimOf returns the claim a job runs under, if its id is claimID.
func (r *runs) claimOf(id queue.JobID, claimID string) *claim {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.byJob[id]
	if c == nil || c.id != claimID || claimID == "" {
		return nil
	}
	return c
}

// started records that a job's process began (an execute event).
func (s *Server) started(id queue.JobID, c *claim, at time.Time) error {
	var wait time.Duration
	first := false
	err := s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(id)
		if j == nil || tx.Status(j) != attr.Running {
			return nil
		}
		ev := s.newEvents()
		wait, first = s.recordStart(tx, j, c, at, ev)
		ev.after(tx)
		return nil
	})
	if err == nil && first {
		s.extra.observeStart(wait)
	}
	return unavailable(err)
}

// recordStart notes in a transaction that a job's process began at a
// time: its start dates, start count and execute event. A startd reports
// it with the started event, or, for a job that ended at once, with its
// last event (JobUpdate.StartedAt). It returns the wait from submission
// and whether this was the job's first start.
func (s *Server) recordStart(tx *queue.Tx, j *queue.Job, c *claim, at time.Time, ev *eventBatch) (time.Duration, bool) {
	v := tx.View(j)
	wait, first := firstStartLatency(&v, at)
	tx.SetInt(j, attr.JobCurrentStartDate, at.Unix())
	if _, ok := v.Lookup(attr.JobStartDate); !ok {
		tx.SetInt(j, attr.JobStartDate, at.Unix())
	}
	tx.SetInt(j, attr.NumJobStarts, intAttr(&v, attr.NumJobStarts, 0)+1)
	ev.add(&v, userlog.Event{Code: userlog.Execute, Time: at, Host: "<" + c.startd + ">", Slot: c.slotName})
	return wait, first
}

// addUsage adds a run's usage to a job's totals.
func addUsage(tx *queue.Tx, j *queue.Job, u *wire.JobUpdate) {
	v := tx.View(j)
	tx.SetReal(j, attr.RemoteWallClockTime, realAttr(&v, attr.RemoteWallClockTime)+u.WallSeconds)
	tx.SetReal(j, attr.RemoteUserCpu, realAttr(&v, attr.RemoteUserCpu)+u.UserCPU)
	tx.SetReal(j, attr.RemoteSysCpu, realAttr(&v, attr.RemoteSysCpu)+u.SysCPU)
	if u.PeakMemoryMB > 0 {
		tx.SetInt(j, attr.MemoryUsage, u.PeakMemoryMB)
	}
}

// ended records a job's exit, hold or failure at the startd, applies the
// job's on-exit policy and, in the same transaction, starts the owner's
// next job that fits on the claim: one commit for both.
func (s *Server) ended(id queue.JobID, c *claim, u *wire.JobUpdate, at time.Time) error {
	r := s.jobs
	r.finish(c)
	next, haveNext := r.next(c)
	started := false
	var wait time.Duration
	first := false
	err := s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(id)
		if j == nil || tx.Status(j) != attr.Running {
			return nil
		}
		ev := s.newEvents()
		if u.StartedAt != 0 {
			wait, first = s.recordStart(tx, j, c, time.Unix(u.StartedAt, 0), ev)
		}
		addUsage(tx, j, u)
		leftMachine(tx, j)
		switch u.Event {
		case wire.EventExited:
			s.exited(tx, j, u, at, ev)
		case wire.EventHeld, wire.EventFailed:
			code := u.HoldCode
			if code == 0 {
				code = map[string]int{wire.EventHeld: attr.HoldStartdHeldJob, wire.EventFailed: attr.HoldStartingJob}[u.Event]
			}
			reason := u.Reason
			if reason == "" {
				reason = "The startd " + u.Event + " the job"
			}
			s.hold(tx, j, reason, code, u.HoldSubCode, ev)
		}
		ev.after(tx)
		if haveNext {
			if nj := tx.Job(next); nj != nil && tx.Status(nj) == attr.Idle {
				r.startIn(tx, nj, c)
				started = true
			}
		}
		return nil
	})
	if started {
		r.attach(c, next)
	}
	if haveNext {
		r.unreserve(next)
	}
	if err == nil && first {
		s.extra.observeStart(wait)
	}
	s.kickAds()
	switch {
	case err != nil:
		return wire.Unavailable("%v", err)
	case started:
		s.goBackground(func(ctx context.Context) { r.sendActivate(ctx, c, next) })
	default:
		s.goBackground(func(ctx context.Context) { s.reuse(ctx, c) })
	}
	return nil
}

// exited records a job's exit and decides, as HTCondor does, from
// OnExitHold, then OnExitRemove, whether it is held, done, or runs again.
func (s *Server) exited(tx *queue.Tx, j *queue.Job, u *wire.JobUpdate, at time.Time, ev *eventBatch) {
	tx.SetBool(j, attr.ExitBySignal, u.ExitBySignal)
	if u.ExitBySignal {
		tx.SetInt(j, attr.ExitSignal, int64(u.ExitSignal))
		tx.Delete(j, attr.ExitCode)
	} else {
		tx.SetInt(j, attr.ExitCode, int64(u.ExitCode))
		tx.Delete(j, attr.ExitSignal)
	}
	v := tx.View(j)
	tx.SetInt(j, attr.NumJobCompletions, intAttr(&v, attr.NumJobCompletions, 0)+1)
	ad := tx.Ad(j)
	if hold, undefined := policyTrue(ad, attr.OnExitHold); hold || undefined {
		reason, sub := policyReason(ad, attr.OnExitHold, undefined)
		code := attr.HoldJobPolicy
		if undefined {
			code = attr.HoldJobPolicyUndefined
		}
		s.hold(tx, j, reason, code, sub, ev)
		return
	}
	remove, undefined := policyTrue(ad, attr.OnExitRemove)
	if _, set := ad.Lookup(attr.OnExitRemove); !set {
		remove = true // HTCondor's default
	}
	if undefined {
		reason, sub := policyReason(ad, attr.OnExitRemove, true)
		s.hold(tx, j, reason, attr.HoldJobPolicyUndefined, sub, ev)
		return
	}
	if !remove {
		setStatus(tx, j, attr.Idle, at) // runs again (max_retries)
		s.jobs.dropJob(j.ID)
		return
	}
	setStatus(tx, j, attr.Completed, at)
	tx.SetInt(j, attr.CompletionDate, at.Unix())
	v = tx.View(j)
	ev.add(&v, terminatedEvent(&v, u, at))
	s.leave(tx, j)
}

// terminatedEvent is a job's terminated event.
func terminatedEvent(v *queue.View, u *wire.JobUpdate, at time.Time) userlog.Event {
	ev := userlog.Event{
		Code: userlog.Terminated, Time: at, Normal: !u.ExitBySignal, ReturnCode: u.ExitCode, Signal: u.ExitSignal,
		RunRemote:   userlog.Usage{User: u.UserCPU, Sys: u.SysCPU},
		TotalRemote: userlog.Usage{User: realAttr(v, attr.RemoteUserCpu), Sys: realAttr(v, attr.RemoteSysCpu)},
	}
	usage := func(mem bool) float64 {
		if mem && u.PeakMemoryMB > 0 {
			return float64(u.PeakMemoryMB)
		}
		return -1
	}
	ev.Resources = []userlog.Resource{
		{Name: "Cpus", Usage: -1, Request: realAttr(v, attr.RequestCpus), Allocated: realAttr(v, attr.RequestCpus)},
		{Name: "Disk (KB)", Usage: -1, Request: realAttr(v, attr.RequestDisk), Allocated: realAttr(v, attr.RequestDisk)},
		{Name: "Memory (MB)", Usage: usage(true), Request: realAttr(v, attr.RequestMemory), Allocated: realAttr(v, attr.RequestMemory)},
	}
	return ev
}

// policyTrue evaluates a policy expression of a job: whether it is true,
// and whether it is UNDEFINED (which HTCondor holds the job for, code 5).
// An absent expression is false.
func policyTrue(ad *classad.Ad, name string) (truth, undefined bool) {
	if _, ok := ad.Lookup(name); !ok {
		return false, false
	}
	v, _ := classad.EvalAttr(ad, name, nil)
	if v.IsUndefined() {
		return false, true
	}
	return v.IsTrue(), false
}

// policyReason is the hold reason of a policy expression: its Reason
// attribute when set, else HTCondor's sentence naming the expression.
func policyReason(ad *classad.Ad, name string, undefined bool) (string, int) {
	sub := 0
	if v, _ := classad.EvalAttr(ad, name+"SubCode", nil); v.IsNumber() {
		f, _ := v.NumberValue()
		sub = int(f)
	}
	if undefined {
		e, _ := ad.Lookup(name)
		return fmt.Sprintf("The job attribute %s expression '%s' evaluated to UNDEFINED", name, ast.String(e)), sub
	}
	if v, _ := classad.EvalAttr(ad, name+"Reason", nil); !v.IsUndefined() {
		if str, ok := v.StringValue(); ok && str != "" {
			return str, sub
		}
	}
	e, _ := ad.Lookup(name)
	return fmt.Sprintf("The job attribute %s expression '%s' evaluated to TRUE", name, ast.String(e)), sub
}

// reuse gives a claim whose job ended the owner's next idle job that fits,
// or releases it.
func (s *Server) reuse(ctx context.Context, c *claim) {
	r := s.jobs
	r.mu.Lock()
	gone := c.gone
	r.mu.Unlock()
	if gone {
		return
	}
	next, ok := r.next(c)
	if !ok {
		r.release(ctx, c)
		return
	}
	r.activateReserved(ctx, c, next)
}

// eventLabel bounds the metric's labels to the known events.
func eventLabel(e string) string {
	switch e {
	case wire.EventStarted, wire.EventExited, wire.EventEvicted, wire.EventHeld, wire.EventFailed:
		return e
	}
	return "other"
}
