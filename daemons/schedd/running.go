package schedd

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/match"
	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/matchexp"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// The schedd's side of running jobs:
//
//	negotiator ──matches──▶ reserve an idle job of the request's autocluster
//	   ──POST /v1/claims──▶ startd: a claim (a dynamic slot for a p-slot)
//	   ──commit Running──▶ POST /v1/claims/activate with the job
//	   ◀── /v1/jobs/update: started, exited, evicted, held, failed
//	exited/held/failed: the claim runs the owner's next idle job that fits
//	the slot (claim reuse), or is released. Keep-alives renew every claim
//	each third of the lease; a claim that stays unanswered past its lease
//	gives its job back to idle with an evicted event.
//
// A job is marked Running, durably, before its activation is sent, so a
// restarted schedd knows which claims may still run a job: it puts those
// jobs back to idle, vacates the claims, and keeps the jobs from matching
// until the claims' leases are over unless the vacate succeeded. A job
// never runs twice at once.

// limitsKey is a job's ConcurrencyLimits, in lower case without blanks,
// to compare two jobs' limits.
func limitsKey(job *classad.Ad) string {
	v, _ := classad.EvalAttr(job, attr.ConcurrencyLimit, nil)
	s, _ := v.StringValue()
	return strings.ToLower(strings.Join(strings.Fields(s), ""))
}

// remember keeps the jobs behind the requests of a submitter's last
// answer, for its matches.
func (s *Server) remember(submitter string, acs []*autocluster) {
	m := make(map[string][]queue.JobID, len(acs))
	for _, ac := range acs {
		ids := make([]queue.JobID, len(ac.jobs))
		for i, j := range ac.jobs {
			ids[i] = j.view.ID
		}
		m[itoa(ac.id)] = ids
	}
	s.claims.Remember(submitter, m)
}

// handleMatches takes the negotiator's matches for a submitter: each
// reserves an idle job of its request (or a running job, for a replica
// request) and claims the slot for it in the background.
func (s *Server) handleMatches(ctx context.Context, r *wire.Request) (any, error) {
	if err := s.flock.allows(r.Caller); err != nil {
		return nil, err
	}
	var m wire.Matches
	if err := r.Decode(&m); err != nil {
		return nil, err
	}
	markPool(m.Matches, r.Caller.Pool)
	type pick struct {
		job     queue.JobID
		slot    *classad.Ad
		preempt string
	}
	var picks, replicas []pick
	for i, match := range m.Matches {
		if match.Slot == nil {
			return nil, wire.BadRequest("match %d: no slot ad", i)
		}
		if s.replication.isRequest(match.Request) {
			if id, ok := s.replication.reserve(m.Submitter, match.Request, match.Slot); ok {
				replicas = append(replicas, pick{id, match.Slot, match.Preempt})
			}
			continue
		}
		if id, ok := s.claims.Reserve(negotiationKey(m.Submitter, r.Caller.Pool), match.Request, s.cfg.MaxRunning); ok {
			picks = append(picks, pick{id, match.Slot, match.Preempt})
		}
	}
	for _, p := range picks {
		s.goBackground(func(ctx context.Context) { s.claimFor(ctx, p.job, p.slot, p.preempt) })
	}
	for _, p := range replicas {
		s.goBackground(func(ctx context.Context) { s.replication.claim(ctx, p.job, p.slot, p.preempt) })
	}
	return wire.MatchesResult{Accepted: len(picks) + len(replicas)}, nil
}

// claimSlot asks a matched slot's startd for a claim to run a job;
// preempt passes on why the negotiator matched a busy slot. The claim is
// not registered yet.
func (s *Server) claimSlot(ctx context.Context, job *classad.Ad, owner string, slot *classad.Ad, preempt string) (*claims.Claim, error) {
	addr := classad.EvalStringOr(slot, attr.MyAddress, "")
	pool := classad.EvalStringOr(slot, attrRemotePool, "") // the pool whose negotiator matched it (markPool)
	req := wire.ClaimRequest{
		ClaimID: classad.EvalStringOr(slot, attr.ClaimID, ""), Slot: classad.EvalStringOr(slot, attr.Name, ""), Job: job,
		Schedd: s.Addr(), ScheddName: s.name, Lease: max(1, int((s.cfg.ClaimLease+time.Second-1)/time.Second)),
		Preempt: preempt,
	}
	var res wire.ClaimResult
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err := s.env.ConnectorFor(pool).Client(addr).Call(cctx, "POST", wire.PathClaim, req, &res)
	cancel()
	if err != nil {
		s.met.claims.WithLabelValues("refused").Inc()
		return nil, fmt.Errorf("claim of %s refused: %w", req.Slot, err)
	}
	s.met.claims.WithLabelValues("granted").Inc()
	c := &claims.Claim{ID: res.ClaimID, Startd: addr, Pool: pool, SlotName: req.Slot, Slot: res.Slot, Owner: owner,
		Lease: time.Duration(res.Lease) * time.Second, Limits: limitsKey(job)}
	if c.Slot == nil {
		c.Slot = slot
	}
	carryPool(slot, c.Slot)
	if c.Lease <= 0 {
		c.Lease = s.cfg.ClaimLease
	}
	return c, nil
}

