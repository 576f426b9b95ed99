package matchmaker

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/fit"
	"github.com/kite-sched/kite/internal/policy"
)

// market implements policy.Market over slot classes: each request is
// evaluated once against each class (both Requirements, then the rank
// tuple), never against each slot, and its matching classes are kept
// sorted best first so that handing out the next slot is a pointer step.
type market struct {
	pol  *Policy
	now  time.Time
	rng  *rand.Rand
	subs []policy.Submitter
	// The requests and slots as the strategies see them, and as the
	// market keeps them during the cycle (same indexes).
	reqViews  []policy.Request
	reqs      []reqState
	slotViews []policy.Slot
	slots     []*slot
	pool      []*classad.Ad
	cls       *classifier
	st        eval.State

	inUse      map[string]float64 // concurrency limits held
	prios      map[string]float64 // users' effective priorities
	poolWeight float64
	freeWeight float64
	freeSlots  int // slots not taken (partitionable ones while resources last)
	// epoch counts classes that ran out of free members and got one back
	// (a partitionable slot moving in): requests then rescan their list.
	epoch int

	views   views
	matches []Match
	stats   Stats
}

// reqState is what the market knows of one request during the cycle.
type reqState struct {
	remaining int
	schedd    string
	limits    []LimitUse
	prio      float64
	// cands are the classes matching the request, best first; evaluated
	// counts the classes looked at so far (classes only get added).
	cands     []cand
	evaluated int
	pos       int // cands before pos have no free member
	epoch     int
	byClass   map[int]int // class id → index in cands, built on demand
	matched   bool        // some class matched, free or not
	preempt   bool        // some busy class matched but priority forbade it
	reason    policy.Reason
	// view groups classes as the job sees them (nil: it reads slots by
	// computed names); sides are its evaluations per group.
	view  *view
	sides []jobSide
	evals int // Requirements evaluated for this request
}

// cand is a class a request matches, with the request's view of it.
type cand struct {
	cls *class
	key rankKey
	// For partitionable classes: what one job takes.
	cpus, memory, disk float64
	custom             fit.Counts
}

// rankKey is HTCondor's order of candidate slots: higher pre-job rank,
// job Rank, post-job rank; then no preemption before rank preemption
// before priority preemption; then higher preemption rank.
type rankKey struct {
	pre, rank, post float64
	preempt         uint8 // 0 none, 1 rank, 2 priority
	prank           float64
}

func compareKeys(a, b *cand) int {
	if c := cmp.Compare(b.key.pre, a.key.pre); c != 0 {
		return c
	}
	if c := cmp.Compare(b.key.rank, a.key.rank); c != 0 {
		return c
	}
	if c := cmp.Compare(b.key.post, a.key.post); c != 0 {
		return c
	}
	if c := cmp.Compare(a.key.preempt, b.key.preempt); c != 0 {
		return c
	}
	if c := cmp.Compare(b.key.prank, a.key.prank); c != 0 {
		return c
	}
	if c := cmp.Compare(a.cls.order, b.cls.order); c != 0 {
		return c
	}
	return cmp.Compare(a.cls.id, b.cls.id)
}

var preemptNames = [...]string{"", "rank", "priority"}

// Implementation of policy.Market.

func (m *market) Now() time.Time                 { return m.now }
func (m *market) Rand() *rand.Rand               { return m.rng }
func (m *market) Submitters() []policy.Submitter { return m.subs }
func (m *market) Requests() []policy.Request     { return m.reqViews }
func (m *market) Remaining(j int) int            { return m.reqs[j].remaining }
func (m *market) Slots() []policy.Slot           { return m.slotViews }
func (m *market) Free(i int) bool                { return !m.slots[i].taken }
func (m *market) PoolWeight() float64            { return m.poolWeight }
func (m *market) FreeWeight() float64            { return m.freeWeight }
func (m *market) Pool() []*classad.Ad            { return m.pool }

func (m *market) Reject(j int, why policy.Reason) { m.reqs[j].reason = why }

// Best implements policy.Market.
func (m *market) Best(j int) (int, policy.Reason) {
	r := &m.reqs[j]
	if r.remaining == 0 {
		return -1, policy.OK
	}
	if !m.limitsAllow(r) {
		return -1, policy.Limit
	}
	if m.freeSlots == 0 && r.evaluated == 0 {
		return -1, policy.Busy
	}
	m.refresh(j)
	for ; r.pos < len(r.cands); r.pos++ {
		if s := r.cands[r.pos].cls.first(); s != nil {
			return s.index, policy.OK
		}
	}
	return -1, r.noneReason()
}

