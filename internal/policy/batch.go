package policy

import (
	"cmp"
	"math"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// BatchHeuristic maps a set of idle jobs of known lengths onto hosts of
// known power: the batch heuristics of paper 004 (Gerk and Kurochkin;
// algorithms.md §4), for pools that know job lengths. A job's length is
// its KiteWork (work units) and a host's power its KiteSpeed (work units
// per second), so the expected execution time of job i on host j is
// e_ij = length_i / power_j, and its expected completion time
// c_ij = e_ij + r_j, where r_j is the time the host needs to finish what
// it holds (KiteWorkLeft / KiteSpeed; 0 for a free slot of a pull pool).
// Registered by name:
//
//	met                  jobs in order of age, each to the host with the
//	                     least e_ij (Minimum Execution Time)
//	mct                  jobs in order of age, each to the host with the
//	                     least c_ij (Minimum Completion Time)
//	min-min              of all jobs, the one whose best c_ij is least
//	                     goes first, to that host
//	max-min              of all jobs, the one whose best c_ij is greatest
//	                     goes first, to that host
//	sort-median          the job whose median c_ij over the hosts is
//	                     greatest goes first, to the host with the least
//	                     c_ij (paper 004's Sort-Median; the median of an
//	                     even number of hosts is the mean of the middle
//	                     two)
//	penalty-sort-median  sort-median over f_ij = c_ij + w (d_j + p_j):
//	                     d_j is how much longer than expected the host's
//	                     finished jobs ran on average (KiteRuntimeDelay),
//	                     p_j the expected runtimes of its lost jobs,
//	                     summed (KiteLostRuntime), w the pool's share of
//	                     jobs finished rather than lost (from
//	                     KiteJobsCompleted and KiteJobsAborted over
//	                     Market.Pool; 1 before any outcome)
//
// After each choice the host's r_j grows by e_ij. A job goes only to
// hosts it matches. The strategies plan the whole set of idle jobs and
// hand the plan out over cycles, one job per slot per cycle, in each
// host's planned order; the plan is made again when the idle jobs or the
// hosts differ from what it expects (new jobs, jobs back from a failed
// host, a host gone). Planning costs O(n·g·m) for n jobs in g requests
// on m hosts. A slot without a positive power is left out.
//
// Parameters:
//
//	length  the job attribute holding its length ("KiteWork")
//	power   the slot attribute holding its power ("KiteSpeed")
type BatchHeuristic struct {
	rule          bRule
	length, power string
	plan          *batchPlan
}

type bRule uint8

const (
	bMET bRule = iota
	bMCT
	bMinMin
	bMaxMin
	bSortMedian
	bPenaltySortMedian
)

var bNames = [...]string{"met", "mct", "min-min", "max-min", "sort-median", "penalty-sort-median"}

func init() {
	for r := range bNames {
		Register(bNames[r], func() Strategy { return &BatchHeuristic{rule: bRule(r)} })
	}
}

// Name implements Strategy.
func (b *BatchHeuristic) Name() string { return bNames[b.rule] }

// Needs implements Needful.
func (b *BatchHeuristic) Needs() Needs {
	return Needs{Significant: []string{b.lengthAttr()}, SlotAttributes: []string{b.powerAttr()}, Monitoring: b.rule == bPenaltySortMedian}
}

func (b *BatchHeuristic) lengthAttr() string { return cmp.Or(b.length, attr.KiteWork) }
func (b *BatchHeuristic) powerAttr() string  { return cmp.Or(b.power, attr.KiteSpeed) }

// Configure implements Configurable.
func (b *BatchHeuristic) Configure(p Params) error {
	if err := p.only("length", "power"); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		dst  *string
		def  string
	}{{"length", &b.length, attr.KiteWork}, {"power", &b.power, attr.KiteSpeed}} {
		v, err := p.String(f.name, f.def)
		if err != nil {
			return err
		}
		if v == "" {
			return errEmpty(f.name)
		}
		*f.dst = v
	}
	return nil
}

