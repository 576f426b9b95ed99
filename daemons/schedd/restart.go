package schedd

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// A restarted schedd reconnects, as HTCondor's does, to the jobs that were
// running when it stopped: before it serves, it asks each running job's
// startd whether the job's claim still runs that job. A job whose startd
// says so keeps running (a reconnected event in its log), its claim kept
// alive again; the startd's reports of it reach the schedd once it serves.
// Every other running job goes back to idle and its claims are vacated; a
// job whose claim could not be vacated waits for the claim's lease to end
// before it may run again. Jobs with replicas are not reconnected.

// runningJob is a job found running at the restart.
type runningJob struct {
	id            queue.JobID
	claim, startd string
	slot, owner   string
	pool          string      // the startd's pool when another pool's (the job's RemotePool)
	replicas      [][3]string // the replicas' claims, startds and pools
}

// reconnectTimeout bounds the question to each startd at a restart.
const reconnectTimeout = 2 * time.Second

// recover reconnects or requeues the jobs that were running.
func (s *Server) recover() error {
	olds := s.runningJobs(func(queue.JobID, string) bool { return true })
	if len(olds) == 0 {
		return nil
	}
	answered, kept := s.settle(olds)
	if err := s.requeueOlds(answered, kept); err != nil {
		// A full disk: the jobs stay running in the queue (nothing starts
		// them again) until the requeue can be written; the schedd serves
		// meanwhile rather than stop and restart in a loop.
		s.log.Error("the jobs found running stay so until the job queue can be written", "err", err)
		s.goBackground(func(ctx context.Context) {
			ctx, done := context.WithCancel(ctx)
			defer done()
			every(ctx, s.cfg.requeueRetry, func() {
				if s.requeueOlds(answered, kept) == nil {
					s.log.Info("the jobs found running at the restart are requeued")
					done()
				}
			})
		})
	}
	return nil
}

// settle asks the startds of jobs found running whether they still run
// them. It returns the jobs whose startd answered, with the claims of
// those it still runs (taken on again), for requeueOlds to commit; the
// jobs whose startd could not be reached stay running, and are asked
// about again in the background until their claim's lease would be over
// (awaitStartds): a startd restarting (by its master, or with the whole
// pool) answers within it, naming a job that ended while the schedd was
// away, whose end it still holds.
func (s *Server) settle(olds []runningJob) (answered []runningJob, kept map[queue.JobID]*claims.Claim) {
	kept, unsure := s.reattach(olds)
	var waiting []runningJob
	for _, o := range olds {
		if unsure[o.id] {
			waiting = append(waiting, o)
		} else {
			answered = append(answered, o)
		}
	}
	if len(waiting) > 0 {
		s.claims.Await(jobIDs(waiting))
		s.log.Info("asking again the startds that do not answer for their running jobs", "jobs", len(waiting))
		deadline := s.now().Add(s.cfg.ClaimLease)
		s.goBackground(func(ctx context.Context) { s.awaitStartds(ctx, waiting, deadline) })
	}
	return answered, kept
}

// awaitStartds asks the startds of jobs again until each answers or the
// deadline passes; a job whose startd never answered goes back to idle,
// its claim's lease then over at the startd too.
func (s *Server) awaitStartds(ctx context.Context, waiting []runningJob, deadline time.Time) {
	wait := 250 * time.Millisecond
	for len(waiting) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
		last := !s.now().Before(deadline)
		kept, unsure := s.reattach(waiting)
		var answered, still []runningJob
		for _, o := range waiting {
			if unsure[o.id] && !last {
				still = append(still, o)
			} else {
				answered = append(answered, o)
			}
		}
		if len(answered) == 0 {
			continue
		}
		for s.requeueOlds(answered, kept) != nil {
			select { // a full disk: try again
			case <-ctx.Done():
				return
			case <-time.After(s.cfg.requeueRetry):
			}
		}
		s.claims.Answered(jobIDs(answered))
		waiting = still
	}
}