func (r *reqState) noneReason() policy.Reason {
	switch {
	case r.matched:
		return policy.Busy
	case r.preempt:
		return policy.Priority
	}
	return policy.NoMatch
}

// Candidates implements policy.Market.
func (m *market) Candidates(j int, dst []int) []int {
	r := &m.reqs[j]
	if r.remaining == 0 || !m.limitsAllow(r) {
		return dst
	}
	m.refresh(j)
	for k := r.pos; k < len(r.cands); k++ {
		c := r.cands[k].cls
		for _, s := range c.members[c.head:] {
			if !s.taken && s.cls == c {
				dst = append(dst, s.index)
			}
		}
	}
	return dst
}

// Matches implements policy.Market.
func (m *market) Matches(j, i int) bool {
	r := &m.reqs[j]
	s := m.slots[i]
	return r.remaining > 0 && !s.taken && m.limitsAllow(r) && m.candOf(j, s.cls) != nil
}

// candOf returns request j's view of class c, or nil if it does not match.
func (m *market) candOf(j int, c *class) *cand {
	r := &m.reqs[j]
	m.refresh(j)
	if r.pos < len(r.cands) && r.cands[r.pos].cls == c {
		return &r.cands[r.pos]
	}
	if r.byClass == nil {
		r.byClass = make(map[int]int, len(r.cands))
		for k := range r.cands {
			r.byClass[r.cands[k].cls.id] = k
		}
	}
	if k, ok := r.byClass[c.id]; ok {
		return &r.cands[k]
	}
	return nil
}

// Assign implements policy.Market.
func (m *market) Assign(j, i int) (float64, policy.Reason) {
	r := &m.reqs[j]
	s := m.slots[i]
	switch {
	case r.remaining == 0:
		return 0, policy.Policy
	case s.taken:
		return 0, policy.Busy
	case !m.limitsAllow(r):
		return 0, policy.Limit
	}
	c := m.candOf(j, s.cls)
	if c == nil {
		return 0, policy.NoMatch
	}
	r.remaining--
	for _, l := range r.limits {
		m.inUse[l.Name] += l.Amount
	}
	req := &m.reqViews[j]
	m.matches = append(m.matches, Match{
		Submitter: m.subs[req.Submitter].Name,
		Schedd:    r.schedd,
		Request:   req.ID,
		Slot:      s.ad,
		SlotName:  s.name,
		Preempt:   preemptNames[c.key.preempt],
		Rank:      c.key.rank,
		Cpus:      c.cpus,
		Memory:    c.memory,
		Disk:      c.disk,
	})
	if s.pslot {
		return m.carve(s, c), policy.OK
	}
	s.taken = true
	m.freeSlots--
	m.freeWeight -= s.weight
	return s.weight, policy.OK
}

// carve takes one job's share of a partitionable slot: the slot goes on
// with what is left, in the class of its new ad, or is used up.
func (m *market) carve(s *slot, c *cand) float64 {
	s.cpus -= c.cpus
	s.memory -= c.memory
	s.disk -= c.disk
	m.freeWeight -= c.cpus
	s.custom = maps.Clone(s.custom)
	for n, a := range c.custom {
		s.custom[n] -= a
	}
	if s.cpus < 1 || s.memory <= 0 || s.disk <= 0 {
		s.taken = true
		m.freeSlots--
		m.freeWeight -= max(s.cpus, 0)
		return c.cpus
	}
	ad := s.ad.Clone()
	setNumber(ad, attr.Cpus, s.cpus)
	setNumber(ad, attr.Memory, s.memory)
	setNumber(ad, attr.Disk, s.disk)
	for n, a := range s.custom {
		setNumber(ad, n, float64(a))
	}
	s.ad = ad
	m.slotViews[s.index].Ad = ad
	if m.cls.add(s) {
		m.epoch++
	}
	return c.cpus
}

