package startd

import (
	"context"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// The startd's own endpoints, besides the claim endpoints of package wire.
const (
	// PathSlots is GET: the startd's slot ads as it holds them (→ Slots;
	// READ). Claim ids are shown to DAEMON callers only.
	PathSlots = "/v1/startd/slots"
	// PathDrain is POST: stop taking claims (Drain → DrainResult;
	// ADMINISTRATOR). A graceful drain lets running jobs finish; otherwise
	// they are vacated. Slots end Drained/Idle.
	PathDrain = "/v1/startd/drain"
	// PathDrainCancel is POST: take claims again (→ DrainResult;
	// ADMINISTRATOR).
	PathDrainCancel = "/v1/startd/drain/cancel"
)

// Slots answers PathSlots.
type Slots struct {
	Slots []*classad.Ad `json:"slots"`
}

// Drain asks a startd to drain.
type Drain struct {
	Graceful bool `json:"graceful,omitempty"`
}

// DrainResult says how many slots are draining or drained.
type DrainResult struct {
	Slots int `json:"slots"`
}

func (s *Server) handleSlots(ctx context.Context, r *wire.Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := Slots{Slots: []*classad.Ad{}}
	for _, st := range s.all() {
		ad := s.slotAd(st)
		if !r.Caller.Allows(auth.Daemon) {
			ad.Delete(attr.ClaimID)
		}
		out.Slots = append(out.Slots, ad)
	}
	return out, nil
}

// handleDrain stops new claims: free slots go Drained at once, idle
// claims end, running jobs retire (graceful) or are vacated.
func (s *Server) handleDrain(ctx context.Context, r *wire.Request) (any, error) {
	var req Drain
	if r.HTTP.ContentLength != 0 {
		if err := r.Decode(&req); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining, s.graceful = true, req.Graceful
	for _, st := range s.all() {
		s.drainSlot(st, req.Graceful)
	}
	s.checkDrained()
	s.log.Info("draining", "graceful", req.Graceful)
	return DrainResult{Slots: len(s.slots)}, nil
}

// drainSlot drains one slot (the lock is held).
func (s *Server) drainSlot(st *slotState, graceful bool) {
	const why = "the startd is draining"
	switch {
	case slots.Allows(st.Status(), slots.Drain):
		s.apply(st, slots.Drain)
	case st.claim == nil:
	case st.claim.run == nil:
		s.endClaim(st, why, false)
	case graceful && slots.Allows(st.Status(), slots.Retire):
		s.retire(st, s.now().AddDate(100, 0, 0), why)
	case !graceful:
		s.endClaim(st, why, false)
	}
}

// checkDrained finishes a drain once no claim is left (the lock is held).
func (s *Server) checkDrained() {
	if !s.draining {
		return
	}
	for _, st := range s.all() {
		if st.claim != nil || st.Status().State != slots.Drained {
			return
		}
	}
	for _, st := range s.slots {
		if slots.Allows(st.Status(), slots.DrainDone) {
			s.apply(st, slots.DrainDone)
		}
	}
}

// handleCancelDrain takes claims again: drained slots go back to Owner,
// and the policy takes them on from there.
func (s *Server) handleCancelDrain(ctx context.Context, r *wire.Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = false
	n := 0
	for _, st := range s.slots {
		if slots.Allows(st.Status(), slots.DrainCancel) {
			s.apply(st, slots.DrainCancel)
			n++
		}
	}
	s.evaluate()
	return DrainResult{Slots: n}, nil
}
