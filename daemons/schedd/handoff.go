package schedd

import (
	"sync"

	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/wire"
)

// A claim's next job travels in the answer to its last job's end report
// when the startd takes it (wire.JobUpdate.TakesNext): one round trip per
// job instead of two. The next job is committed as running with the end,
// before the answer. Should the answer be lost, the startd reports the end
// again; the schedd, which has moved the claim on, recognises the report
// by the hand-off it remembers and answers it again with the same job.

// handoffs remembers, by claim id, the last hand-off of each claim until
// the startd reports on the job handed.
type handoffs struct {
	mu sync.Mutex
	m  map[string]handoff
}

// handoff is a claim's job whose end report's answer carried the next.
type handoff struct{ ended, next queue.JobID }

func (h *handoffs) put(claim string, ended, next queue.JobID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]handoff{}
	}
	h.m[claim] = handoff{ended, next}
}

// next returns the job handed when job ended on claim.
func (h *handoffs) next(claim string, job queue.JobID) (queue.JobID, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ho, ok := h.m[claim]
	return ho.next, ok && ho.ended == job
}

// heard forgets a claim's hand-off once the startd reports on the job
// handed: it took it.
func (h *handoffs) heard(claim string, job queue.JobID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ho, ok := h.m[claim]; ok && ho.next == job {
		delete(h.m, claim)
	}
}

// sweep forgets the hand-offs of claims no longer known.
func (h *handoffs) sweep(known func(claim string) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for claim := range h.m {
		if !known(claim) {
			delete(h.m, claim)
		}
	}
}

// handOff returns the activation of next, committed as running on c when
// ended's end was, for the answer to the end report; nil when the job
// cannot go that way (removed meanwhile, or its $$() references cannot be
// expanded: sendActivate deals with those) or the schedd is stopping: a
// job started then could not fetch its input, and the restarted schedd
// finds its claim idle and gives it back to idle.
func (s *Server) handOff(c *claims.Claim, ended, next queue.JobID) *wire.Activate {
	s.mu.Lock()
	bg := s.bg
	s.mu.Unlock()
	if bg == nil || bg.Err() != nil {
		return nil
	}
	job, err := s.activation(next, c)
	if job == nil || err != nil {
		return nil
	}
	s.handoffs.put(c.ID, ended, next)
	return &wire.Activate{ClaimID: c.ID, Job: job}
}

// handedAgain answers a repeated end report whose first answer carried the
// claim's next job: the same job again, while it is still the claim's and
// the startd has reported nothing of it (it reports again only what got no
// answer, so it has not run it).
func (s *Server) handedAgain(id queue.JobID, u *wire.JobUpdate) *wire.Activate {
	next, ok := s.handoffs.next(u.ClaimID, id)
	if !ok {
		return nil
	}
	c := s.claims.Of(next, u.ClaimID)
	if c == nil {
		return nil
	}
	job, err := s.activation(next, c)
	if job == nil || err != nil {
		return nil
	}
	return &wire.Activate{ClaimID: c.ID, Job: job}
}
