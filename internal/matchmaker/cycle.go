package matchmaker

import (
	"maps"
	"math/rand/v2"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/policy"
)

// Attributes HTCondor inserts for PREEMPTION_REQUIREMENTS and ranks.
const (
	submitterUserPrio = "SubmitterUserPrio"
	remoteUserPrio    = "RemoteUserPrio"
)

// Cycle runs one negotiation cycle: a pure function of the snapshot, the
// policy and its seed. It reads the ads of the snapshot and may add
// SubmitterUserPrio and RemoteUserPrio to them when the policy preempts by
// priority.
func Cycle(snap *Snapshot, pol *Policy) Result {
	start := time.Now()
	m := newMarket(snap, pol)
	m.stats.ClassifyTime = time.Since(start)
	strategy := strategyOf(pol)
	start = time.Now()
	strategy.Distribute(m)
	m.stats.MatchTime = time.Since(start)
	return m.result(strategy)
}

// newMarket classifies the snapshot's slots and reads its requests.
func newMarket(snap *Snapshot, pol *Policy) *market {
	m := &market{
		pol:   pol,
		now:   snap.Now,
		rng:   rand.New(rand.NewPCG(pol.Seed, pol.Seed^0x9e3779b97f4a7c15)),
		inUse: maps.Clone(snap.LimitsInUse),
		prios: snap.Priorities,
		pool:  snap.Pool,
	}
	if m.pool == nil {
		m.pool = snap.Slots
	}
	replicas := policy.NeedsOf(strategyOf(pol)).Replicas
	if m.inUse == nil {
		m.inUse = map[string]float64{}
	}
	m.st.Now = func() time.Time { return m.now }
	if pol.PreemptionRequirements != nil {
		markPriorities(snap)
	}
	sig := significantAttrs(snap, pol)
	m.cls = newClassifier(sig)
	m.slots = make([]*slot, 0, len(snap.Slots))
	m.slotViews = make([]policy.Slot, 0, len(snap.Slots))
	for k, ad := range snap.Slots {
		s := newSlot(ad, pol.Seed, pol.ConsiderPreemption)
		if s == nil {
			if snap.PoolWeight == 0 {
				m.poolWeight += slotWeight(ad)
			}
			continue
		}
		if snap.PoolWeight == 0 {
			m.poolWeight += s.weight
		}
		s.index = len(m.slots)
		s.escape = sig.slotEscapes[k]
		m.slots = append(m.slots, s)
		m.slotViews = append(m.slotViews, makePolicySlot(s))
		m.freeSlots++
		if !s.busy {
			m.freeWeight += s.weight
		}
		m.cls.add(s)
	}
	if snap.PoolWeight > 0 {
		m.poolWeight = snap.PoolWeight
	}
	m.cls.sortMembers()
	for _, sub := range snap.Submitters {
		ps := policy.Submitter{Name: sub.Name, Priority: sub.Priority, InUse: sub.InUse}
		for _, r := range sub.Requests {
			if r.Count <= 0 || r.Ad == nil {
				continue
			}
			replica := isReplica(r.Ad)
			if replica && !replicas {
				continue // only strategies that replicate see replica requests
			}
			ps.Requests = append(ps.Requests, len(m.reqViews))
			m.reqViews = append(m.reqViews, policy.Request{Submitter: len(m.subs), ID: r.ID, Count: r.Count, Ad: r.Ad, Replica: replica})
			schedd := r.Schedd
			if schedd == "" {
				schedd = sub.Schedd
			}
			m.reqs = append(m.reqs, reqState{remaining: r.Count, schedd: schedd, limits: JobLimits(r.Ad), prio: sub.Priority,
				view: m.views.viewOf(r.Ad)})
			if !replica {
				m.stats.Jobs += r.Count
			}
		}
		m.subs = append(m.subs, ps)
	}
	m.stats.Slots, m.stats.Submitters, m.stats.Requests = len(snap.Slots), len(m.subs), len(m.reqViews)
	return m
}

// strategyOf is the policy's strategy, HTCondor's by default.
func strategyOf(pol *Policy) policy.Strategy {
	if pol.Strategy == nil {
		return policy.Condor{}
	}
	return pol.Strategy
}

// isReplica reports a request for more instances of running jobs: its
// ad says KiteReplica = true.
func isReplica(ad *classad.Ad) bool {
	e, ok := ad.Lookup(attr.KiteReplica)
	if !ok {
		return false
	}
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.BoolLit && l.Bool
}

func makePolicySlot(s *slot) policy.Slot {
	return policy.Slot{Name: s.name, Ad: s.ad, Weight: s.weight, Busy: s.busy, Partitionable: s.pslot}
}

// markPriorities gives request ads the submitter's priority and busy slot
// ads their user's, as HTCondor does for PREEMPTION_REQUIREMENTS.
func markPriorities(snap *Snapshot) {
	for _, sub := range snap.Submitters {
		for _, r := range sub.Requests {
			if r.Ad != nil {
				r.Ad.Set(submitterUserPrio, ast.Real(sub.Priority))
			}
		}
	}
	for _, ad := range snap.Slots {
		if user := stringAttr(ad, attr.RemoteUser); user != "" {
			if p, ok := snap.Priorities[user]; ok {
				ad.Set(remoteUserPrio, ast.Real(p))
			}
		}
	}
}

// result gathers the cycle's matches and statistics.
func (m *market) result(s policy.Strategy) Result {
	st := m.stats
	st.Strategy = s.Name()
	st.Classes = len(m.cls.classes)
	st.Rejections = map[string]int{}
	for j, r := range m.reqs {
		st.Evaluations += r.evals
		if r.remaining > 0 && !m.reqViews[j].Replica {
			why := r.reason
			if why == policy.OK {
				why = policy.Policy
			}
			st.Rejections[why.String()] += r.remaining
		}
	}
	return Result{Matches: m.matches, Stats: st}
}

var _ policy.Market = (*market)(nil)
