package schedd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/wire"
)

// Lost machines: JoSchKa's keep-alive requeue on Kite's two failure
// detectors. A machine is lost when gossip (memberlist) declares its
// startd dead, or when a claim's keep-alives go unanswered past the
// lease:
//
//	gossip: startd failed ──requeue_after──▶ its claims are lost
//	        (it answers again before: nothing happens)
//	keep-alive unanswered past the lease ──▶ the claim is lost
//	lost claim ──▶ a replica: dropped, the job runs on
//	           ──▶ the first instance of a job with replicas: the oldest
//	               replica carries on as the job's run
//	           ──▶ else the job goes back to idle (an evicted event),
//	               KiteAborts + 1; past max_aborts it is held (code 26,
//	               subcode 1)
//
// A job is never run twice at once on purpose: the given-up claims are
// remembered until their lease is surely over, and vacated at their
// startd when gossip says it is back, or when it answers the schedd's
// periodic tries; until then the startd itself ends a claim nobody keeps
// alive when its lease runs out, and refuses the outputs and events of a
// claim the schedd no longer holds.

// holdSubMachineLost is the HoldReasonSubCode of a job held because its
// machines were lost too often (HoldReasonCode 26: the system's policy).
const holdSubMachineLost = 1

// lostStartds tracks startds gossip found dead and claims given up.
type lostStartds struct {
	mu      sync.Mutex
	pending map[string]func() bool // startd address → the Stop of its requeue to come
	orphans map[string]orphan      // claim id → a claim given up
}

// orphan is a claim the schedd gave up whose startd may still run it.
type orphan struct {
	startd, slot string
	pool         string    // the startd's pool (claims.Claim's Pool)
	until        time.Time // its lease is surely over by then
}

func newLostStartds() *lostStartds {
	return &lostStartds{pending: map[string]func() bool{}, orphans: map[string]orphan{}}
}

// onMember follows the pool's gossip: startds that fail, and those that
// come back.
func (s *Server) onMember(ev membership.Event) {
	m := ev.Member
	if m.Meta.Kind != "startd" || m.Meta.Addr == "" {
		return
	}
	switch {
	case ev.Kind == membership.Failed:
		s.startdFailed(m.Meta.Addr, m.Name)
	case (ev.Kind == membership.Joined || ev.Kind == membership.Updated) && !m.Meta.Leaving:
		s.startdBack(m.Meta.Addr)
	}
}

// startdFailed schedules the requeue of a dead startd's jobs.
func (s *Server) startdFailed(addr, member string) {
	l := s.lost
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending[addr] != nil {
		return
	}
	s.log.Warn("gossip found a startd dead", "startd", member, "requeue_after", s.cfg.RequeueAfter)
	l.pending[addr] = s.cfg.afterFunc(s.cfg.RequeueAfter, func() { s.requeueStartd(addr, member) })
}

// startdBack cancels a requeue to come, and vacates the claims given up
// at a startd that is back.
func (s *Server) startdBack(addr string) {
	l := s.lost
	l.mu.Lock()
	if stop := l.pending[addr]; stop != nil && stop() {
		s.log.Info("a startd gossip found dead is back before its jobs were requeued", "startd", addr)
	}
	delete(l.pending, addr)
	var back []string
	for id, o := range l.orphans {
		if o.startd == addr {
			back = append(back, id)
		}
	}
	l.mu.Unlock()
	if len(back) > 0 {
		s.goBackground(func(ctx context.Context) { s.vacateOrphans(ctx, back) })
	}
}

// requeueStartd gives up every claim at a startd gossip found dead.
func (s *Server) requeueStartd(addr, member string) {
	l := s.lost
	l.mu.Lock()
	delete(l.pending, addr)
	l.mu.Unlock()
	if s.background().Err() != nil {
		return
	}
	at := s.claims.At(addr)
	for _, c := range at {
		s.lostClaim(c, fmt.Sprintf("The machine of %s failed: gossip found its startd (%s) dead", c.SlotName, member))
	}
	if len(at) > 0 {
		s.log.Warn("claims at a dead startd given up", "startd", member, "claims", len(at))
	}
}

