package policy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// NoPassing is paper 002's scheduling without job passing (Mine,
// Fujimoto, Higashi, Susukita, Hagihara; algorithms.md §3). A job there is
// a batch of independent tasks — a job's KiteBatch here, else its
// JobBatchName, else its cluster — and its size is the total work of its
// tasks (KiteBatchWork, else the sum of the idle tasks' work when the
// strategy first sees the batch). Each free slot, in a seeded random
// order, is an idle processor: the batches take turns round-robin in
// order of submission, carried over from cycle to cycle, and the batch
// whose turn it is hands the slot its oldest unassigned task, except that
// it holds its last unassigned task T while some batch that was already
// running when T's batch was submitted, and is no larger, still runs.
// When a batch has no task to hand out (all are assigned, or the last is
// held), it hands out another instance of one of its running tasks
// instead, from the pool's replica requests (the pool picks the running
// task with the fewest instances, so replicas go round the tasks); the
// first instance to finish wins and the pool kills the others. A batch
// that can give the slot nothing passes the turn on.
//
// Guarantee: a later, larger batch never finishes before an earlier,
// smaller one that was running when it came, whatever the machines'
// speeds do. A batch runs from its first task's start until the pool no
// longer shows it: no idle task in the requests and no busy slot of the
// pool running one of its tasks (busy slot ads carry KiteBatch).
//
// The strategy remembers batches from cycle to cycle: one instance must
// serve a whole negotiator or simulation run (policy.New makes a fresh
// one).
//
// Parameters:
//
//	work       the job attribute holding a task's work ("KiteWork")
//	replicate  hand out replicas of running tasks (true; the pool must
//	           offer replica requests)
type NoPassing struct {
	work      string
	replicate bool

	batches map[string]*npBatch
	last    string // the batch that was served last
}

// npBatch is what the strategy remembers of a batch.
type npBatch struct {
	name    string
	submit  float64 // seconds since the epoch (its tasks' QDate)
	work    float64
	started float64 // when its first task got a slot (+Inf: not yet)
	seq     int     // order of first sight, for ties

	// This cycle's requests.
	idle, reps []int
	busy       bool // a busy slot of the pool runs one of its tasks
}

func init() {
	Register("no-passing", func() Strategy { return &NoPassing{work: attr.KiteWork, replicate: true} })
}

// Name implements Strategy.
func (*NoPassing) Name() string { return "no-passing" }

// Needs implements Needful.
func (p *NoPassing) Needs() Needs {
	return Needs{Significant: []string{attr.KiteBatch, attr.JobBatchName, attr.ClusterID, p.workAttr()},
		Replicas: p.replicate, Running: true}
}

func (p *NoPassing) workAttr() string { return cmp.Or(p.work, attr.KiteWork) }

// Configure implements Configurable.
func (p *NoPassing) Configure(ps Params) error {
	if err := ps.only("work", "replicate"); err != nil {
		return err
	}
	w, err := ps.String("work", attr.KiteWork)
	if err != nil {
		return err
	}
	if w == "" {
		return errEmpty("work")
	}
	r, err := ps.Bool("replicate", true)
	if err != nil {
		return err
	}
	p.work, p.replicate = w, r
	return nil
}

// batchOf names a job's batch: KiteBatch, else JobBatchName, else its
// cluster.
func batchOf(ad *classad.Ad) string {
	if b, ok := classad.EvalString(ad, attr.KiteBatch); ok {
		return b
	}
	if b, ok := classad.EvalString(ad, attr.JobBatchName); ok {
		return b
	}
	if c, ok := classad.EvalNumber(ad, attr.ClusterID); ok {
		return fmt.Sprintf("cluster %g", c)
	}
	return ""
}

// Distribute implements Strategy.
func (p *NoPassing) Distribute(m Market) {
	now := float64(m.Now().UnixNano()) / float64(time.Second)
	order := p.observe(m, now)
	if len(order) == 0 {
		return
	}
	slots := m.Slots()
	for _, i := range m.Rand().Perm(len(slots)) {
		for m.Free(i) && p.serve(m, i, order, now) {
		}
	}
	for _, b := range order {
		held := p.unassigned(m, b) == 1 && p.held(b, order)
		for _, k := range b.idle {
			switch {
			case m.Remaining(k) == 0:
			case held:
				m.Reject(k, Policy)
			default:
				noSlot(m, k)
			}
		}
	}
}

