package schedd

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/userlog"
	"github.com/kite-sched/kite/internal/attr"
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
	replicas      [][2]string // the replicas' claims and startds
}

// reconnectTimeout bounds the question to each startd at a restart.
const reconnectTimeout = 2 * time.Second

// recover reconnects or requeues the jobs that were running.
func (s *Server) recover() error {
	var olds []runningJob
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			for j := range c.Jobs {
				if j.Status() != attr.Running {
					continue
				}
				v := j.View()
				olds = append(olds, runningJob{id: j.ID, claim: stringAttr(&v, attrClaimID), startd: stringAttr(&v, attrStartdAddr),
					slot: stringAttr(&v, attr.RemoteHost), owner: v.Submitter, replicas: replicaClaims(&v)})
			}
		}
	})
	if len(olds) == 0 {
		return nil
	}
	kept := s.reconnect(olds)
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
				ev.add(&v, userlog.Event{Code: userlog.Reconnected, Host: "<" + c.startd + ">", Slot: c.slotName})
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
	r := s.jobs
	r.mu.Lock()
	for id, c := range kept {
		r.claims[c.id] = c
		r.byJob[id] = c
		r.running++
	}
	r.mu.Unlock()
	if len(kept) > 0 {
		s.log.Info("reconnected to running jobs", "jobs", len(kept))
	}
	s.vacateLost(lost)
	return nil
}

// reconnect asks the startds, several at once, whether the jobs' claims
// still run them, and returns the claims of those that do.
func (s *Server) reconnect(olds []runningJob) map[queue.JobID]*claim {
	kept := map[queue.JobID]*claim{}
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
			err := s.env.Connector().Client(o.startd).Call(ctx, "POST", wire.PathAlive, wire.ClaimRef{ClaimID: o.claim}, &res)
			if err != nil || res.Job != o.id.String() {
				return
			}
			c := &claim{id: o.claim, startd: o.startd, slotName: o.slot, owner: o.owner,
				lease: s.cfg.ClaimLease, alive: s.now(), job: o.id, busy: true, slot: s.slotAd(ctx, o.slot)}
			mu.Lock()
			kept[o.id] = c
			mu.Unlock()
		})
	}
	wg.Wait()
	return kept
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
			olds = append(olds, runningJob{id: o.id, claim: rc[0], startd: rc[1]})
		}
	}
	until := s.now().Add(s.cfg.ClaimLease)
	s.jobs.mu.Lock()
	for _, o := range olds {
		s.jobs.blocked[o.id] = until
	}
	s.jobs.mu.Unlock()
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
			c := &claim{id: o.claim, startd: o.startd, slotName: o.startd}
			vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := s.env.Connector().Client(o.startd).Call(vctx, "POST", wire.PathVacate, wire.Vacate{ClaimID: o.claim, Reason: "the schedd restarted", Fast: true}, nil)
			cancel()
			if err == nil || wire.IsCode(err, wire.CodeNotFound) {
				s.jobs.mu.Lock()
				if pending[o.id]--; pending[o.id] == 0 {
					delete(s.jobs.blocked, o.id)
				}
				s.jobs.mu.Unlock()
				s.jobs.release(ctx, c)
			}
		}
		s.kickAds()
	})
}