// runningJobs returns the jobs the queue has running that keep says to.
func (s *Server) runningJobs(keep func(id queue.JobID, claim string) bool) []runningJob {
	var olds []runningJob
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			for j := range c.Jobs {
				if j.Status() != attr.Running {
					continue
				}
				v := j.View()
				o := runningJob{id: j.ID, claim: v.String(attrClaimID), startd: v.String(attrStartdAddr),
					slot: v.String(attr.RemoteHost), owner: v.Submitter, replicas: replicaClaims(&v), pool: v.String(attrRemotePool)}
				if keep(o.id, o.claim) {
					olds = append(olds, o)
				}
			}
		}
	})
	return olds
}

// reattach asks the startds which of the jobs found running they still
// run, and takes those claims on again; unsure are the jobs whose startd
// could not be reached.
func (s *Server) reattach(olds []runningJob) (kept map[queue.JobID]*claims.Claim, unsure map[queue.JobID]bool) {
	kept, unsure = s.reconnect(olds)
	for id, c := range kept {
		s.claims.Reattach(c, id)
	}
	if len(kept) > 0 {
		s.log.Info("reconnected to running jobs", "jobs", len(kept))
	}
	return kept, unsure
}

// A change that could not be written (a full disk) may leave a job
// Running in the queue with no claim behind it: its requeue, or its
// start's undoing, was refused. Once the queue takes commits again, the
// schedd settles such orphans as a restart settles every running job:
// reconnected where their startd still runs them (or still holds their
// last event), else back to idle.

// settleOrphans watches the queue's failed commits and, after some, once
// a commit succeeds again, settles the jobs left running with no claim.
func (s *Server) settleOrphans(ctx context.Context) {
	o := &orphans{s: s}
	every(ctx, s.cfg.requeueRetry, o.settle)
}

// orphans settles the jobs that failed commits left running with no
// claim; settled is the count of failures it has settled.
type orphans struct {
	s       *Server
	settled int64
}

// settle looks for orphans once failures were counted since the last
// settling, and settles them; it tries again at its next call while a
// settling fails (the disk still full) or a job is still on its way to
// or from a claim (reserved for one, or its startd being asked): seen in
// that moment, such a job is no orphan, but may be one a moment later,
// when its claim is made, or refused.
func (o *orphans) settle() {
	s := o.s
	failures := s.q.Failures()
	if failures == o.settled {
		return
	}
	pending := false
	orphan := func(id queue.JobID, claim string) bool {
		if s.local.running(id) {
			return false
		}
		orphan, onItsWay := s.claims.Orphaned(id, claim)
		pending = pending || onItsWay
		return orphan
	}
	if found := s.runningJobs(orphan); len(found) > 0 {
		s.log.Info("settling jobs left running by changes the queue could not write", "jobs", len(found))
		if err := s.requeueOlds(s.settle(found)); err != nil {
			return // the next call tries again
		}
	}
	if !pending {
		o.settled = failures
	}
}

// jobIDs lists the jobs' ids.
func jobIDs(olds []runningJob) []queue.JobID {
	ids := make([]queue.JobID, len(olds))
	for i, o := range olds {
		ids[i] = o.id
	}
	return ids
}

// requeueOlds commits the restart's verdict on the jobs found running:
// reconnected events for those kept, the others back to idle (their
// claims then vacated).
func (s *Server) requeueOlds(olds []runningJob, kept map[queue.JobID]*claims.Claim) error {
	var lost []runningJob
	err := s.q.Update(func(tx *queue.Tx) error {
		ev := s.newEvents()
		for _, o := range olds {
			j := tx.Job(o.id)
			if j == nil || tx.Status(j) != attr.Running {
				continue
			}
			v := tx.View(j)
			if c := kept[o.id]; c != nil {
				ev.add(&v, userlog.Event{Code: userlog.Reconnected, Host: "<" + c.Startd + ">", Slot: c.SlotName})
				continue
			}
			lost = append(lost, o)
			s.toIdle(tx, j, "The schedd restarted while the job ran", ev)
		}
		ev.after(tx)
		return nil
	})
	if err != nil {
		return err
	}
	s.vacateLost(lost)
	return nil
}