// batchPlan is a mapping being handed out: for each host (by slot name)
// the requests of its jobs in order, and how many idle jobs of each
// request the next cycle should find (planned or not placeable).
type batchPlan struct {
	queues map[string][]string
	expect map[string]int
}

// bGroup is one request's idle jobs, alike in length.
type bGroup struct {
	j      int
	id     string
	ad     *classad.Ad
	length float64
	n      int // jobs not planned yet
}

// bHost is one slot that can take jobs.
type bHost struct {
	i       int
	name    string
	power   float64
	ready   float64
	penalty float64 // w (d_j + p_j), penalty-sort-median only
}

// Distribute implements Strategy.
func (b *BatchHeuristic) Distribute(m Market) {
	groups := b.groups(m)
	hosts := b.hosts(m)
	if len(groups) == 0 || len(hosts) == 0 {
		b.rejectAll(m)
		return
	}
	if !b.plan.fits(groups, hosts) {
		b.plan = b.makePlan(m, groups, hosts)
	}
	byID := map[string]int{}
	for _, g := range groups {
		byID[g.id] = g.j
	}
	for _, h := range hosts {
		q := b.plan.queues[h.name]
		if len(q) == 0 {
			continue
		}
		j := byID[q[0]]
		if _, why := m.Assign(j, h.i); why != OK {
			b.plan = nil // the pool changed under the plan: make it again next cycle
			break
		}
		b.plan.queues[h.name] = q[1:]
		b.plan.expect[q[0]]--
	}
	b.rejectAll(m)
}

func (b *BatchHeuristic) rejectAll(m Market) {
	for k, r := range m.Requests() {
		if m.Remaining(k) > 0 && !r.Replica {
			noSlot(m, k)
		}
	}
}

// groups are the cycle's idle requests with their lengths, oldest first.
func (b *BatchHeuristic) groups(m Market) []bGroup {
	var out []bGroup
	for _, j := range requestsByAge(m) {
		r := m.Requests()[j]
		if r.Replica || m.Remaining(j) == 0 {
			continue
		}
		out = append(out, bGroup{j: j, id: r.ID, ad: r.Ad, length: math.Max(0, classad.EvalNumberOr(r.Ad, b.lengthAttr(), 0)), n: m.Remaining(j)})
	}
	return out
}

// powerFor is a host's power for a job: the slot's power attribute
// evaluated against the job (a host may be faster at some jobs than at
// others: KitePower = TARGET.Vector ? 150 : 50); the host's plain power
// when that is not a positive number.
func (b *BatchHeuristic) powerFor(slot, job *classad.Ad, plain float64) float64 {
	e, ok := slot.Lookup(b.powerAttr())
	if !ok {
		return plain
	}
	if _, lit := e.(*ast.Literal); lit {
		return plain
	}
	v, err := classad.EvalAttr(slot, b.powerAttr(), job)
	if err != nil {
		return plain
	}
	if p, ok := v.NumberValue(); ok && p > 0 && !math.IsInf(p, 1) {
		return p
	}
	return 0
}

// hosts are the free slots with a power, with their ready times r_j (the
// time to finish what they hold, WorkLeft) and (for penalty-sort-median)
// penalties.
func (b *BatchHeuristic) hosts(m Market) []bHost {
	w := 1.0
	if b.rule == bPenaltySortMedian {
		w = validShare(m)
	}
	var out []bHost
	for i, s := range m.Slots() {
		if !m.Free(i) {
			continue
		}
		p, ok := classad.EvalNumber(s.Ad, b.powerAttr())
		switch {
		case ok && p > 0 && !math.IsInf(p, 1):
		case !ok && s.Ad.Index(b.powerAttr()) >= 0:
			p = 0 // an expression of the job: powerFor evaluates it per job
		default:
			continue
		}
		h := bHost{i: i, name: s.Name, power: p, ready: WorkLeft(s.Ad)}
		if b.rule == bPenaltySortMedian {
			h.penalty = w * (classad.EvalNumberOr(s.Ad, attr.KiteRuntimeDelay, 0) + math.Max(0, classad.EvalNumberOr(s.Ad, attr.KiteLostRuntime, 0)))
		}
		out = append(out, h)
	}
	return out
}

