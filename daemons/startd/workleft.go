package startd

import (
	"math"
	"strconv"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
)

// What the distribution strategies read of a slot (internal/policy:
// least-work-left, the batch heuristics), published as the simulator
// publishes it for a host (internal/sim):
//
//	KiteSpeed        work units per second: the configured value
//	                 ([startd.attributes] KiteSpeed = 2), else the
//	                 benchmark's speed relative to the reference machine
//	                 (refBenchmarkMs / KiteBenchmark, two significant
//	                 digits), so that a work unit is a second of the
//	                 reference machine
//	KiteWorkLeft     the declared work (the job's KiteWork) of the jobs
//	                 the slot holds, less what they did: for each running
//	                 job max({0, W - (time() - JobStart) * KiteSpeed}),
//	                 for a job claimed and not started yet W; a
//	                 partitionable slot holds its dynamic slots' jobs
//	KiteQueueLength  the jobs the slot holds, running or about to
//
// KiteWorkLeft is an expression of time(), so it stays true between
// updates: the ads change only when a job is claimed, starts or ends (the
// startd re-advertises then anyway), and a running job's term is left out
// of the next ad once its declared work is done. A free static slot holds
// nothing: 0 and 0, as a free slot of the simulator's pull mode; a
// partitionable slot is a host of the simulator's queue mode whose queue
// holds as many jobs as it has cores.

// speedDigits is how many significant digits a measured speed keeps: the
// benchmark's own noise is a few per cent, and alike machines should tie.
const speedDigits = 2

// workAttrs publishes the slot's speed, work left and queue length (the
// lock is held). It runs last: the speed may come from [startd.attributes].
func (s *Server) workAttrs(ad *classad.Ad, st *slotState) {
	if _, ok := ad.Lookup(attr.KiteSpeed); !ok {
		ad.Set(attr.KiteSpeed, ast.Number(s.measuredSpeed()))
	}
	speed, ok := classad.EvalNumber(ad, attr.KiteSpeed)
	if !ok || speed < 0 || math.IsInf(speed, 0) {
		speed = 1 // policy.WorkLeft's reading of a speed that is not one
	}
	now := s.now()
	var sum ast.Expr
	n := 0
	for _, c := range heldClaims(st) {
		term, holds := jobWork(c, speed, now)
		if !holds {
			continue
		}
		n++
		switch {
		case term == nil:
		case sum == nil:
			sum = term
		default:
			sum = &ast.Binary{At: ast.NoPos, Op: ast.OpAdd, X: sum, Y: term}
		}
	}
	if sum == nil {
		sum = ast.Int(0)
	}
	ad.Set(attr.KiteWorkLeft, sum)
	ad.Set(attr.KiteQueueLength, ast.Int(int64(n)))
}

// measuredSpeed is the benchmark's speed relative to the reference
// machine, 1 while no benchmark is known.
func (s *Server) measuredSpeed() float64 {
	ms := s.mon.node().Benchmark
	if ms <= 0 {
		return 1
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(refBenchmarkMs/ms, 'g', speedDigits, 64), 64)
	if err != nil || v <= 0 {
		return 1
	}
	return v
}

// heldClaims are the claims whose jobs a slot holds: its own, or for a
// partitionable slot its dynamic slots'.
func heldClaims(st *slotState) []*claim {
	if st.Kind == slots.Partitionable {
		var out []*claim
		for _, d := range st.dynamic {
			if d.claim != nil {
				out = append(out, d.claim)
			}
		}
		return out
	}
	if st.claim == nil {
		return nil
	}
	return []*claim{st.claim}
}

// jobWork is a claim's term of KiteWorkLeft at now, and whether the claim
// holds a job: a running job's work left as an expression of time() (nil
// once its declared work is done), a claimed job not started yet its whole
// work; an idle claim between jobs holds none.
func jobWork(c *claim, speed float64, now time.Time) (ast.Expr, bool) {
	w := math.Max(0, classad.EvalNumberOr(c.job, attr.KiteWork, 0))
	if math.IsNaN(w) || math.IsInf(w, 0) {
		w = 0
	}
	switch {
	case c.run == nil && c.activated.IsZero():
		return ast.Number(w), true
	case c.run == nil:
		return nil, false
	}
	start := c.activated.Unix()
	if w-float64(now.Unix()-start)*speed <= 0 {
		return nil, true
	}
	elapsed := &ast.Paren{At: ast.NoPos, X: &ast.Binary{At: ast.NoPos, Op: ast.OpSub,
		X: &ast.Call{At: ast.NoPos, Name: "time"}, Y: ast.Int(start)}}
	left := &ast.Binary{At: ast.NoPos, Op: ast.OpSub, X: ast.Number(w),
		Y: &ast.Binary{At: ast.NoPos, Op: ast.OpMul, X: elapsed, Y: ast.Number(speed)}}
	return &ast.Call{At: ast.NoPos, Name: "max", Args: []ast.Expr{&ast.List{At: ast.NoPos, Elems: []ast.Expr{ast.Int(0), left}}}}, true
}