// claimFor claims a matched slot for a reserved job and starts it there.
func (s *Server) claimFor(ctx context.Context, id queue.JobID, slot *classad.Ad, preempt string) {
	defer s.claims.Unreserve(id)
	job, owner, ok := s.jobAd(id)
	if !ok {
		return
	}
	s.typedJob(job)
	c, err := s.claimSlot(ctx, job, owner, slot, preempt)
	if err != nil {
		s.log.Info("claim refused", "job", id.String(), "err", err)
		return
	}
	s.claims.Add(c)
	s.activate(ctx, c, id, false)
}

// activate runs job id on claim c: Running is committed first, then the
// startd is told. If the job is no longer idle, or the startd refuses,
// the claim goes to the next job or is released. reserved says the job
// was reserved by next (and is unreserved here).
func (s *Server) activate(ctx context.Context, c *claims.Claim, id queue.JobID, reserved bool) {
	for {
		ok, err := s.markRunning(c, id)
		if reserved {
			s.claims.Unreserve(id) // running now, or no longer idle
		}
		if err != nil {
			s.log.Error("marking a job running", "job", id.String(), "err", err)
			s.releaseClaim(ctx, c)
			return
		}
		if ok {
			s.sendActivate(ctx, c, id)
			return
		}
		next, found := s.next(c)
		if !found {
			s.releaseClaim(ctx, c)
			return
		}
		id, reserved = next, true
	}
}

// activation is the job ad sent to run a job on a claim: private
// attributes stripped, typed, and $$() expanded against the slot.
func (s *Server) activation(id queue.JobID, c *claims.Claim) (*classad.Ad, error) {
	v, found := s.view(id)
	if !found {
		return nil, nil // removed meanwhile: the removal vacates the claim
	}
	job := v.AdWithout(privateAttrs...) // as stripPrivate leaves it
	s.typedJob(job)
	s.replication.limitIn(job)
	return job, matchexp.Expand(job, c.Slot)
}

// postActivate sends an activation to a claim's startd.
func (s *Server) postActivate(ctx context.Context, c *claims.Claim, job *classad.Ad) error {
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return s.startd(c).Call(actx, "POST", wire.PathActivate, wire.Activate{ClaimID: c.ID, Job: job}, nil)
}

// sendActivate tells the startd to run a job committed as running on c.
// If the startd refuses, the job goes back to idle and the claim is
// released.
func (s *Server) sendActivate(ctx context.Context, c *claims.Claim, id queue.JobID) {
	job, err := s.activation(id, c)
	if job == nil {
		return
	}
	if err != nil {
		s.holdUnexpandable(ctx, c, id, err)
		return
	}
	err = s.postActivate(ctx, c, job)
	if err == nil || ctx.Err() != nil {
		// On an error because the schedd is stopping, the startd may have
		// taken the job: it stays Running, and the restarted schedd
		// vacates the claim before the job may run again.
		return
	}
	s.log.Warn("activation failed", "job", id.String(), "slot", c.SlotName, "err", err)
	s.requeue(id, c, "the startd refused to run the job: "+err.Error())
	s.releaseClaim(ctx, c)
}

// holdUnexpandable holds a job whose $$() references the slot cannot
// fill, as HTCondor does, and releases the claim.
func (s *Server) holdUnexpandable(ctx context.Context, c *claims.Claim, id queue.JobID, err error) {
	s.claims.Detach(c)
	uerr := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		s.hold(tx, j, "Cannot expand the job's $$() references: "+err.Error(), attr.HoldStartingJob, 0, ev)
	})
	if uerr != nil {
		s.log.Error("holding a job", "job", id.String(), "err", uerr)
	}
	s.releaseClaim(ctx, c)
	s.kickAds()
}