// background returns Run's context.
func (s *Server) background() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bg
}

// lostClaim gives up a claim whose machine is gone: the claim is remembered to
// be vacated should its startd answer again, and its job carries on
// elsewhere as the table at the top of this file says.
func (s *Server) lostClaim(c *claims.Claim, reason string) {
	st := s.claims.State(c)
	if st.Gone {
		return
	}
	s.lost.orphan(c, s.now())
	if st.Others > 0 && s.replication.drop(st.Job, c, reason, nil) {
		return
	}
	s.claims.Drop(c)
	if st.Busy {
		s.abortRun(st.Job, c, reason)
	}
}

// orphan remembers a claim given up.
func (l *lostStartds) orphan(c *claims.Claim, now time.Time) {
	l.mu.Lock()
	l.orphans[c.ID] = orphan{startd: c.Startd, slot: c.SlotName, pool: c.Pool, until: now.Add(c.Lease + time.Second)}
	l.mu.Unlock()
}

// abortRun puts a job whose machine was lost back to idle, counting the
// loss; a job lost more often than max_aborts is held.
func (s *Server) abortRun(id queue.JobID, c *claims.Claim, reason string) {
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		v := tx.View(j)
		if v.String(attrClaimID) != c.ID {
			return // the job runs elsewhere by now
		}
		n := v.Int(attr.KiteAborts, 0) + 1
		limit := v.Int(attr.KiteMaxAborts, int64(s.cfg.MaxAborts))
		tx.SetInt(j, attr.KiteAborts, n)
		s.toIdle(tx, j, reason, ev)
		if limit > 0 && n > limit {
			why := fmt.Sprintf("The job's machine was lost %d times, more than the %d allowed (max_aborts); last: %s", n, limit, reason)
			s.hold(tx, j, why, attr.HoldSystemPolicy, holdSubMachineLost, ev)
		}
	})
	if err != nil {
		s.log.Error("requeueing a job whose machine was lost", "job", id.String(), "err", err)
	}
	s.kickAds()
}

// lostLoop tries, every third of the claim lease, to vacate the claims
// given up whose lease may still run, and forgets the others.
func (s *Server) lostLoop(ctx context.Context) {
	every(ctx, max(s.cfg.ClaimLease/3, 10*time.Millisecond), func() {
		now := s.now()
		l := s.lost
		l.mu.Lock()
		var ids []string
		for id, o := range l.orphans {
			if now.After(o.until) {
				delete(l.orphans, id)
			} else {
				ids = append(ids, id)
			}
		}
		l.mu.Unlock()
		s.vacateOrphans(ctx, ids)
		s.claims.SweepOutputs()
	})
}

// vacateOrphans asks the startds of claims given up to vacate and release
// them; a claim its startd vacated or no longer knows is forgotten.
func (s *Server) vacateOrphans(ctx context.Context, ids []string) {
	var wg sync.WaitGroup
	for _, id := range ids {
		s.lost.mu.Lock()
		o, ok := s.lost.orphans[id]
		s.lost.mu.Unlock()
		if !ok {
			continue
		}
		wg.Go(func() {
			cl := s.env.ConnectorFor(o.pool).Client(o.startd)
			vctx, cancel := context.WithTimeout(ctx, min(max(s.cfg.ClaimLease/3, 100*time.Millisecond), 5*time.Second))
			defer cancel()
			err := cl.Call(vctx, "POST", wire.PathVacate, wire.Vacate{ClaimID: id, Reason: "the schedd gave the claim up: its machine was lost", Fast: true}, nil)
			if err != nil && !wire.IsCode(err, wire.CodeNotFound) {
				return // try again later
			}
			if err == nil {
				s.log.Info("vacated a claim given up at a startd that is back", "slot", o.slot)
				cl.Call(vctx, "POST", wire.PathRelease, wire.ClaimRef{ClaimID: id}, nil)
			}
			s.lost.mu.Lock()
			delete(s.lost.orphans, id)
			s.lost.mu.Unlock()
		})
	}
	wg.Wait()
}
