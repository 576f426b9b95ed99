package schedd

import (
	"context"

	"github.com/kite-sched/kite/daemons/schedd/jobpolicy"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
)

// periodic applies the jobs' periodic policy (package jobpolicy) every
// PeriodicInterval, as HTCondor's PERIODIC_EXPR_INTERVAL does.
func (s *Server) periodic(ctx context.Context) {
	every(ctx, s.cfg.PeriodicInterval, func() {
		if n, err := s.applyPolicy(); err != nil {
			s.log.Error("periodic policy", "err", err)
		} else if n > 0 {
			s.log.Info("periodic policy changed jobs", "jobs", n)
		}
	})
}

// applyPolicy evaluates the periodic expressions of every job and applies
// what they decide; it returns how many jobs changed.
func (s *Server) applyPolicy() (int, error) {
	var views []queue.View
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			q := jobpolicy.Quiet(c.Ad())
			for j := range c.Jobs {
				st := j.Status()
				if st == attr.Completed || st == attr.Removed {
					continue
				}
				v := j.View()
				if q && !jobpolicy.SetsPeriodic(v.Own) {
					continue
				}
				views = append(views, v)
			}
		}
	})
	type decided struct {
		id queue.JobID
		d  jobpolicy.Decision
	}
	var ds []decided
	var m queue.Materializer
	for i := range views {
		v := &views[i]
		if d := jobpolicy.Periodic(m.Ad(v), v.Status, v.Int(attr.HoldReasonCode, 0)); d.Action != jobpolicy.None {
			ds = append(ds, decided{v.ID, d})
		}
	}
	if len(ds) == 0 {
		return 0, nil
	}
	changed := 0
	err := s.q.Update(func(tx *queue.Tx) error {
		ev := s.newEvents()
		for _, d := range ds {
			j := tx.Job(d.id)
			if j == nil {
				continue
			}
			if s.apply(tx, j, d.d, ev) {
				changed++
			}
		}
		ev.after(tx)
		return nil
	})
	if changed > 0 {
		s.kickAds()
	}
	return changed, err
}

// apply applies a policy's decision to a job, in a transaction; it
// reports whether the job changed.
func (s *Server) apply(tx *queue.Tx, j *queue.Job, d jobpolicy.Decision, ev *eventBatch) bool {
	switch d.Action {
	case jobpolicy.Hold:
		return s.hold(tx, j, d.Reason, d.Code, d.Sub, ev)
	case jobpolicy.Remove:
		return s.remove(tx, j, d.Reason, ev)
	case jobpolicy.Release:
		return s.releaseHeld(tx, j, d.Reason, ev)
	}
	return false
}