// markRunning commits a job as running on a claim, if it is still idle.
func (s *Server) markRunning(c *claims.Claim, id queue.JobID) (bool, error) {
	started := false
	err := s.q.Update(func(tx *queue.Tx) error {
		if j := tx.Job(id); j != nil && tx.Status(j) == attr.Idle {
			s.startIn(tx, j, c)
			started = true
		}
		return nil
	})
	if err != nil || !started {
		return false, err
	}
	s.attach(c, id)
	return true, nil
}

// startIn marks an idle job running on a claim, in a transaction.
func (s *Server) startIn(tx *queue.Tx, j *queue.Job, c *claims.Claim) {
	now := s.now()
	setStatus(tx, j, attr.Running, now)
	setClaim(tx, j, c)
	tx.SetInt(j, attr.LastMatchTime, now.Unix())
	v := tx.View(j)
	tx.SetInt(j, attr.NumJobMatches, v.Int(attr.NumJobMatches, 0)+1)
	s.matched(tx, j, c, now)
}

// setClaim records durably which claim runs a job.
func setClaim(tx *queue.Tx, j *queue.Job, c *claims.Claim) {
	tx.SetString(j, attr.RemoteHost, c.SlotName)
	tx.SetString(j, attrClaimID, c.ID)
	tx.SetString(j, attrStartdAddr, c.Startd)
	setRemotePool(tx, j, c)
}

// attach records that a claim runs a job (once it is committed running).
func (s *Server) attach(c *claims.Claim, id queue.JobID) {
	s.claims.Attach(c, id)
	s.kickAds()
}

// next reserves the claim owner's next idle job that fits the claimed
// slot: both Requirements hold (claim reuse). The owner's clusters are
// tried in the order of their JobPrio (the submit file's priority),
// highest first, then oldest first; a cluster's jobs in order.
func (s *Server) next(c *claims.Claim) (queue.JobID, bool) {
	var found queue.JobID
	ok := false
	if c.Slot == nil {
		return found, false // reconnected: the slot's ad is not known
	}
	cache := map[*classad.Ad]bool{}
	var m match.Matcher
	mat := materializers.Get().(*queue.Materializer)
	defer materializers.Put(mat)
	taken := s.claims.Unavailable() // one lock, not one a job passed
	s.q.Read(func(rd *queue.Reader) {
		for cl := range rd.IdleClusters(c.Owner) { // by JobPrio, then oldest first
			if clusterOnSchedd(cl) {
				continue // the schedd runs them itself (local.go)
			}
			for j := range cl.IdleJobs { // not the running ones before them
				if taken[j.ID] || !s.claims.Matchable(j.ID) {
					continue
				}
				v := j.View()
				fits, known := cache[v.Cluster]
				plain := v.Own.Len() <= 1 // ProcId only: the cluster decides
				if !known || !plain {
					ad := mat.Ad(&v)
					fits = m.MatchesOnce(ad, c.Slot) && limitsKey(ad) == c.Limits
					if plain {
						cache[v.Cluster] = fits
					}
				}
				if fits && s.claims.TryReserve(j.ID) {
					found, ok = j.ID, true
					return
				}
			}
		}
	})
	return found, ok
}

// materializers keeps next's Materializers from one claim reuse to the
// next: one that last served the same cluster keeps its copy of the
// cluster's ad, whose Requirements stay compiled from job to job.
var materializers = sync.Pool{New: func() any { return new(queue.Materializer) }}

// releaseClaim gives a claim back to its startd.
func (s *Server) releaseClaim(ctx context.Context, c *claims.Claim) {
	s.claims.Drop(c)
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := s.startd(c).Call(rctx, "POST", wire.PathRelease, wire.ClaimRef{ClaimID: c.ID}, nil)
	if err != nil && !wire.IsCode(err, wire.CodeNotFound) {
		s.log.Info("release of a claim failed", "slot", c.SlotName, "err", err)
	}
}

// requeue puts a job that was running back to idle (an evicted event).
func (s *Server) requeue(id queue.JobID, c *claims.Claim, reason string) {
	s.claims.Detach(c)
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		s.toIdle(tx, j, reason, ev)
	})
	if err != nil {
		s.log.Error("requeueing a job", "job", id.String(), "err", err)
	}
	s.kickAds()
}

