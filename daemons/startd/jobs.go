package startd

import (
	"context"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/wire"
)

// runJob starts a job on a claimed slot whose ad is machine (the lock is
// held).
func (s *Server) runJob(st *slotState, machine, job *classad.Ad, jobID string) {
	c := st.claim
	c.job, c.jobID, c.activated, c.retireUntil, c.bySchedd = job, jobID, s.now(), time.Time{}, false
	s.claimChanged(machine, st)
	spare := c.spare // the job's now
	c.spare = nil
	c.expires = s.now().Add(c.lease)
	sc := s.schedd(c)
	keep := &keptResult{s: s, schedd: sc.addr, pool: sc.pool}
	assigned, devEnv, devFiles := s.jobDevices(st)
	devGroup, devDone := s.deviceGroup(st, jobID, assigned)
	user := s.jobUser(st, machine, job)
	machine = machine.Clone() // the starter's: the slot's changes at its next activation
	run := starter.Start(starter.Config{
		AssignedResources: assigned, ResourceEnv: devEnv, DeviceFiles: devFiles, DeviceGroup: devGroup,
		ExecuteDir: s.cfg.ExecuteDir, Slot: st.name, User: user, Cgroups: s.cgroups,
		Cpus: st.Size.Cpus, MemoryMiB: st.Size.Memory, HoldIfMemoryExceeded: s.cfg.HoldIfMemoryExceeded,
		KillGrace: s.cfg.KillGrace, SampleInterval: s.cfg.SampleInterval, FoldStarted: foldStarted,
		Transfer: s.met.transfer(sc), Report: s.met.report(s.now, c.activated, s.reportOf(c, jobID, sc, keep)), Timing: s.met.timing,
		MachineAd: machine, MachineAdText: &st.adText, Spare: spare, Recycle: func(d *sandbox.Dir) { s.recycle(st, c, d) }, Plugins: s.plugins, JVM: s.jvm(), Checkpoints: sc,
		Containers: s.containers.Runtime, ContainerPrefix: s.containerPrefix(), Log: s.log, Now: s.now, Simulate: s.cfg.Simulate,
		Ended: func(u wire.JobUpdate) { devDone(); s.jobEnded(st, c, u) },
		Keep:  keep.keep,
	}, starter.Job{ID: jobID, ClaimID: c.id, Ad: job})
	c.run = run
	s.apply(st, slots.Activate)
	s.log.Info("job activated", "slot", st.name, "job", jobID)
	s.jobs.Go(func() { <-run.Done() })
}

// claimChanged brings a slot's ad, made for the activation's check, up to
// date with its claim's new job (the lock is held): who runs it and the
// work the slot has left.
func (s *Server) claimChanged(ad *classad.Ad, st *slotState) {
	remoteAttrs(ad, st.claim.job)
	s.workAttrs(ad, st)
}

// reportOf sends a job's events to its schedd, with the startd's
// lifetime rather than the job's; once the last event is through (or
// given up), keep-alives stop naming the job.
func (s *Server) reportOf(c *claim, jobID string, sc *scheddClient, keep *keptResult) func(context.Context, wire.JobUpdate) error {
	return func(_ context.Context, u wire.JobUpdate) error {
		last := u.Event != wire.EventStarted && u.Event != wire.EventCheckpointed
		if last {
			keep.keep(u) // a killed startd reports it after its restart
			u.TakesNext = true
		}
		var res wire.JobUpdateResult
		var err error
		if last {
			err = sc.reportEnd(s.reports, u, &res)
		} else {
			err = sc.report(s.reports, u, &res)
		}
		defer func() {
			if res.Next != nil {
				s.takeNext(sc, res.Next)
			}
		}()
		if last {
			s.mu.Lock()
			if c.reporting == jobID {
				c.reporting = ""
			}
			s.mu.Unlock()
			if s.reports.Err() == nil && !s.crashed.Load() {
				s.forgetResult(u) // delivered, refused, or the schedd stayed away
			}
		}
		return err
	}
}

