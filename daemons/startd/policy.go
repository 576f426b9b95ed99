package startd

import (
	"context"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
)

// verdict is what the policy expressions say of a slot at one
// evaluation.
type verdict struct {
	isOwner    bool          // IS_OWNER, without a job
	startFalse bool          // START is false for the claim's job
	suspend    bool          // SUSPEND
	cont       bool          // CONTINUE
	preempt    bool          // PREEMPT
	kill       bool          // KILL
	retirement time.Duration // MaxJobRetirementTime
}

// claimView is what the policy needs to know of a slot's claim.
type claimView struct {
	claimed     bool
	expired     bool          // the lease ran out
	ran         time.Duration // how long the job has been running
	retireUntil time.Time
	vacating    time.Duration // how long the job has been vacating
}

// action is what the policy does to a slot.
type action uint8

const (
	actNone action = iota
	actOwnerGone
	actOwnerBack
	actSuspend
	actContinue
	actRetire
	actVacate
	actKill
)

// decide is the policy: given a slot's status, the verdict and its claim,
// what to do and why. It reads no clock and does no I/O.
func decide(status slots.Status, v verdict, c claimView, now time.Time, grace time.Duration) (action, string) {
	if c.claimed && c.expired && status.State == slots.Claimed {
		return actVacate, "the claim's lease expired"
	}
	switch status {
	case slots.Status{State: slots.Owner, Activity: slots.Idle}:
		if !v.isOwner {
			return actOwnerGone, ""
		}
	case slots.Status{State: slots.Unclaimed, Activity: slots.Idle}, slots.Status{State: slots.Matched, Activity: slots.Idle}:
		if v.isOwner {
			return actOwnerBack, ""
		}
	case slots.Status{State: slots.Claimed, Activity: slots.Idle}:
		if v.startFalse {
			return actVacate, "START no longer accepts the claim's job"
		}
	case slots.Status{State: slots.Claimed, Activity: slots.Busy}:
		if v.suspend {
			return actSuspend, ""
		}
		if v.preempt {
			return preempt(v, c)
		}
	case slots.Status{State: slots.Claimed, Activity: slots.Suspended}:
		if v.preempt {
			return preempt(v, c)
		}
		if v.cont {
			return actContinue, ""
		}
	case slots.Status{State: slots.Claimed, Activity: slots.Retiring}:
		if !c.retireUntil.IsZero() && !now.Before(c.retireUntil) {
			return actVacate, "the job's retirement time is over"
		}
	case slots.Status{State: slots.Preempting, Activity: slots.Vacating}:
		if v.kill {
			return actKill, "the startd's KILL policy is true"
		}
		if c.vacating >= grace {
			return actKill, "the job did not stop within the vacate grace"
		}
	}
	return actNone, ""
}

// preempt retires a job with retirement time left, else vacates it.
func preempt(v verdict, c claimView) (action, string) {
	const why = "the startd's PREEMPT policy is true"
	if v.retirement > c.ran {
		return actRetire, why
	}
	return actVacate, why
}

// policyLoop evaluates the policy every PolicyInterval.
func (s *Server) policyLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.PolicyInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.tick()
		}
	}
}

// tick reads the sensors and applies the policy to every slot.
func (s *Server) tick() {
	s.sense()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evaluate()
}

// sense reads the load and the idle times.
func (s *Server) sense() {
	load := s.sensors.LoadAvg()
	kb, con := s.sensors.Idle(s.now())
	s.mu.Lock()
	s.load, s.keyboardIdle, s.consoleIdle = load, kb, con
	s.mu.Unlock()
}

// evaluate applies the policy to every slot (the lock is held).
func (s *Server) evaluate() {
	if s.stopping {
		return
	}
	now := s.now()
	for _, st := range s.all() {
		a, why := decide(st.Status(), s.verdict(st), s.claimView(st, now), now, s.cfg.KillGrace)
		s.act(st, a, why)
	}
	s.checkDrained()
}

// verdict evaluates the policy expressions of a slot, against its
// claim's job when it has one.
func (s *Server) verdict(st *slotState) verdict {
	ad := s.policyAd // the expressions read nothing else (policyad.go)
	if ad == nil || len(st.sitaAttrs) > 0 {
		ad = s.slotAd(st)
	}
	var job *classad.Ad
	if st.claim != nil {
		job = st.claim.job
	}
	return verdictOf(ad, job)
}

// verdictOf evaluates the policy expressions of a slot ad, against the
// job when there is one.
func verdictOf(ad, job *classad.Ad) verdict {
	v := verdict{
		isOwner: isTrue(ad, attr.IsOwner, nil), suspend: isTrue(ad, attr.Suspend, job), cont: isTrue(ad, attr.Continue, job),
		preempt: isTrue(ad, attr.Preempt, job), kill: isTrue(ad, attr.Kill, job),
	}
	if job != nil {
		val, err := classad.EvalAttr(ad, attr.Start, job)
		b, ok := val.BoolValue()
		v.startFalse = err == nil && ok && !b
		if r, err := classad.EvalAttr(ad, attr.MaxJobRetirementTime, job); err == nil {
			if secs, ok := r.NumberValue(); ok && secs > 0 {
				v.retirement = time.Duration(secs * float64(time.Second))
			}
		}
	}
	return v
}

func isTrue(ad *classad.Ad, name string, target *classad.Ad) bool {
	v, err := classad.EvalAttr(ad, name, target)
	return err == nil && v.IsTrue()
}

// isOwner reports whether the machine's owner wants it (IS_OWNER).
func (s *Server) isOwner(st *slotState) bool { return isTrue(s.slotAd(st), attr.IsOwner, nil) }

// claimView describes a slot's claim at now.
func (s *Server) claimView(st *slotState, now time.Time) claimView {
	c := st.claim
	if c == nil {
		return claimView{}
	}
	v := claimView{claimed: true, expired: now.After(c.expires), retireUntil: c.retireUntil}
	if c.run != nil {
		v.ran = now.Sub(c.activated)
	}
	if st.Status() == (slots.Status{State: slots.Preempting, Activity: slots.Vacating}) {
		v.vacating = now.Sub(st.EnteredActivity())
	}
	return v
}

// act does what the policy decided.
func (s *Server) act(st *slotState, a action, why string) {
	c := st.claim
	switch a {
	case actOwnerGone:
		s.apply(st, slots.OwnerGone)
	case actOwnerBack:
		s.apply(st, slots.OwnerBack)
	case actSuspend:
		if c.run != nil && c.run.Suspend() == nil {
			s.apply(st, slots.Suspend)
		}
	case actContinue:
		if c.run != nil && c.run.Continue() == nil {
			s.apply(st, slots.Continue)
		}
	case actRetire:
		s.retire(st, c.activated.Add(s.verdict(st).retirement), why)
	case actVacate:
		s.endClaim(st, why, false)
	case actKill:
		s.endClaim(st, why, true)
	}
}

// retire lets a job run until a deadline; the claim ends after it.
func (s *Server) retire(st *slotState, until time.Time, why string) {
	c := st.claim
	if st.Status().Activity == slots.Suspended && c.run != nil {
		c.run.Continue()
	}
	c.retireUntil = until
	if c.ending == "" {
		c.ending = why
	}
	s.apply(st, slots.Retire)
}
