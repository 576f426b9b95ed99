package startd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/match"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// handleClaim grants a schedd a slot for a job: the claim id must be the
// slot's, the slot free, and its Requirements true of the job. A
// partitionable slot gives a dynamic slot sized by the job's requests. A
// claim that preempts waits, without the lock, until the slot's job is
// gone.
func (s *Server) handleClaim(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.ClaimRequest
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	if req.Job == nil {
		return nil, wire.BadRequest("claim: no job ad")
	}
	flockedFrom(req.Job, r.Caller)
	res, vacating, err := s.claimOrPreempt(req)
	if err != nil || vacating == nil {
		return res, err
	}
	if err := vacating.wait(ctx, s.cfg.KillGrace+vacateSlack); err != nil {
		return nil, err
	}
	return s.claimVacated(vacating, req)
}

// claimOrPreempt grants a claim at once, or, for a claim that preempts,
// starts vacating the slot and says what to wait for.
func (s *Server) claimOrPreempt(req wire.ClaimRequest) (any, *vacating, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, preempting, err := s.claimable(req)
	if err != nil {
		return nil, nil, err
	}
	if preempting {
		v, err := s.preemptFor(st, req)
		return nil, v, err
	}
	res, err := s.grant(st, req)
	return res, nil, err
}

// claimVacated grants a preempting claim the slot its vacated job left.
func (s *Server) claimVacated(v *vacating, req wire.ClaimRequest) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := v.target()
	if st.Kind != slots.Partitionable && !slots.Allows(st.Status(), slots.Claim) {
		return nil, wire.Conflict("%s is %s after preemption and cannot be claimed", st.name, st.Status())
	}
	return s.grant(st, req)
}

// grant claims a free slot for a job (the lock is held); a partitionable
// slot is carved into a dynamic slot for it.
func (s *Server) grant(st *slotState, req wire.ClaimRequest) (any, error) {
	ad := s.slotAd(st)
	if why := refusal(ad, req.Job); why != "" {
		return nil, wire.Conflict("%s does not accept the job: %s", st.name, why)
	}
	target := st
	if st.Kind == slots.Partitionable {
		var err error
		if target, err = s.carve(st, ad, req.Job); err != nil {
			return nil, wire.Conflict("%v", err)
		}
	} else {
		s.apply(st, slots.Claim)
	}
	c := s.newClaim(target, req)
	s.log.Info("claimed", "slot", target.name, "schedd", req.ScheddName, "lease", c.lease)
	return wire.ClaimResult{ClaimID: c.id, Slot: s.slotAd(target), Lease: int(c.lease / time.Second)}, nil
}

// claimable finds the slot a claim request names and checks that it may
// be claimed with the id given; preempting is true for a claim on a busy
// slot with its preempting id.
func (s *Server) claimable(req wire.ClaimRequest) (st *slotState, preempting bool, err error) {
	if s.stopping {
		return nil, false, wire.Unavailable("%v", errStopping)
	}
	st = s.byName(req.Slot)
	if st == nil {
		return nil, false, wire.NotFound("no slot %q here", req.Slot)
	}
	if st.claim != nil && st.preemptID != "" && sameSecret(st.preemptID, req.ClaimID) {
		if req.Preempt == "" {
			return nil, false, wire.Conflict("%s is claimed: its id only preempts, and the claim does not ask to", st.name)
		}
		return st, true, nil
	}
	if !sameSecret(st.claimID, req.ClaimID) {
		return nil, false, wire.Conflict("the claim id for %s is stale or wrong", st.name)
	}
	if !slots.Allows(st.Status(), slots.Claim) {
		return nil, false, wire.Conflict("%s is %s and cannot be claimed", st.name, st.Status())
	}
	return st, false, nil
}

// vacateSlack is how much longer than the kill grace a preempting claim
// waits for the slot's job to be gone.
const vacateSlack = 10 * time.Second

// vacating is a slot being vacated for a preempting claim.
type vacating struct {
	slot   *slotState
	parent *slotState    // a dynamic slot's partitionable parent, else nil
	gone   chan struct{} // closed when the preempted claim is over
}