// refresh evaluates request j against the classes it has not seen and
// restarts its scan when a class it passed got a slot back.
func (m *market) refresh(j int) {
	r := &m.reqs[j]
	if r.epoch != m.epoch {
		r.epoch, r.pos = m.epoch, 0
	}
	classes := m.cls.classes
	if r.evaluated == len(classes) {
		return
	}
	first := r.evaluated == 0
	fresh := m.evaluateClasses(j, classes[r.evaluated:])
	r.evaluated = len(classes)
	if len(fresh) == 0 {
		return
	}
	r.byClass = nil
	if first {
		r.cands = fresh
		slices.SortFunc(r.cands, func(a, b cand) int { return compareKeys(&a, &b) })
		return
	}
	for _, c := range fresh {
		k, _ := slices.BinarySearchFunc(r.cands, c, func(a, b cand) int { return compareKeys(&a, &b) })
		r.cands = slices.Insert(r.cands, k, c)
		if k < r.pos {
			r.pos = k
		}
	}
}

// parallelClasses is how many classes a request must face before its
// evaluation is spread over the CPUs.
const parallelClasses = 256

// evaluateClasses evaluates request j against classes and returns the
// matching ones. The job's side is evaluated once per group of classes
// that look alike to it (see view), the slot's side per class, spread over
// the CPUs when there are many.
func (m *market) evaluateClasses(j int, classes []*class) []cand {
	r := &m.reqs[j]
	classes = m.jobSideFilter(j, classes)
	workers := min(runtime.GOMAXPROCS(0), len(classes)/parallelClasses)
	if workers < 2 {
		var out []cand
		for _, c := range classes {
			if cd, ok := m.evaluate(&m.st, j, c, r); ok {
				out = append(out, cd)
			}
		}
		return out
	}
	parts := make([][]cand, workers)
	flags := make([]reqState, workers)
	var wg sync.WaitGroup
	chunk := (len(classes) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(classes))
		wg.Go(func() {
			st := &eval.State{Now: m.st.Now}
			for _, c := range classes[lo:hi] {
				if cd, ok := m.evaluate(st, j, c, &flags[w]); ok {
					parts[w] = append(parts[w], cd)
				}
			}
		})
	}
	wg.Wait()
	var out []cand
	for w := range workers {
		out = append(out, parts[w]...)
		r.matched = r.matched || flags[w].matched
		r.preempt = r.preempt || flags[w].preempt
		r.evals += flags[w].evals
	}
	return out
}

// jobSideFilter evaluates the job's side of request j against the groups
// of classes it has not seen and returns the classes whose group it
// accepts. A request's first evaluation walks groups, not classes.
func (m *market) jobSideFilter(j int, classes []*class) []*class {
	r := &m.reqs[j]
	if r.view == nil {
		return classes
	}
	side := func(g int32, c *class) bool {
		for int(g) >= len(r.sides) {
			r.sides = append(r.sides, jobSide{})
		}
		if r.sides[g].state == 0 {
			r.sides[g] = m.jobSide(&m.st, j, c)
			r.evals++
		}
		return r.sides[g].state == 2
	}
	var out []*class
	if r.evaluated == 0 && len(classes) == len(m.cls.classes) {
		r.view.update(m.cls.classes)
		for g, members := range r.view.members {
			if side(int32(g), members[0]) {
				out = append(out, members...)
			}
		}
		return out
	}
	for _, c := range classes {
		if side(r.view.group(c), c) {
			out = append(out, c)
		}
	}
	return out
}

// jobSide evaluates the job's expressions of request j against class c's
// representative slot.
func (m *market) jobSide(st *eval.State, j int, c *class) jobSide {
	job, sl := m.reqViews[j].Ad, c.rep
	if !evalAttr(st, job, sl, nameRequirements).IsTrue() {
		return jobSide{state: 1}
	}
	side := jobSide{
		state: 2,
		rank:  evalNumber(st, job, sl, nameRank, 0),
		req: fit.Request(evalNumber(st, job, sl, nameRequestCpus, 0),
			evalNumber(st, job, sl, nameRequestMemory, 0), evalNumber(st, job, sl, nameRequestDisk, 0)),
	}
	if len(c.custom) > 0 { // a class without custom resources costs nothing here
		side.custom = fit.RequestedCounts(job, sl, slices.Collect(maps.Keys(c.custom)))
	}
	return side
}

