package negotiator

import (
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
)

// Between a match and the startd's next ad, the collector still shows the
// slot as it was: unclaimed, with all its resources. The negotiator
// remembers what it handed out until the slot's ad changes (a new
// UpdateSequenceNumber) or a while passes, so that the next cycle does not
// match the same slot again or count a limit twice.

type pendingMatch struct {
	seq, start int64 // the slot ad's UpdateSequenceNumber and DaemonStartTime
	at         time.Time
	pslot      bool
	// What the matches took of a partitionable slot: resources, and the
	// jobs' declared work (policy.Charge).
	cpus, memory, disk float64
	work               float64
	jobs               int
	limits             []matchmaker.LimitUse
	users              map[string]float64 // slot weight matched to each user
}

type pendingMatches struct {
	mu     sync.Mutex
	ttl    time.Duration
	bySlot map[string]*pendingMatch
}

// add remembers match m, whose job holds limits and declares work.
func (p *pendingMatches) add(m matchmaker.Match, limits []matchmaker.LimitUse, work float64, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seq := classad.EvalIntOr(m.Slot, attr.UpdateSequence, 0)
	start := classad.EvalIntOr(m.Slot, attr.DaemonStartTime, 0)
	e := p.bySlot[m.SlotName]
	if e == nil || e.seq != seq || e.start != start {
		e = &pendingMatch{seq: seq, start: start}
		p.bySlot[m.SlotName] = e
	}
	if e.users == nil {
		e.users = map[string]float64{}
	}
	if m.Cpus > 0 {
		e.users[m.Submitter] += m.Cpus
	} else {
		e.users[m.Submitter] += matchmaker.SlotWeight(m.Slot)
	}
	e.at = now
	e.pslot = m.Cpus > 0
	e.cpus += m.Cpus
	e.memory += m.Memory
	e.disk += m.Disk
	e.work += work
	e.jobs++
	e.limits = append(e.limits, limits...)
}

// forget drops the matches a schedd did not take.
func (p *pendingMatches) forget(ms []matchmaker.Match) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range ms {
		delete(p.bySlot, m.SlotName)
	}
}

// apply takes what is still pending out of a cycle's slots: matched static
// slots are dropped, partitionable ones shrink and hold the matched jobs'
// work (KiteWorkLeft, KiteQueueLength), and pending jobs' limits
// and slot weight count as held by their users. Entries whose slot has
// advertised since, or that are older than the ttl, are forgotten.
func (p *pendingMatches) apply(slots *[]*classad.Ad, limits, inUse map[string]float64, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.bySlot) == 0 {
		return
	}
	kept := (*slots)[:0]
	for _, ad := range *slots {
		name, _ := classad.EvalString(ad, attr.Name)
		e := p.bySlot[name]
		if e == nil {
			kept = append(kept, ad)
			continue
		}
		seq := classad.EvalIntOr(ad, attr.UpdateSequence, 0)
		start := classad.EvalIntOr(ad, attr.DaemonStartTime, 0)
		if seq != e.seq || start != e.start || now.Sub(e.at) > p.ttl {
			delete(p.bySlot, name)
			kept = append(kept, ad)
			continue
		}
		for _, l := range e.limits {
			limits[l.Name] += l.Amount
		}
		for u, w := range e.users {
			inUse[u] += w
		}
		if !e.pslot {
			continue
		}
		setNumber(ad, attr.Cpus, classad.EvalNumberOr(ad, attr.Cpus, 0)-e.cpus)
		setNumber(ad, attr.Memory, classad.EvalNumberOr(ad, attr.Memory, 0)-e.memory)
		setNumber(ad, attr.Disk, classad.EvalNumberOr(ad, attr.Disk, 0)-e.disk)
		policy.Charge(ad, e.work, e.jobs)
		kept = append(kept, ad)
	}
	*slots = kept
	for name, e := range p.bySlot {
		if now.Sub(e.at) > p.ttl {
			delete(p.bySlot, name)
		}
	}
}
