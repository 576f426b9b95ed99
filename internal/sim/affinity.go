package sim

import (
	"fmt"
	"math"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// Affinity: machines faster at some jobs than at others (a machine
// group's affinity, an expression of the job). A job's work on a machine
// is its work divided by the factor, so every account of a machine's
// work (its runs' remaining work, its queue, KiteWorkLeft) is in what the
// machine's plain speed does per second.

// powerExpr is the slot attribute KitePower for an affinity: the slot's
// speed times the factor.
func powerExpr(p *classad.Program) ast.Expr {
	speed := &ast.Select{At: ast.NoPos, X: &ast.AttrRef{At: ast.NoPos, Name: "MY"}, Name: attr.KiteSpeed}
	return &ast.Binary{At: ast.NoPos, Op: ast.OpMul, X: speed, Y: &ast.Paren{At: ast.NoPos, X: p.Expr()}}
}

// affinityRefs lists the attributes the machine groups' affinities read,
// for the significant set: jobs that differ in them are apart. An
// affinity is evaluated with MY the slot and TARGET the job, so every
// name it reads, scoped or not, may be the job's.
func affinityRefs(st *Setup) []string {
	r := ast.NewRefs()
	for i := range st.Machines {
		if p := st.Machines[i].affinity; p != nil {
			r.Expr(nil, p.Expr())
		}
	}
	out := make([]string, 0, len(r.Other))
	for _, n := range r.Other {
		out = append(out, n)
	}
	return out
}

// workOn is job j's work as machine mi does it: its work over the
// machine's affinity for it.
func (e *engine) workOn(j, mi int32) float64 {
	return e.jobs[j].work / e.affinity(j, mi)
}

// affinity is how many times faster than its speed machine mi runs job
// j: 1 without an affinity; evaluated once per machine group and
// autocluster (the attributes it reads are significant).
func (e *engine) affinity(j, mi int32) float64 {
	m := e.machines[mi]
	mg := &e.st.Machines[m.group]
	if mg.affinity == nil {
		return 1
	}
	ac := e.autoclusterOf(j)
	key := [2]int32{m.group, ac}
	if f, ok := e.affCache[key]; ok {
		return f
	}
	jb := &e.jobs[j]
	job := e.acs[ac].ad
	if g := &e.groups[jb.group]; g.ads != nil {
		job = g.ads[jb.index]
	}
	f := 1.0
	v, err := classad.Eval(mg.affinity, e.slots[m.slots[0]].ad, job)
	n, ok := v.NumberValue()
	if err != nil || !ok || !(n > 0) || math.IsInf(n, 1) {
		// A factor that is not a positive number would stop the job for
		// good: the run fails with this error (Simulate returns it).
		if e.affErr == nil {
			e.affErr = fmt.Errorf("machines[%d].affinity %q gives %v for a job of type %s: want a positive number",
				m.group, mg.Affinity, v, e.w.types[jb.typ])
		}
	} else {
		f = n
	}
	if e.affCache == nil {
		e.affCache = map[[2]int32]float64{}
	}
	e.affCache[key] = f
	return f
}