// unassigned counts batch b's idle tasks left this cycle.
func (p *NoPassing) unassigned(m Market, b *npBatch) int {
	n := 0
	for _, k := range b.idle {
		n += m.Remaining(k)
	}
	return n
}

// observe learns the cycle's batches from the requests and the pool's
// busy slots, forgets those no longer there, and returns the batches in
// the pool in order of submission.
func (p *NoPassing) observe(m Market, now float64) []*npBatch {
	if p.batches == nil {
		p.batches = map[string]*npBatch{}
	}
	for _, b := range p.batches {
		b.idle, b.reps, b.busy = b.idle[:0], b.reps[:0], false
	}
	reqs := m.Requests()
	for k := range reqs {
		ad := reqs[k].Ad
		name := batchOf(ad)
		b := p.batches[name]
		if b == nil {
			b = &npBatch{name: name, submit: math.Inf(1), started: math.Inf(1), seq: len(p.batches)}
			b.work = classad.EvalNumberOr(ad, attr.KiteBatchWork, math.NaN())
			p.batches[name] = b
		}
		if reqs[k].Replica {
			b.reps = append(b.reps, k)
			b.started = math.Min(b.started, now)
			continue
		}
		b.idle = append(b.idle, k)
		b.submit = math.Min(b.submit, classad.EvalNumberOr(ad, attr.QDate, 0))
	}
	for _, ad := range m.Pool() {
		name, ok := classad.EvalString(ad, attr.KiteBatch)
		if !ok {
			continue
		}
		if b := p.batches[name]; b != nil {
			b.busy = true
			b.started = math.Min(b.started, now)
		}
	}
	var order []*npBatch
	for name, b := range p.batches {
		if len(b.idle) == 0 && len(b.reps) == 0 && !b.busy {
			delete(p.batches, name) // finished
			continue
		}
		if math.IsNaN(b.work) { // first sight: every task is idle
			b.work = 0
			for _, k := range b.idle {
				b.work += float64(reqs[k].Count) * classad.EvalNumberOr(reqs[k].Ad, p.workAttr(), 0)
			}
		}
		if math.IsInf(b.submit, 1) {
			b.submit = b.started
		}
		order = append(order, b)
	}
	slices.SortFunc(order, func(a, b *npBatch) int {
		if c := cmp.Compare(a.submit, b.submit); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for _, b := range order {
		slices.SortStableFunc(b.idle, func(x, y int) int {
			return cmp.Compare(classad.EvalNumberOr(reqs[x].Ad, attr.QDate, 0), classad.EvalNumberOr(reqs[y].Ad, attr.QDate, 0))
		})
	}
	return order
}

// serve gives slot i a task of the batch whose turn it is, or the next
// that has one for it; it reports whether it made a match.
func (p *NoPassing) serve(m Market, i int, order []*npBatch, now float64) bool {
	start := 0
	for k, b := range order {
		if b.name == p.last {
			start = k + 1
			break
		}
	}
	for n := range len(order) {
		b := order[(start+n)%len(order)]
		if p.give(m, i, b, order, now) {
			p.last = b.name
			return true
		}
	}
	return false
}

// give hands slot i batch b's next unassigned task, unless it is held, or
// else a replica of one of b's running tasks.
func (p *NoPassing) give(m Market, i int, b *npBatch, order []*npBatch, now float64) bool {
	unassigned := p.unassigned(m, b)
	if unassigned > 0 && !(unassigned == 1 && p.held(b, order)) {
		for _, k := range b.idle {
			if m.Remaining(k) > 0 && m.Matches(k, i) {
				if _, why := m.Assign(k, i); why == OK {
					b.started = math.Min(b.started, now)
					return true
				}
			}
		}
	}
	for _, k := range b.reps {
		if m.Remaining(k) > 0 && m.Matches(k, i) {
			if _, why := m.Assign(k, i); why == OK {
				return true
			}
		}
	}
	return false
}

// held reports whether batch b must hold its last unassigned task: some
// other batch, submitted no later, that was already running when b was
// submitted and is no larger, still runs.
func (p *NoPassing) held(b *npBatch, order []*npBatch) bool {
	for _, o := range order {
		if o != b && o.submit <= b.submit && o.started < b.submit && o.work <= b.work {
			return true
		}
	}
	return false
}
