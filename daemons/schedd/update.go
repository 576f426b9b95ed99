package schedd

import (
	"context"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/jobpolicy"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// handleJobUpdate takes a startd's report of a job's event. The report
// must carry the claim the job runs under. It is decoded once; the
// replication layer sees it first and handles the events of jobs that run
// several instances.
func (s *Server) handleJobUpdate(ctx context.Context, r *wire.Request) (any, error) {
	var u wire.JobUpdate
	if err := r.Decode(&u); err != nil {
		return nil, err
	}
	id, err := queue.ParseJobID(u.Job)
	if err != nil {
		return nil, wire.BadRequest("%v", err)
	}
	if handled, err := s.replication.update(&u, id); handled {
		s.met.events.WithLabelValues(eventLabel(u.Event)).Inc()
		return nil, err
	}
	c := s.claims.Of(id, u.ClaimID)
	if c == nil && u.TakesNext {
		if act := s.handedAgain(id, &u); act != nil {
			return wire.JobUpdateResult{Next: act}, nil
		}
	}
	if c == nil && s.claims.Reconnecting(id) {
		// Its startd has not answered the restart's question yet: the
		// event is taken once it has, when the job's claim is known.
		return nil, wire.Unavailable("job %s: the schedd is reconnecting to it; send the event again", u.Job)
	}
	if c == nil {
		return nil, wire.NotFound("job %s does not run under that claim here", u.Job)
	}
	s.met.events.WithLabelValues(eventLabel(u.Event)).Inc()
	s.handoffs.heard(u.ClaimID, id)
	at := time.Unix(u.Time, 0)
	if u.Time == 0 {
		at = s.now()
	}
	switch u.Event {
	case wire.EventStarted:
		return nil, s.started(id, c, at)
	case wire.EventCheckpointed:
		return nil, s.checkpointed(id, &u, at)
	case wire.EventExited, wire.EventHeld, wire.EventFailed:
		return s.ended(id, c, &u, at)
	case wire.EventEvicted:
		// The claim's job is gone; the claim is given back (a vacate
		// leaves it idle at the startd).
		s.claims.Drop(c)
		s.goBackground(func(ctx context.Context) { s.releaseClaim(ctx, c) })
		reason := u.Reason
		if reason == "" {
			reason = "The startd evicted the job"
		}
		err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
			if u.StartedAt != 0 {
				s.recordStart(tx, j, c, time.Unix(u.StartedAt, 0), ev)
			}
			addUsage(tx, j, &u)
			s.toIdle(tx, j, reason, ev)
		})
		s.kickAds()
		return nil, unavailable(err)
	}
	return nil, wire.BadRequest("unknown job event %q (started, checkpointed, exited, evicted, held, failed)", u.Event)
}

func unavailable(err error) error {
	if err == nil {
		return nil
	}
	return wire.Unavailable("%v", err)
}

// started records that a job's process began (an execute event).
func (s *Server) started(id queue.JobID, c *claims.Claim, at time.Time) error {
	var wait time.Duration
	first := false
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		wait, first = s.recordStart(tx, j, c, at, ev)
	})
	if err == nil && first {
		s.met.observeStart(wait)
	}
	return unavailable(err)
}

// recordStart notes in a transaction that a job's process began at a
// time: its start dates, start count and execute event. A startd reports
// it with the started event, or, for a job that ended at once, with its
// last event (JobUpdate.StartedAt). It returns the wait from submission
// and whether this was the job's first start. A start the job's current
// run already has changes nothing: a startd sends an event again when it
// did not hear the schedd take it (a schedd killed after the commit, before
// its answer).
func (s *Server) recordStart(tx *queue.Tx, j *queue.Job, c *claims.Claim, at time.Time, ev *eventBatch) (time.Duration, bool) {
	v := tx.View(j)
	if startRecorded(&v) {
		return 0, false
	}
	wait, first := firstStartLatency(&v, at)
	tx.SetInt(j, attr.JobCurrentStartDate, at.Unix())
	if _, ok := v.Lookup(attr.JobStartDate); !ok {
		tx.SetInt(j, attr.JobStartDate, at.Unix())
	}
	tx.SetInt(j, attr.NumJobStarts, v.Int(attr.NumJobStarts, 0)+1)
	runStarted(tx, j, at)
	ev.add(&v, userlog.Event{Code: userlog.Execute, Time: at, Host: "<" + c.Startd + ">", Slot: c.SlotName})
	return wait, first
}