// target is the slot the preempting claim takes: the slot itself, or for
// a dynamic slot its partitionable parent, which the claim carves again.
func (v *vacating) target() *slotState {
	if v.parent != nil {
		return v.parent
	}
	return v.slot
}

// wait returns once the slot is vacated; a slot that is not within limit,
// or a request that ends first, is an error.
func (v *vacating) wait(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	select {
	case <-v.gone:
		return nil
	case <-ctx.Done():
		return wire.Unavailable("%s is still vacating its job", v.slot.name)
	}
}

// preemptFor vacates a busy slot for a preempting claim (the lock is
// held) when the slot's policy allows it.
func (s *Server) preemptFor(st *slotState, req wire.ClaimRequest) (*vacating, error) {
	ad := s.slotAd(st)
	if why := refusal(ad, req.Job); why != "" {
		return nil, wire.Conflict("%s does not accept the job: %s", st.name, why)
	}
	reason, err := preemptReason(st.name, ad, st.claim.job, req)
	if err != nil {
		return nil, err
	}
	v := &vacating{slot: st, gone: st.claim.gone}
	if st.Kind == slots.Dynamic {
		v.parent = s.parentOf(st)
	}
	s.endClaim(st, reason, false)
	return v, nil
}

// preemptReason says why a claim may preempt the job a slot runs, or why
// it may not.
func preemptReason(name string, slot, running *classad.Ad, req wire.ClaimRequest) (string, error) {
	switch req.Preempt {
	case "rank":
		current, _ := classad.EvalAttr(slot, attr.Rank, running)
		offered, _ := classad.EvalAttr(slot, attr.Rank, req.Job)
		c, _ := current.NumberValue()
		o, _ := offered.NumberValue()
		if !(o > c) {
			return "", wire.Conflict("%s does not rank the job (%v) above the one it runs (%v)", name, o, c)
		}
		return "preempted by a job the slot ranks higher", nil
	case "priority":
		return "preempted for a user of better priority", nil
	}
	return "", wire.BadRequest("preempt %q: want rank or priority", req.Preempt)
}

// parentOf returns the partitionable slot a dynamic slot was carved from.
func (s *Server) parentOf(d *slotState) *slotState {
	for _, p := range s.slots {
		if slices.Contains(p.dynamic, d) {
			return p
		}
	}
	return nil
}

// refusal explains why a slot's Requirements do not accept a job, "" if
// they do.
func refusal(slot, job *classad.Ad) string {
	// Evaluated as written: the job's ad is made for this one check, the
	// slot's changes with every activation (activationAd).
	if eval.NewState(slot, job).EvalAttr(attr.Requirements).IsTrue() {
		return ""
	}
	var failed []string
	for _, c := range match.Explain(slot, job, attr.Requirements) {
		if !c.Holds() {
			failed = append(failed, fmt.Sprintf("%s is %s", c, c.Value))
		}
	}
	if len(failed) == 0 {
		return "its Requirements are not true"
	}
	return strings.Join(failed, "; ")
}

// carve makes a dynamic slot of a partitionable one for a job.
func (s *Server) carve(p *slotState, ad, job *classad.Ad) (*slotState, error) {
	d, err := s.carveFor(p, ad, job)
	if err != nil {
		return nil, err
	}
	st := &slotState{Slot: d, name: s.fullName(d.Name()), claimID: newClaimID(), user: p.user,
		sitaAttrs: p.sitaAttrs, requirements: p.requirements}
	p.dynamic = append(p.dynamic, st)
	s.changed()
	return st, nil
}

// newClaim gives a claimed slot its claim.
func (s *Server) newClaim(st *slotState, req wire.ClaimRequest) *claim {
	lease := time.Duration(req.Lease) * time.Second
	if lease <= 0 || lease > s.cfg.ClaimLease {
		lease = s.cfg.ClaimLease
	}
	c := &claim{id: st.claimID, schedd: req.Schedd, scheddName: req.ScheddName, lease: lease,
		expires: s.now().Add(lease), job: req.Job, gone: make(chan struct{}), pool: claimingPool(req.Job)}
	st.claim, st.preemptID = c, newClaimID()
	s.changed()
	return c
}

