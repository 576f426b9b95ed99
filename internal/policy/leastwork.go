package policy

import (
	"cmp"
	"math"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// LeastWorkLeft gives each job the free slot it matches whose host has the
// least work left: the "dynamic" or least-work-remaining assignment of the
// literature (Harchol-Balter et al. 1998; paper 003), which balances the
// hosts' loads rather than their job counts. By default a slot's work left
// is the time its host needs to finish what it holds, KiteWorkLeft /
// KiteSpeed (a missing KiteWorkLeft counts as no work, a missing speed as
// 1, and a host with work left and a speed of 0 never finishes). The loads
// are those the slots advertised when the cycle began; a static slot taken
// in a cycle takes no second job in it, so the next job goes to the next
// least loaded host, and a partitionable slot (a host that takes jobs
// while it has cores free, the simulator's queue-mode host) holds the job's
// KiteWork more (Charge) before the next job chooses. Ties keep HTCondor's
// rank order. Requests are served oldest first.
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

// Needs implements Needful: a request's KiteWork is what a partitionable
// slot it takes holds more.
func (*LeastWorkLeft) Needs() Needs { return Needs{Significant: []string{attr.KiteWork}} }

// Distribute implements Strategy.
func (l *LeastWorkLeft) Distribute(m Market) {
	c := &lwlCycle{l: l, m: m, ads: map[int]*classad.Ad{}, loads: map[int]float64{}}
	var cands []int
	for _, j := range requestsByAge(m) {
		cands = m.Candidates(j, cands[:0])
		keyed := make([]loaded, len(cands))
		for k, i := range cands {
			keyed[k] = loaded{i, c.load(i, j), k}
		}
		slices.SortStableFunc(keyed, compareLoaded)
		k := 0
		for m.Remaining(j) > 0 {
			for k < len(keyed) && !(m.Free(keyed[k].i) && m.Matches(j, keyed[k].i)) {
				k++
			}
			if k == len(keyed) {
				noSlot(m, j)
				break
			}
			i := keyed[k].i
			if _, why := m.Assign(j, i); why != OK {
				m.Reject(j, why)
				break
			}
			if m.Slots()[i].Partitionable && m.Free(i) {
				// The host holds the job now and may take another:
				// its load grows, as the simulator's queue does.
				c.charge(i, j)
				keyed[k].w = c.load(i, j)
				resort(keyed[k:])
			}
		}
	}
}

// lwlCycle is one cycle of least-work-left: the partitionable slots'
// ads charged with the jobs they took, and the loads read so far.
type lwlCycle struct {
	l     *LeastWorkLeft
	m     Market
	ads   map[int]*classad.Ad
	loads map[int]float64
}

// ad is slot i's ad with what it took this cycle.
func (c *lwlCycle) ad(i int) *classad.Ad {
	if ad, ok := c.ads[i]; ok {
		return ad
	}
	return c.m.Slots()[i].Ad
}

// load is slot i's load for request j: the rank, or the work left.
func (c *lwlCycle) load(i, j int) float64 {
	if c.l.rank != nil {
		return c.l.rankOf(c.ad(i), c.m.Requests()[j].Ad)
	}
	w, ok := c.loads[i]
	if !ok {
		w = WorkLeft(c.ad(i))
		c.loads[i] = w
	}
	return w
}

// charge makes slot i's ad hold one more job of request j.
func (c *lwlCycle) charge(i, j int) {
	ad, ok := c.ads[i]
	if !ok {
		ad = c.m.Slots()[i].Ad.Clone()
		c.ads[i] = ad
	}
	Charge(ad, JobWork(c.m.Requests()[j].Ad), 1)
	delete(c.loads, i)
}

// loaded is a candidate slot with its work left and its place in the
// rank order.
type loaded struct {
	i    int
	w    float64
	rank int
}

// compareLoaded orders by load, then rank order.
func compareLoaded(a, b loaded) int {
	if c := cmp.Compare(a.w, b.w); c != 0 {
		return c
	}
	return cmp.Compare(a.rank, b.rank)
}

// resort moves s[0], whose load changed, to its place in the sorted s.
func resort(s []loaded) {
	for k := 0; k+1 < len(s) && compareLoaded(s[k+1], s[k]) < 0; k++ {
		s[k], s[k+1] = s[k+1], s[k]
	}
}

// JobWork is the work a job declares (its KiteWork, 0 when it has none).
func JobWork(job *classad.Ad) float64 {
	w := classad.EvalNumberOr(job, attr.KiteWork, 0)
	if !(w > 0) || math.IsInf(w, 1) {
		return 0
	}
	return w
}

// Charge makes a slot ad hold jobs more jobs of work w in all: its
// KiteWorkLeft grows by w and its KiteQueueLength by jobs, as a startd
// advertises them once it has the jobs (daemons/startd/workleft.go) and
// as the simulator's queue shows them. The negotiator charges the slots
// it matched until their ads show the matches.
func Charge(ad *classad.Ad, w float64, jobs int) {
	old, ok := ad.Lookup(attr.KiteWorkLeft)
	v, lit := classad.LiteralNumber(old)
	sum, charged := old.(*ast.Binary)
	var was float64
	if charged {
		was, charged = classad.LiteralNumber(sum.Y)
		charged = charged && sum.Op == ast.OpAdd
	}
	switch {
	case !ok:
		ad.Set(attr.KiteWorkLeft, ast.Number(w))
	case lit:
		ad.Set(attr.KiteWorkLeft, ast.Number(v+w))
	case charged: // (advertised) + charged: the charges add up in one number
		ad.Set(attr.KiteWorkLeft, &ast.Binary{At: ast.NoPos, Op: ast.OpAdd, X: sum.X, Y: ast.Number(was + w)})
	default:
		ad.Set(attr.KiteWorkLeft, &ast.Binary{At: ast.NoPos, Op: ast.OpAdd, X: &ast.Paren{At: ast.NoPos, X: old}, Y: ast.Number(w)})
	}
	q := classad.EvalNumberOr(ad, attr.KiteQueueLength, 0)
	ad.Set(attr.KiteQueueLength, ast.Number(q+float64(jobs)))
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
