package schedd

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
)

// Claims held idle (the HTCondor manual, "Optimization of Submission
// Time" and the job attribute KeepClaimIdle): when a job that carries
// KeepClaimIdle = N ends and its owner has no other job the claim fits,
// the schedd keeps the claim, idle at its startd, for N seconds instead
// of giving it back. A job of the owner that becomes idle meanwhile (a
// DAG node's child, submitted once its parent is done) runs on it at
// once, without waiting for a negotiation cycle. DAG nodes that have
// children carry KeepClaimIdle = schedd.dag_hold_claim_time, as DAGMan's
// DAGMAN_HOLD_CLAIM_TIME does.

// heldClaims are the claims kept idle and until when.
type heldClaims struct {
	mu    sync.Mutex
	until map[*claims.Claim]time.Time
	n     atomic.Int32 // len(until): poke reads it without the lock
	wake  chan struct{}
}

func newHeldClaims() *heldClaims {
	return &heldClaims{until: map[*claims.Claim]time.Time{}, wake: make(chan struct{}, 1)}
}

// poke asks the keeper to offer the held claims the jobs that became
// idle; it costs nothing while no claim is held.
func (h *heldClaims) poke() {
	if h.n.Load() == 0 {
		return
	}
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *heldClaims) add(c *claims.Claim, until time.Time) {
	h.mu.Lock()
	h.until[c] = until
	h.n.Store(int32(len(h.until)))
	h.mu.Unlock()
	select { // the keeper looks once more: a job may have come meanwhile
	case h.wake <- struct{}{}:
	default:
	}
}

// take removes a claim, reporting whether it was held.
func (h *heldClaims) take(c *claims.Claim) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.until[c]
	delete(h.until, c)
	h.n.Store(int32(len(h.until)))
	return ok
}

// snapshot returns the held claims and their deadlines.
func (h *heldClaims) snapshot() map[*claims.Claim]time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[*claims.Claim]time.Time, len(h.until))
	for c, t := range h.until {
		out[c] = t
	}
	return out
}

// keepClaimIdle is how long a job asks its claim to be kept idle after
// it ends (KeepClaimIdle, a number of seconds; 0 without it). It reads
// the literal: no ad is built on the path of every job's end.
func keepClaimIdle(v *queue.View) time.Duration {
	n := v.Int(attr.KeepClaimIdle, 0)
	if n <= 0 {
		return 0
	}
	return time.Duration(min(n, maxKeepClaimIdle)) * time.Second
}

// maxKeepClaimIdle bounds KeepClaimIdle (DAGMAN_HOLD_CLAIM_TIME's range
// ends at an hour): a job cannot keep a machine from the pool longer.
const maxKeepClaimIdle = 3600

// holdClaim keeps a claim whose job ended idle for keep, for the owner's
// next job.
func (s *Server) holdClaim(c *claims.Claim, keep time.Duration) {
	s.held.add(c, s.now().Add(keep))
}

// keepHeldClaims offers the held claims each job that becomes idle and
// gives each back when its time is up.
func (s *Server) keepHeldClaims(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return // the claims stay; a restarted schedd releases those without a job
		case <-s.held.wake:
		case <-timer.C:
		}
		next := s.offerHeld(ctx)
		timer.Stop()
		if !next.IsZero() {
			timer.Reset(max(next.Sub(s.now()), 0))
		}
	}
}

// offerHeld runs the owner's next job on each held claim that has one,
// releases those whose time is up, and returns the earliest deadline left
// (zero when none is held).
func (s *Server) offerHeld(ctx context.Context) time.Time {
	now := s.now()
	var earliest time.Time
	for c, until := range s.held.snapshot() {
		if s.claims.State(c).Gone {
			s.held.take(c)
			continue
		}
		if id, ok := s.next(c); ok {
			if s.held.take(c) {
				s.wg.Go(func() { s.activate(ctx, c, id, true) })
			} else {
				s.claims.Unreserve(id)
			}
			continue
		}
		if !now.Before(until) {
			if s.held.take(c) {
				s.wg.Go(func() { s.releaseClaim(ctx, c) })
			}
			continue
		}
		if earliest.IsZero() || until.Before(earliest) {
			earliest = until
		}
	}
	return earliest
}
