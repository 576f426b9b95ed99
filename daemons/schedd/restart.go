package schedd

import (
	"context"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// recover puts the jobs that were running when the schedd stopped back to
// idle, and vacates their claims; a job whose claim could not be vacated
// waits for the claim's lease to end before it may run again.
func (s *Server) recover() error {
	type old struct {
		id            queue.JobID
		claim, startd string
	}
	var olds []old
	err := s.q.Update(func(tx *queue.Tx) error {
		ev := s.newEvents()
		for c := range tx.Reader().Clusters {
			for j := range c.Jobs {
				if j.Status() != attr.Running {
					continue
				}
				v := j.View()
				olds = append(olds, old{j.ID, stringAttr(&v, attrClaimID), stringAttr(&v, attrStartdAddr)})
				for _, rc := range replicaClaims(&v) { // replicas.go
					olds = append(olds, old{j.ID, rc[0], rc[1]})
				}
				s.toIdle(tx, j, "The schedd restarted while the job ran", ev)
			}
		}
		ev.after(tx)
		return nil
	})
	if err != nil || len(olds) == 0 {
		return err
	}
	until := s.now().Add(s.cfg.ClaimLease)
	s.jobs.mu.Lock()
	for _, o := range olds {
		s.jobs.blocked[o.id] = until
	}
	s.jobs.mu.Unlock()
	s.log.Info("jobs that were running are idle again", "jobs", len(olds))
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
	return nil
}
