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
func (s *Server) handleJobUpdate(_ context.Context, r *wire.Request) (any, error) {
	var u wire.JobUpdate
	if err := r.Decode(&u); err != nil {
		return nil, err
	}
	return s.takeUpdate(&u)
}

// handleJobUpdates takes several jobs' last events from one startd, each
// as handleJobUpdate takes one, with each its own outcome. Their job ends
// are staged while the queue is held, then waited for, so that one commit
// takes them all rather than one each.
func (s *Server) handleJobUpdates(_ context.Context, r *wire.Request) (any, error) {
	var us wire.JobUpdates
	if err := r.Decode(&us); err != nil {
		return nil, err
	}
	if n := len(us.Updates); n > wire.MaxJobUpdates {
		return nil, wire.BadRequest("%d job updates in one request; at most %d", n, wire.MaxJobUpdates)
	}
	finish := make([]func() (any, error), len(us.Updates))
	release := s.q.Hold()
	defer release() // (once: a panic while staging leaves no hold behind)
	for i := range us.Updates {
		finish[i] = s.stageUpdate(&us.Updates[i], true)
	}
	release()
	res := wire.JobUpdatesResult{Results: make([]wire.JobUpdateOutcome, len(us.Updates))}
	for i, f := range finish {
		res.Results[i] = wire.Outcome(f())
	}
	return res, nil
}

// takeUpdate takes a job's event: nil, or the JobUpdateResult that
// brings the claim's next job.
func (s *Server) takeUpdate(u *wire.JobUpdate) (any, error) {
	return s.stageUpdate(u, false)()
}

// stageUpdate takes a job's event as far as staging its changes; what it
// returns waits for their commit and gives the answer. When held (the
// queue is held: nothing may wait for a commit), only a plain job's end is
// staged; any other event is taken whole by the function returned.
func (s *Server) stageUpdate(u *wire.JobUpdate, held bool) func() (any, error) {
	id, err := queue.ParseJobID(u.Job)
	if err != nil {
		return answer(nil, wire.BadRequest("%v", err))
	}
	if held && (!endEvent(u.Event) || s.replication.involves(u, id)) {
		return func() (any, error) { return s.takeUpdate(u) }
	}
	if handled, err := s.replication.update(u, id); handled {
		s.met.events.WithLabelValues(eventLabel(u.Event)).Inc()
		return answer(nil, err)
	}
	c := s.claims.Of(id, u.ClaimID)
	if c == nil && u.TakesNext {
		if act := s.handedAgain(id, u); act != nil {
			return answer(wire.JobUpdateResult{Next: act}, nil)
		}
	}
	if c == nil && s.claims.Reconnecting(id) {
		// Its startd has not answered the restart's question yet: the
		// event is taken once it has, when the job's claim is known.
		return answer(nil, wire.Unavailable("job %s: the schedd is reconnecting to it; send the event again", u.Job))
	}
	if c == nil {
		return answer(nil, wire.NotFound("job %s does not run under that claim here", u.Job))
	}
	s.met.events.WithLabelValues(eventLabel(u.Event)).Inc()
	s.handoffs.heard(u.ClaimID, id)
	at := time.Unix(u.Time, 0)
	if u.Time == 0 {
		at = s.now()
	}
	switch u.Event {
	case wire.EventStarted:
		return answer(nil, s.started(id, c, at))
	case wire.EventCheckpointed:
		return answer(nil, s.checkpointed(id, u, at))
	case wire.EventExited, wire.EventHeld, wire.EventFailed:
		return s.stageEnd(id, c, u, at)
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
			addUsage(tx, j, u)
			s.toIdle(tx, j, reason, ev)
		})
		s.kickAds()
		return answer(nil, unavailable(err))
	}
	return answer(nil, wire.BadRequest("unknown job event %q (started, checkpointed, exited, evicted, held, failed)", u.Event))
}

// endEvent reports whether an event ends a job's run on its claim
// (stageEnd takes it).
func endEvent(event string) bool {
	return event == wire.EventExited || event == wire.EventHeld || event == wire.EventFailed
}

// answer is an update's answer, known at once.
func answer(ans any, err error) func() (any, error) {
	return func() (any, error) { return ans, err }
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

// stageEnd records a job's exit, hold or failure at the startd, applies
// the job's on-exit policy and, in the same transaction, starts the
// owner's next job that fits on the claim: one commit for both. What it
// returns waits for the commit and answers: the next job goes to the
// startd in the answer when it takes it, else in an activation.
func (s *Server) stageEnd(id queue.JobID, c *claims.Claim, u *wire.JobUpdate, at time.Time) func() (any, error) {
	s.claims.Detach(c)
	next, haveNext := s.next(c)
	started := false
	var wait, keep time.Duration
	first := false
	commit, err := s.stageRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
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
	return func() (any, error) {
		if err == nil {
			err = commit()
		}
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