// reconnect asks the startds, several at once, whether the jobs' claims
// still run them, and returns the claims of those that do; unsure are the
// jobs whose startd could not be reached (or failed to answer).
func (s *Server) reconnect(olds []runningJob) (map[queue.JobID]*claims.Claim, map[queue.JobID]bool) {
	kept := map[queue.JobID]*claims.Claim{}
	unsure := map[queue.JobID]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for _, o := range olds {
		if o.claim == "" || o.startd == "" || len(o.replicas) > 0 {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), reconnectTimeout)
			defer cancel()
			var res wire.AliveResult
			err := s.env.ConnectorFor(o.pool).Client(o.startd).Call(ctx, "POST", wire.PathAlive, wire.ClaimRef{ClaimID: o.claim}, &res)
			var we *wire.Error
			if err != nil && (!errors.As(err, &we) || we.Status >= 500) {
				mu.Lock()
				unsure[o.id] = true
				mu.Unlock()
				return
			}
			if err != nil || res.Job != o.id.String() {
				return
			}
			c := &claims.Claim{ID: o.claim, Startd: o.startd, Pool: o.pool, SlotName: o.slot, Owner: o.owner,
				Lease: s.cfg.ClaimLease, Slot: s.slotAd(ctx, o.slot)}
			mu.Lock()
			kept[o.id] = c
			mu.Unlock()
		})
	}
	wg.Wait()
	return kept, unsure
}

// slotAd asks the collector for a slot's ad, so that a reconnected claim
// can run the owner's next job; nil when the collector does not have it
// (the claim is then released when its job ends).
func (s *Server) slotAd(ctx context.Context, name string) *classad.Ad {
	if name == "" {
		return nil
	}
	var slot *classad.Ad
	q := wire.Query{Type: attr.TypeSlot, Constraint: "Name == " + string(ast.AppendQuoted(nil, name)), Limit: 1}
	s.env.Collector().Stream(ctx, "POST", wire.PathQuery, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err == nil {
			slot = ad
		}
		return nil
	})
	return slot
}

// vacateLost vacates, in the background, the claims of the jobs a restart
// put back to idle; each job waits until its claims are vacated or their
// lease is over.
func (s *Server) vacateLost(lost []runningJob) {
	if len(lost) == 0 {
		return
	}
	var olds []runningJob // a claim each: first instances, then replicas
	for _, o := range lost {
		olds = append(olds, o)
		for _, rc := range o.replicas {
			olds = append(olds, runningJob{id: o.id, claim: rc[0], startd: rc[1], pool: rc[2]})
		}
	}
	until := s.now().Add(s.cfg.ClaimLease)
	for _, o := range olds {
		s.claims.Block(o.id, until)
	}
	s.log.Info("jobs that were running are idle again", "jobs", len(lost))
	pending := map[queue.JobID]int{} // claims (first instance, replicas) still to vacate
	for _, o := range olds {
		pending[o.id]++
	}
	s.goBackground(func(ctx context.Context) {
		for _, o := range olds {
			if o.claim == "" || o.startd == "" {
				continue
			}
			c := &claims.Claim{ID: o.claim, Startd: o.startd, Pool: o.pool, SlotName: o.startd}
			vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := s.startd(c).Call(vctx, "POST", wire.PathVacate, wire.Vacate{ClaimID: o.claim, Reason: "the schedd restarted", Fast: true}, nil)
			cancel()
			if err == nil || wire.IsCode(err, wire.CodeNotFound) {
				if pending[o.id]--; pending[o.id] == 0 {
					s.claims.Unblock(o.id)
				}
				s.releaseClaim(ctx, c)
			}
		}
		s.kickAds()
	})
}