// takeNext runs the claim's next job an end report's answer brought, as
// an activation; one it cannot run is reported evicted, which gives the
// job back to idle and the claim back to the startd.
func (s *Server) takeNext(sc *scheddClient, act *wire.Activate) {
	err := s.activate(act)
	if err == nil {
		return
	}
	jobID, idErr := jobIDOf(act.Job)
	if idErr != nil {
		s.log.Error("the schedd's answer brought a job with no id", "err", idErr)
		return
	}
	s.log.Info("refusing the claim's next job", "job", jobID, "err", err)
	u := wire.JobUpdate{ClaimID: act.ClaimID, Job: jobID, Event: wire.EventEvicted, Time: s.now().Unix(),
		Reason: "the startd refused to run the job: " + err.Error()}
	next := &scheddClient{s: s, addr: sc.addr, pool: sc.pool, claim: act.ClaimID, job: jobID, hc: s.files}
	if err := next.report(s.reports, u, nil); err != nil {
		s.log.Warn("reporting a refused job", "job", jobID, "err", err)
	}
}

// foldStarted: a job that ends within this time of starting is reported
// once, with its start in its last event.
const foldStarted = 50 * time.Millisecond

// jobEnded moves a slot on once its job is gone, before the schedd
// hears of it: back to Claimed/Idle, or, when the claim is ending, to
// free.
func (s *Server) jobEnded(st *slotState, c *claim, u wire.JobUpdate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noteOutcome(c, u)
	c.reporting = c.jobID
	if st.claim != c {
		return
	}
	c.run = nil
	c.retireUntil = time.Time{}
	c.expires = s.now().Add(c.lease)
	switch st.Status().State {
	case slots.Claimed:
		s.apply(st, slots.JobExit)
	case slots.Preempting:
		s.free(st)
		return
	}
	if c.ending != "" || st.Status().State == slots.Preempting {
		s.endClaim(st, c.ending, false)
	}
}

// endClaim ends a claim (the lock is held): an idle claim is freed at
// once, a running job is vacated first and the slot is freed when it is
// gone.
func (s *Server) endClaim(st *slotState, reason string, fast bool) {
	c := st.claim
	if c == nil {
		return
	}
	if c.ending == "" {
		c.ending = reason
		if reason == "" {
			c.ending = "the claim ended"
		}
		s.log.Info("claim ends", "slot", st.name, "reason", reason)
	}
	event := slots.Vacate
	if fast {
		event = slots.Kill
	}
	if slots.Allows(st.Status(), event) {
		s.apply(st, event)
	}
	if c.run != nil {
		c.run.Vacate(c.ending, fast)
		return
	}
	if st.Status().State == slots.Preempting {
		s.free(st)
	}
}

// recycle keeps the sandbox a claim's job parked for the claim's next job,
// or removes it when the claim is ending or gone.
func (s *Server) recycle(st *slotState, c *claim, d *sandbox.Dir) {
	s.mu.Lock()
	keep := st.claim == c && c.ending == "" && c.spare == nil
	if keep {
		c.spare = d
	}
	s.mu.Unlock()
	if !keep {
		s.removeSandbox(d)
	}
}

// removeSandbox removes a sandbox no job uses.
func (s *Server) removeSandbox(d *sandbox.Dir) {
	if err := d.Remove(); err != nil {
		s.log.Warn("removing a spare sandbox", "dir", d.Path, "err", err)
	}
}

// free ends a slot's claim for good (the lock is held): a dynamic slot
// disappears and gives its resources back; another slot gets a new claim
// id and goes Unclaimed, Owner or Drained.
func (s *Server) free(st *slotState) {
	close(st.claim.gone)
	if d := st.claim.spare; d != nil {
		st.claim.spare = nil
		s.jobs.Go(func() { s.removeSandbox(d) })
	}
	st.claim, st.preemptID = nil, ""
	s.freed = true
	if st.Kind == slots.Dynamic {
		p := st.Parent
		st.Release()
		for _, ps := range s.slots {
			if ps.Slot == p {
				ps.dynamic = remove(ps.dynamic, st)
			}
		}
		s.gone = append(s.gone, st.name)
		s.changed()
		s.checkDrained()
		return
	}
	st.claimID = newClaimID()
	s.apply(st, s.freedEvent(st))
	s.checkDrained()
}

// freedEvent says where a slot goes when its claim is over.
func (s *Server) freedEvent(st *slotState) slots.Event {
	switch {
	case s.draining:
		return slots.FreedToDrained
	case s.isOwner(st):
		return slots.FreedToOwner
	}
	return slots.Freed
}

func remove(list []*slotState, st *slotState) []*slotState {
	out := list[:0]
	for _, x := range list {
		if x != st {
			out = append(out, x)
		}
	}
	return out
}