// toIdle puts a running job back to idle with an evicted event.
func (s *Server) toIdle(tx *queue.Tx, j *queue.Job, reason string, ev *eventBatch) {
	setStatus(tx, j, attr.Idle, s.now())
	leftMachine(tx, j)
	v := tx.View(j)
	tx.SetInt(j, attr.LastVacateTime, s.now().Unix())
	ev.add(&v, userlog.Event{Code: userlog.Evicted, Reason: reason})
}

// leftMachine records that a job no longer runs where it ran:
// RemoteHost becomes LastRemoteHost, and the claim is forgotten.
func leftMachine(tx *queue.Tx, j *queue.Job) {
	if e, ok := tx.Get(j, attr.RemoteHost); ok {
		tx.Set(j, attr.LastRemoteHost, e)
		tx.Delete(j, attr.RemoteHost)
	}
	tx.Delete(j, attrClaimID)
	tx.Delete(j, attrStartdAddr)
	tx.Delete(j, attrReplicaClaims)
}

// stopClaims is called in a transaction that takes a job out of Running
// (hold, remove): once it commits, the job's claims are vacated and
// released.
func (s *Server) stopClaims(tx *queue.Tx, j *queue.Job, why string) {
	s.stopLocal(tx, j)
	s.replication.stop(tx, j, why)
	c, _ := s.claims.First(j.ID)
	if c == nil {
		return
	}
	leftMachine(tx, j)
	tx.AfterCommit(func() {
		s.claims.Detach(c)
		s.goBackground(func(ctx context.Context) { s.vacate(ctx, c, "the job was "+why) })
	})
}

// vacate stops a claim's job at the startd, then releases the claim.
func (s *Server) vacate(ctx context.Context, c *claims.Claim, reason string) {
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := s.startd(c).Call(vctx, "POST", wire.PathVacate, wire.Vacate{ClaimID: c.ID, Reason: reason, Fast: true}, nil)
	cancel()
	if err != nil && !wire.IsCode(err, wire.CodeNotFound) {
		s.log.Info("vacate failed", "slot", c.SlotName, "err", err)
	}
	s.releaseClaim(ctx, c)
}

// keepAlive renews every claim each third of the lease; a claim whose
// startd has not answered for longer than the lease is lost.
func (s *Server) keepAlive(ctx context.Context) {
	every(ctx, max(s.cfg.ClaimLease/3, 10*time.Millisecond), func() {
		s.handoffs.sweep(s.claims.Known)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 32)
		for _, c := range s.claims.All() {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				s.alive(ctx, c)
			})
		}
		wg.Wait()
	})
}

// alive renews one claim.
func (s *Server) alive(ctx context.Context, c *claims.Claim) {
	actx, cancel := context.WithTimeout(ctx, max(s.cfg.ClaimLease/3, time.Second))
	var res wire.AliveResult
	err := s.startd(c).Call(actx, "POST", wire.PathAlive, wire.ClaimRef{ClaimID: c.ID}, &res)
	cancel()
	if err == nil {
		s.claims.Alive(c)
		return
	}
	lost := wire.IsCode(err, wire.CodeNotFound) || s.claims.Silent(c) > c.Lease
	if !lost || ctx.Err() != nil {
		return
	}
	s.log.Warn("claim lost", "slot", c.SlotName, "err", err)
	s.lostClaim(c, "The claim on "+c.SlotName+" was lost: "+err.Error())
}

// instanceJob returns a job an instance of which claimID runs.
func (s *Server) instanceJob(id queue.JobID, claimID string) (queue.View, error) {
	if c, _, _ := s.claims.Instance(id, claimID); c == nil {
		return queue.View{}, wire.Forbidden("job %s does not run under that claim here", id)
	}
	v, found := s.view(id)
	if !found {
		return queue.View{}, wire.NotFound("no job %s", id)
	}
	return v, nil
}

// view returns a job as it is now.
func (s *Server) view(id queue.JobID) (queue.View, bool) {
	var v queue.View
	found := false
	s.q.Read(func(r *queue.Reader) {
		if j := r.Job(id); j != nil {
			v, found = j.View(), true
		}
	})
	return v, found
}

// jobAd returns a job's whole ad and submitter.
func (s *Server) jobAd(id queue.JobID) (*classad.Ad, string, bool) {
	v, found := s.view(id)
	if !found {
		return nil, "", false
	}
	return v.Ad(), v.Submitter, true
}

func itoa(n int) string { return strconv.Itoa(n) }
