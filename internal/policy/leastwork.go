package policy

import (
	"cmp"
	"math"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// LeastWorkLeft gives each job the free slot it matches whose host has the
// least work left: the "dynamic" or least-work-remaining assignment of the
// literature (Harchol-Balter et al. 1998; paper 003), which balances the
// hosts' loads rather than their job counts. By default a slot's work left
// is the time its host needs to finish what it holds, KiteWorkLeft /
// KiteSpeed (a missing KiteWorkLeft counts as no work, a missing speed as
// 1, and a host with work left and a speed of 0 never finishes). The loads
// are those the slots advertised when the cycle began; a slot taken in a
// cycle takes no second job in it, so the next job goes to the next least
// loaded host. Ties keep HTCondor's rank order. Requests are served
// oldest first.
//
// Parameters:
//
//	rank  a ClassAd expression evaluated with MY as the slot and TARGET as
//	      the job, smaller first, replacing the default (e.g.
//	      "KiteQueueLength" for the shortest queue). A value that is not
//	      a number sorts last.
type LeastWorkLeft struct {
	rank *classad.Program
}

func init() { Register("least-work-left", func() Strategy { return &LeastWorkLeft{} }) }

// Name implements Strategy.
func (*LeastWorkLeft) Name() string { return "least-work-left" }

// Configure implements Configurable.
func (l *LeastWorkLeft) Configure(p Params) error {
	if err := p.only("rank"); err != nil {
		return err
	}
	prog, err := p.Expr("rank")
	if err != nil {
		return err
	}
	l.rank = prog
	return nil
}

// Distribute implements Strategy.
func (l *LeastWorkLeft) Distribute(m Market) {
	slots := m.Slots()
	reqs := m.Requests()
	loads := make(map[int]float64)
	var cands []int
	for _, j := range requestsByAge(m) {
		cands = m.Candidates(j, cands[:0])
		load := func(i int) float64 {
			if l.rank != nil {
				return l.rankOf(slots[i].Ad, reqs[j].Ad)
			}
			w, ok := loads[i]
			if !ok {
				w = WorkLeft(slots[i].Ad)
				loads[i] = w
			}
			return w
		}
		keyed := make([]loaded, len(cands))
		for k, i := range cands {
			keyed[k] = loaded{i, load(i)}
		}
		slices.SortStableFunc(keyed, func(a, b loaded) int { return cmp.Compare(a.w, b.w) })
		k := 0
		for m.Remaining(j) > 0 {
			for k < len(keyed) && !(m.Free(keyed[k].i) && m.Matches(j, keyed[k].i)) {
				k++
			}
			if k == len(keyed) {
				noSlot(m, j)
				break
			}
			if _, why := m.Assign(j, keyed[k].i); why != OK {
				m.Reject(j, why)
				break
			}
		}
	}
}

// loaded is a candidate slot with its work left.
type loaded struct {
	i int
	w float64
}

// rankOf evaluates the rank expression; anything but a number is +Inf.
func (l *LeastWorkLeft) rankOf(slot, job *classad.Ad) float64 {
	v, err := classad.Eval(l.rank, slot, job)
	if err != nil {
		return math.Inf(1)
	}
	f, ok := v.NumberValue()
	if !ok || math.IsNaN(f) {
		return math.Inf(1)
	}
	return f
}

// WorkLeft is the time a slot's host needs to finish the work it holds, as
// its ad says: KiteWorkLeft / KiteSpeed, with the defaults LeastWorkLeft
// documents.
func WorkLeft(ad *classad.Ad) float64 {
	w := classad.EvalNumberOr(ad, attr.KiteWorkLeft, 0)
	if w <= 0 {
		return 0
	}
	s := classad.EvalNumberOr(ad, attr.KiteSpeed, 1)
	switch {
	case s > 0:
		return w / s
	case ad != nil && ad.Index(attr.KiteSpeed) >= 0 && s == 0:
		return math.Inf(1)
	}
	return w
}

func errEmpty(name string) error { return &paramError{name: name, msg: "must not be empty"} }

type paramError struct{ name, msg string }

func (e *paramError) Error() string { return "parameter " + `"` + e.name + `": ` + e.msg }