// validShare is the pool's share of jobs finished rather than lost, 1
// before any outcome.
func validShare(m Market) float64 {
	done, lost := 0.0, 0.0
	for _, ad := range m.Pool() {
		done += math.Max(0, classad.EvalNumberOr(ad, attr.KiteJobsCompleted, 0))
		lost += math.Max(0, classad.EvalNumberOr(ad, attr.KiteJobsAborted, 0))
	}
	if done+lost == 0 {
		return 1
	}
	return done / (done + lost)
}

// fits reports whether the plan expects exactly these idle jobs and can
// still hand them to these hosts.
func (p *batchPlan) fits(groups []bGroup, hosts []bHost) bool {
	if p == nil {
		return false
	}
	for _, g := range groups {
		if p.expect[g.id] != g.n {
			return false
		}
	}
	left := 0
	for _, c := range p.expect {
		if c > 0 {
			left++
		}
	}
	if left != len(groups) {
		return false
	}
	free := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		free[h.name] = true
	}
	for name, q := range p.queues {
		if len(q) > 0 && !free[name] {
			return false
		}
	}
	return true
}

// makePlan maps every idle job onto the hosts by the rule.
func (b *BatchHeuristic) makePlan(m Market, groups []bGroup, hosts []bHost) *batchPlan {
	p := &batchPlan{queues: map[string][]string{}, expect: map[string]int{}}
	for _, g := range groups {
		p.expect[g.id] = g.n
	}
	// ok[g][h]: group g matches host h; exec[g][h] is e_ij.
	ok := make([][]bool, len(groups))
	exec := make([][]float64, len(groups))
	slots := m.Slots()
	for g := range groups {
		ok[g] = make([]bool, len(hosts))
		exec[g] = make([]float64, len(hosts))
		for h := range hosts {
			power := b.powerFor(slots[hosts[h].i].Ad, groups[g].ad, hosts[h].power)
			ok[g][h] = power > 0 && m.Matches(groups[g].j, hosts[h].i)
			exec[g][h] = groups[g].length / power
		}
	}
	ready := make([]float64, len(hosts))
	for h := range hosts {
		ready[h] = hosts[h].ready
	}
	place := func(g, h int) {
		ready[h] += exec[g][h]
		groups[g].n--
		p.queues[hosts[h].name] = append(p.queues[hosts[h].name], groups[g].id)
	}
	cost := func(g, h int) float64 { // what the rule minimises over hosts
		e := exec[g][h]
		switch b.rule {
		case bMET:
			return e
		case bPenaltySortMedian:
			return e + ready[h] + hosts[h].penalty
		}
		return e + ready[h]
	}
	best := func(g int) (int, float64) {
		bh, bc := -1, math.Inf(1)
		for h := range hosts {
			if ok[g][h] {
				if c := cost(g, h); c < bc {
					bh, bc = h, c
				}
			}
		}
		return bh, bc
	}
	switch b.rule {
	case bMET, bMCT:
		for g := range groups {
			for groups[g].n > 0 {
				h, _ := best(g)
				if h < 0 {
					break
				}
				place(g, h)
			}
		}
	default:
		row := make([]float64, 0, len(hosts))
		for {
			pick, pickH, pickKey := -1, -1, 0.0
			for g := range groups {
				if groups[g].n == 0 {
					continue
				}
				h, c := best(g)
				if h < 0 {
					continue
				}
				var key float64
				switch b.rule {
				case bMinMin:
					key = -c
				case bMaxMin:
					key = c
				default:
					row = row[:0]
					for x := range hosts {
						if ok[g][x] {
							row = append(row, cost(g, x))
						}
					}
					key = median(row)
				}
				if pick < 0 || key > pickKey {
					pick, pickH, pickKey = g, h, key
				}
			}
			if pick < 0 {
				break
			}
			place(pick, pickH)
		}
	}
	return p
}

// median is the middle of v (the mean of the middle two for an even
// count); it sorts v.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