// startRecorded reports whether the job's current run has its start
// recorded: each run the schedd starts on a claim counts a match
// (startIn), each start recorded counts a run (runStarted).
func startRecorded(v *queue.View) bool {
	matches := v.Int(attr.NumJobMatches, 0)
	return matches > 0 && v.Int(attr.JobRunCount, 0) >= matches
}

// addUsage adds a run's usage to a job's totals.
func addUsage(tx *queue.Tx, j *queue.Job, u *wire.JobUpdate) {
	v := tx.View(j)
	tx.SetReal(j, attr.RemoteWallClockTime, v.Real(attr.RemoteWallClockTime)+u.WallSeconds)
	tx.SetReal(j, attr.RemoteUserCpu, v.Real(attr.RemoteUserCpu)+u.UserCPU)
	tx.SetReal(j, attr.RemoteSysCpu, v.Real(attr.RemoteSysCpu)+u.SysCPU)
	if u.PeakMemoryMB > 0 {
		tx.SetInt(j, attr.MemoryUsage, u.PeakMemoryMB)
	}
	runEnded(tx, j, u)
}

// ended records a job's exit, hold or failure at the startd, applies the
// job's on-exit policy and, in the same transaction, starts the owner's
// next job that fits on the claim: one commit for both. The next job goes
// to the startd in the answer when it takes it, else in an activation.
func (s *Server) ended(id queue.JobID, c *claims.Claim, u *wire.JobUpdate, at time.Time) (any, error) {
	s.claims.Detach(c)
	next, haveNext := s.next(c)
	started := false
	var wait, keep time.Duration
	first := false
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		v := tx.View(j)
		keep = keepClaimIdle(&v)
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
		if haveNext {
			if nj := tx.Job(next); nj != nil && tx.Status(nj) == attr.Idle {
				s.startIn(tx, nj, c)
				started = true
			}
		}
	})
	if started {
		s.attach(c, next)
	}
	if haveNext {
		s.claims.Unreserve(next)
	}
	if err == nil && first {
		s.met.observeStart(wait)
	}
	s.kickAds()
	switch {
	case err != nil:
		return nil, wire.Unavailable("%v", err)
	case started && u.TakesNext:
		if act := s.handOff(c, id, next); act != nil {
			return wire.JobUpdateResult{Next: act}, nil
		}
		s.goBackground(func(ctx context.Context) { s.sendActivate(ctx, c, next) })
	case started:
		s.goBackground(func(ctx context.Context) { s.sendActivate(ctx, c, next) })
	default:
		s.goBackground(func(ctx context.Context) { s.reuse(ctx, c, keep) })
	}
	return nil, nil
}

