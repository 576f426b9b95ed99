package schedd

import (
	"context"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
)

// Periodic policy: every PeriodicInterval each job's PeriodicHold,
// PeriodicRemove and PeriodicRelease are evaluated, as HTCondor's
// PERIODIC_EXPR_INTERVAL does. Hold wins over remove; release applies to
// jobs held for any reason but the user's own (codes 1 and 15). An
// expression that is UNDEFINED holds the job with code 5 and says so. A
// cluster whose expressions are the literal false (the default) costs
// nothing per job.

// decision is what the policy does to one job.
type decision struct {
	id     queue.JobID
	action string // hold, remove, release
	reason string
	code   int
	sub    int
}

func (s *Server) periodic(ctx context.Context) {
	t := time.NewTicker(s.cfg.PeriodicInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := s.applyPolicy(); err != nil {
				s.log.Error("periodic policy", "err", err)
			} else if n > 0 {
				s.log.Info("periodic policy changed jobs", "jobs", n)
			}
		}
	}
}

var policyNames = []string{attr.PeriodicHold, attr.PeriodicRemove, attr.PeriodicRelease}

// quiet reports whether a cluster's policy expressions are all absent or
// the literal false, and no proc sets its own.
func quiet(c *classad.Ad) bool {
	for _, n := range policyNames {
		if e, ok := c.Lookup(n); ok {
			if l, isLit := e.(*ast.Literal); !isLit || l.Kind != ast.BoolLit || l.Bool {
				return false
			}
		}
	}
	return true
}

// applyPolicy evaluates the periodic expressions of every job and applies
// what they decide; it returns how many jobs changed.
func (s *Server) applyPolicy() (int, error) {
	var views []queue.View
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			q := quiet(c.Ad())
			for j := range c.Jobs {
				st := j.Status()
				if st == attr.Completed || st == attr.Removed {
					continue
				}
				v := j.View()
				if q && !ownsPolicy(v.Own) {
					continue
				}
				views = append(views, v)
			}
		}
	})
	var ds []decision
	var m queue.Materializer
	for i := range views {
		if d, ok := decide(&views[i], m.Ad(&views[i])); ok {
			ds = append(ds, d)
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
			if s.apply(tx, j, d, ev) {
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

func (s *Server) apply(tx *queue.Tx, j *queue.Job, d decision, ev *eventBatch) bool {
	switch d.action {
	case "hold":
		return s.hold(tx, j, d.reason, d.code, d.sub, ev)
	case "remove":
		return s.remove(tx, j, d.reason, ev)
	case "release":
		return s.release(tx, j, d.reason, ev)
	}
	return false
}

func ownsPolicy(own *classad.Ad) bool {
	for _, n := range policyNames {
		if own.Index(n) >= 0 {
			return true
		}
	}
	return false
}

// decide evaluates one job's periodic expressions in its whole ad.
func decide(v *queue.View, ad *classad.Ad) (decision, bool) {
	d := decision{id: v.ID}
	if v.Status != attr.Held {
		if hold, undef := policyTrue(ad, attr.PeriodicHold); hold || undef {
			d.action = "hold"
			d.reason, d.sub = policyReason(ad, attr.PeriodicHold, undef)
			d.code = attr.HoldJobPolicy
			if undef {
				d.code = attr.HoldJobPolicyUndefined
			}
			return d, true
		}
	}
	if remove, undef := policyTrue(ad, attr.PeriodicRemove); remove {
		d.action = "remove"
		d.reason, _ = policyReason(ad, attr.PeriodicRemove, false)
		return d, true
	} else if undef && v.Status != attr.Held {
		d.action, d.code = "hold", attr.HoldJobPolicyUndefined
		d.reason, d.sub = policyReason(ad, attr.PeriodicRemove, true)
		return d, true
	}
	if v.Status == attr.Held {
		code := intAttr(v, attr.HoldReasonCode, 0)
		if code == attr.HoldUserRequest || code == attr.HoldSubmittedOnHold {
			return d, false
		}
		if release, _ := policyTrue(ad, attr.PeriodicRelease); release {
			d.action = "release"
			d.reason, _ = policyReason(ad, attr.PeriodicRelease, false)
			return d, true
		}
	}
	return d, false
}