// claimed finds the slot of a claim, or answers 404.
func (s *Server) claimed(id string) (*slotState, error) {
	st := s.byClaim(id)
	if st == nil || st.claim.ending != "" {
		return nil, wire.NotFound("no such claim")
	}
	return st, nil
}

// handleActivate runs a job on a claimed, idle slot.
func (s *Server) handleActivate(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.Activate
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	if req.Job != nil {
		flockedFrom(req.Job, r.Caller)
	}
	return nil, s.activate(&req)
}

// activate runs a job on a claim, from a schedd's activation or from the
// answer to the claim's last job's end report.
func (s *Server) activate(req *wire.Activate) error {
	if req.Job == nil {
		return wire.BadRequest("activate: no job ad")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return wire.Unavailable("%v", errStopping)
	}
	st, err := s.claimed(req.ClaimID)
	if err != nil {
		return err
	}
	markPool(req.Job, st.claim.pool) // a next job in an end report's answer too
	if !slots.Allows(st.Status(), slots.Activate) {
		return wire.Conflict("%s is %s: it cannot start a job", st.name, st.Status())
	}
	jobID, err := jobIDOf(req.Job)
	if err != nil {
		return wire.BadRequest("activate: %v", err)
	}
	machine := s.activationAd(st)
	if why := refusal(machine, req.Job); why != "" {
		return wire.Conflict("%s does not accept job %s: %s", st.name, jobID, why)
	}
	s.runJob(st, machine, req.Job, jobID)
	return nil
}

// jobIDOf returns a job's "cluster.proc".
func jobIDOf(job *classad.Ad) (string, error) {
	var ids [2]int64
	for i, name := range []string{attr.ClusterID, attr.ProcID} {
		v, err := classad.EvalAttr(job, name, nil)
		n, ok := v.IntValue()
		if err != nil || !ok || n < 0 {
			return "", fmt.Errorf("the job ad has no %s", name)
		}
		ids[i] = n
	}
	return fmt.Sprintf("%d.%d", ids[0], ids[1]), nil
}

// handleAlive renews a claim's lease.
func (s *Server) handleAlive(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.ClaimRef
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.claimed(req.ClaimID)
	if err != nil {
		if res, ok := s.orphanKeepAlive(req.ClaimID); ok {
			return res, nil
		}
		return nil, err
	}
	c := st.claim
	c.expires = s.now().Add(c.lease)
	res := wire.AliveResult{Lease: int(c.lease / time.Second)}
	switch {
	case c.run != nil:
		res.Job = c.jobID
	case c.reporting != "":
		res.Job = c.reporting
	}
	return res, nil
}

// handleRelease ends a claim; a job still running is vacated first.
func (s *Server) handleRelease(ctx context.Context, r *wire.Request) (any, error) {
	return onClaim(s, r, func(req *wire.ClaimRef) string { return req.ClaimID }, func(st *slotState, _ *wire.ClaimRef) {
		st.claim.bySchedd = true
		s.endClaim(st, "the schedd released the claim", false)
	})
}

// handleVacate stops a claim's job, which goes back to its schedd as
// evicted; the claim stays, idle, for the schedd to reuse or release.
func (s *Server) handleVacate(ctx context.Context, r *wire.Request) (any, error) {
	return onClaim(s, r, func(req *wire.Vacate) string { return req.ClaimID }, func(st *slotState, req *wire.Vacate) {
		run := st.claim.run
		if run == nil {
			return
		}
		st.claim.bySchedd = true
		reason := req.Reason
		if reason == "" {
			reason = "the schedd vacated the job"
		}
		run.Vacate(reason, req.Fast)
	})
}

// onClaim decodes a schedd's request about one of its claims and, with
// the lock held, acts on the claimed slot; an unknown claim is an error.
func onClaim[T any](s *Server, r *wire.Request, claimID func(*T) string, act func(*slotState, *T)) (any, error) {
	var req T
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.claimed(claimID(&req))
	if err != nil {
		return nil, err
	}
	act(st, &req)
	return nil, nil
}