// exited records a job's exit and applies its on-exit policy: held,
// done, or it runs again.
func (s *Server) exited(tx *queue.Tx, j *queue.Job, u *wire.JobUpdate, at time.Time, ev *eventBatch) {
	tx.SetBool(j, attr.ExitBySignal, u.ExitBySignal)
	if u.ExitBySignal {
		tx.SetInt(j, attr.ExitSignal, int64(u.ExitSignal))
		tx.Delete(j, attr.ExitCode)
	} else {
		tx.SetInt(j, attr.ExitCode, int64(u.ExitCode))
		tx.SetInt(j, attr.ExitStatus, int64(u.ExitCode)) // its old name
		tx.Delete(j, attr.ExitSignal)
	}
	v := tx.View(j)
	tx.SetInt(j, attr.NumJobCompletions, v.Int(attr.NumJobCompletions, 0)+1)
	switch d := onExit(tx, j); d.Action {
	case jobpolicy.Hold:
		s.hold(tx, j, d.Reason, d.Code, d.Sub, ev)
		return
	case jobpolicy.Requeue:
		setStatus(tx, j, attr.Idle, at) // runs again (max_retries)
		s.claims.DetachJob(j.ID)
		return
	}
	setStatus(tx, j, attr.Completed, at)
	tx.SetInt(j, attr.CompletionDate, at.Unix())
	v = tx.View(j)
	ev.add(&v, terminatedEvent(&v, u, at))
	if !keepCompleted(tx, j) { // LeaveJobInQueue: a spooled job waits for transfer_data (spool.go)
		s.leave(tx, j)
	}
}

// onExit is the job's on-exit policy's decision, from its ad as staged.
func onExit(tx *queue.Tx, j *queue.Job) jobpolicy.Decision {
	v := tx.View(j)
	return jobpolicy.OnExitOf(lookup(&v, attr.OnExitHold), lookup(&v, attr.OnExitRemove), func() *classad.Ad { return tx.Ad(j) })
}

// lookup is a job's attribute's expression, nil when it has none.
func lookup(v *queue.View, name string) ast.Expr {
	if e, ok := v.Lookup(name); ok {
		return e
	}
	return nil
}

// terminatedEvent is a job's terminated event.
func terminatedEvent(v *queue.View, u *wire.JobUpdate, at time.Time) userlog.Event {
	ev := userlog.Event{
		Code: userlog.Terminated, Time: at, Normal: !u.ExitBySignal, ReturnCode: u.ExitCode, Signal: u.ExitSignal,
		RunRemote:   userlog.Usage{User: u.UserCPU, Sys: u.SysCPU},
		TotalRemote: userlog.Usage{User: v.Real(attr.RemoteUserCpu), Sys: v.Real(attr.RemoteSysCpu)},
		TotalSent:   int64(v.Real(attr.BytesSent)), TotalReceived: int64(v.Real(attr.BytesRecvd)),
	}
	if t := u.Transfers; t != nil {
		ev.SentBytes, ev.ReceivedBytes = t.Out[cedarMethod].Bytes, t.In[cedarMethod].Bytes
	}
	usage := func(mem bool) float64 {
		if mem && u.PeakMemoryMB > 0 {
			return float64(u.PeakMemoryMB)
		}
		return -1
	}
	ev.Resources = []userlog.Resource{
		{Name: "Cpus", Usage: -1, Request: v.Real(attr.RequestCpus), Allocated: v.Real(attr.RequestCpus)},
		{Name: "Disk (KB)", Usage: -1, Request: v.Real(attr.RequestDisk), Allocated: v.Real(attr.RequestDisk)},
		{Name: "Memory (MB)", Usage: usage(true), Request: v.Real(attr.RequestMemory), Allocated: v.Real(attr.RequestMemory)},
	}
	return ev
}

// reuse gives a claim whose job ended the owner's next idle job that fits,
// or keeps it idle for keep (the job's KeepClaimIdle, claimhold.go), or
// releases it.
func (s *Server) reuse(ctx context.Context, c *claims.Claim, keep time.Duration) {
	if s.claims.State(c).Gone {
		return
	}
	next, ok := s.next(c)
	switch {
	case !ok && keep > 0:
		s.holdClaim(c, keep)
		return
	case !ok:
		s.releaseClaim(ctx, c)
		return
	}
	s.activate(ctx, c, next, true)
}

// eventLabel bounds the metric's labels to the known events.
func eventLabel(e string) string {
	switch e {
	case wire.EventStarted, wire.EventCheckpointed, wire.EventExited, wire.EventEvicted, wire.EventHeld, wire.EventFailed:
		return e
	}
	return "other"
}
