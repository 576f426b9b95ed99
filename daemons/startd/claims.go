package startd

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/match"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// handleClaim grants a schedd a slot for a job: the claim id must be the
// slot's, the slot free, and its Requirements true of the job. A
// partitionable slot gives a dynamic slot sized by the job's requests.
func (s *Server) handleClaim(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.ClaimRequest
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	if req.Job == nil {
		return nil, wire.BadRequest("claim: no job ad")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, preempting, err := s.claimable(req)
	if err != nil {
		return nil, err
	}
	if preempting {
		if st, err = s.preemptFor(ctx, st, req); err != nil {
			return nil, err
		}
	}
	ad := s.slotAd(st)
	if why := refusal(ad, req.Job); why != "" {
		return nil, wire.Conflict("%s does not accept the job: %s", st.name, why)
	}
	target := st
	if st.Kind == slots.Partitionable {
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

// preemptFor vacates a busy slot for a preempting claim (the lock is held,
// and released while the job stops) and returns the slot to claim: the
// slot itself, or for a dynamic slot its partitionable parent, which the
// new claim carves again.
func (s *Server) preemptFor(ctx context.Context, st *slotState, req wire.ClaimRequest) (*slotState, error) {
	ad := s.slotAd(st)
	if why := refusal(ad, req.Job); why != "" {
		return nil, wire.Conflict("%s does not accept the job: %s", st.name, why)
	}
	var reason string
	switch req.Preempt {
	case "rank":
		current, _ := classad.EvalAttr(ad, attr.Rank, st.claim.job)
		offered, _ := classad.EvalAttr(ad, attr.Rank, req.Job)
		c, _ := current.NumberValue()
		o, _ := offered.NumberValue()
		if !(o > c) {
			return nil, wire.Conflict("%s does not rank the job (%v) above the one it runs (%v)", st.name, o, c)
		}
		reason = "preempted by a job the slot ranks higher"
	case "priority":
		reason = "preempted for a user of better priority"
	default:
		return nil, wire.BadRequest("preempt %q: want rank or priority", req.Preempt)
	}
	var parent *slotState
	if st.Kind == slots.Dynamic {
		parent = s.parentOf(st)
	}
	s.endClaim(st, reason, false)
	deadline := s.now().Add(s.cfg.KillGrace + 10*time.Second)
	for st.claim != nil || (parent != nil && slices.Contains(parent.dynamic, st)) {
		s.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
		s.mu.Lock()
		if ctx.Err() != nil || s.now().After(deadline) {
			return nil, wire.Unavailable("%s is still vacating its job", st.name)
		}
	}
	if parent != nil {
		return parent, nil
	}
	if !slots.Allows(st.Status(), slots.Claim) {
		return nil, wire.Conflict("%s is %s after preemption and cannot be claimed", st.name, st.Status())
	}
	return st, nil
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
	var m match.Matcher
	if v := m.Evaluate(slot, job).LeftRequirements; v.IsTrue() {
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
	d, err := p.Carve(requestOf(job, ad), s.now())
	if err != nil {
		return nil, err
	}
	st := &slotState{Slot: d, name: s.fullName(d.Name()), claimID: newClaimID(), user: p.user,
		sitaAttrs: p.sitaAttrs, requirements: p.requirements}
	p.dynamic = append(p.dynamic, st)
	s.changed()
	return st, nil
}

// requestOf evaluates a job's requests against a slot: cpus rounded up,
// at least 1; memory in MiB and disk in KiB, rounded up. A job without a
// request asks for 1 cpu, 128 MiB and 1 MiB of disk.
func requestOf(job, slot *classad.Ad) slots.Resources {
	get := func(name string, def float64) int64 {
		v, err := classad.EvalAttr(job, name, slot)
		if f, ok := v.NumberValue(); err == nil && ok && f > 0 {
			return int64(math.Ceil(f))
		}
		return int64(def)
	}
	return slots.Resources{Cpus: get(attr.RequestCpus, 1), Memory: get(attr.RequestMemory, 128), Disk: get(attr.RequestDisk, 1024)}
}

// newClaim gives a claimed slot its claim.
func (s *Server) newClaim(st *slotState, req wire.ClaimRequest) *claim {
	lease := time.Duration(req.Lease) * time.Second
	if lease <= 0 || lease > s.cfg.ClaimLease {
		lease = s.cfg.ClaimLease
	}
	c := &claim{id: st.claimID, schedd: req.Schedd, scheddName: req.ScheddName, lease: lease,
		expires: s.now().Add(lease), job: req.Job}
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
	if req.Job == nil {
		return nil, wire.BadRequest("activate: no job ad")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return nil, wire.Unavailable("%v", errStopping)
	}
	st, err := s.claimed(req.ClaimID)
	if err != nil {
		return nil, err
	}
	if !slots.Allows(st.Status(), slots.Activate) {
		return nil, wire.Conflict("%s is %s: it cannot start a job", st.name, st.Status())
	}
	jobID, err := jobIDOf(req.Job)
	if err != nil {
		return nil, wire.BadRequest("activate: %v", err)
	}
	if why := refusal(s.slotAd(st), req.Job); why != "" {
		return nil, wire.Conflict("%s does not accept job %s: %s", st.name, jobID, why)
	}
	s.runJob(st, req.Job, jobID)
	return nil, nil
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
	var req wire.ClaimRef
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.claimed(req.ClaimID)
	if err != nil {
		return nil, err
	}
	st.claim.bySchedd = true
	s.endClaim(st, "the schedd released the claim", false)
	return nil, nil
}

// handleVacate stops a claim's job, which goes back to its schedd as
// evicted; the claim stays, idle, for the schedd to reuse or release.
func (s *Server) handleVacate(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.Vacate
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.claimed(req.ClaimID)
	if err != nil {
		return nil, err
	}
	if run := st.claim.run; run != nil {
		st.claim.bySchedd = true
		reason := req.Reason
		if reason == "" {
			reason = "the schedd vacated the job"
		}
		run.Vacate(reason, req.Fast)
	}
	return nil, nil
}