// evaluate matches request j against class c: both Requirements, the
// resources a partitionable slot must have (the dynamic slot sized as the
// startd will carve it, by internal/fit), preemption rules for a busy
// class, and the rank tuple. It notes in flags whether anything matched.
func (m *market) evaluate(st *eval.State, j int, c *class, flags *reqState) (cand, bool) {
	r := &m.reqs[j]
	var side jobSide
	if r.view != nil {
		side = r.sides[r.view.ofClass[c.id]]
	} else {
		side = m.jobSide(st, j, c)
		flags.evals++
	}
	out := cand{cls: c}
	if side.state != 2 {
		return out, false
	}
	job, sl := m.reqViews[j].Ad, c.rep
	flags.evals++
	if !evalAttr(st, sl, job, nameRequirements).IsTrue() {
		return out, false
	}
	if c.pslot {
		free := fit.Resources{Cpus: int64(c.cpus), Memory: int64(c.memory), Disk: int64(c.disk)}
		size, ok := fit.Carve(side.req, free)
		if !ok || !side.custom.Fits(c.custom) {
			return out, false
		}
		out.custom = side.custom
		out.cpus, out.memory, out.disk = float64(size.Cpus), float64(size.Memory), float64(size.Disk)
	}
	if c.busy {
		reason, ok := m.preemption(st, j, c)
		if !ok {
			flags.preempt = true
			return out, false
		}
		out.key.preempt = reason
		out.key.prank = m.policyRank(st, m.pol.PreemptionRank, sl, job)
	}
	flags.matched = true
	out.key.rank = side.rank
	out.key.pre = m.policyRank(st, m.pol.PreJobRank, sl, job)
	out.key.post = m.policyRank(st, m.pol.PostJobRank, sl, job)
	return out, true
}

// preemption decides whether request j may take a busy slot of class c,
// and why: the slot ranks the job above the one it runs (rank), or the
// submitter's priority is better than the running job's user's and
// PREEMPTION_REQUIREMENTS allows it (priority) — never against the slot's
// own preference.
func (m *market) preemption(st *eval.State, j int, c *class) (uint8, bool) {
	job, sl := m.reqViews[j].Ad, c.rep
	slotRank := evalNumber(st, sl, job, nameRank, 0)
	current := evalNumber(st, sl, nil, nameCurrentRank, 0)
	if slotRank > current {
		return 1, true
	}
	if m.pol.PreemptionRequirements == nil || slotRank < current {
		return 0, false
	}
	sub := m.subs[m.reqViews[j].Submitter]
	remote := stringAttr(sl, attr.RemoteUser)
	if remote == "" || remote == sub.Name {
		return 0, false
	}
	remotePrio, ok := m.prios[remote]
	if !ok || sub.Priority >= remotePrio {
		return 0, false
	}
	st.Reset(sl, job)
	if !st.Eval(m.pol.PreemptionRequirements).IsTrue() {
		return 0, false
	}
	return 2, true
}

func (m *market) policyRank(st *eval.State, p *classad.Program, slotAd, job *classad.Ad) float64 {
	if p == nil {
		return 0
	}
	st.Reset(slotAd, job)
	f, _ := st.Eval(p).NumberValue()
	return f
}

// The attributes the market evaluates, their names hashed once.
var (
	nameRequirements  = eval.NewAttrName(attr.Requirements)
	nameRank          = eval.NewAttrName(attr.Rank)
	nameRequestCpus   = eval.NewAttrName(attr.RequestCpus)
	nameRequestMemory = eval.NewAttrName(attr.RequestMemory)
	nameRequestDisk   = eval.NewAttrName(attr.RequestDisk)
	nameCurrentRank   = eval.NewAttrName(currentRank)
)

// evalAttr evaluates my's attribute name against target, specialised to
// my (eval.State.EvalMatch): a request's and a class's expressions are
// evaluated against many of the other side, and what they read of their
// own ad is folded in once.
func evalAttr(st *eval.State, my, target *classad.Ad, name eval.AttrName) eval.Value {
	st.Reset(my, target)
	return st.EvalMatch(name)
}

// evalNumber evaluates a numeric attribute; anything but a number (an
// undefined Rank, say) counts as def.
func evalNumber(st *eval.State, my, target *classad.Ad, name eval.AttrName, def float64) float64 {
	if f, ok := evalAttr(st, my, target, name).NumberValue(); ok {
		return f
	}
	return def
}

// setNumber sets a number attribute: an integer when whole, else a real.
func setNumber(ad *classad.Ad, name string, v float64) { ad.Set(name, ast.Number(v)) }
