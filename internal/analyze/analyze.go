// Package analyze explains why a job does not run: which clauses of its
// Requirements reject how many of the pool's slots, which slots reject it
// by their own policy, how many matching slots are busy or claimed by
// others, and what change to the job would let it match. It is the engine
// of `kite analyze` and `kite q -better-analyze`.
//
// HTCondor users call condor_q -better-analyze misleading: it counts
// clauses cumulatively in an order it picks, and says little about what to
// change. Here each clause is counted on its own (how many slots it
// rejects, and how many it alone rejects), the slots' side is explained by
// their own failing clauses, and suggestions are checked: a suggested
// request_memory is tried against every slot before it is offered.
package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/match"
)

// Report is the analysis of one job against the pool's slots.
type Report struct {
	Slots int // slots in the pool
	// RejectedByJob slots fail the job's Requirements; RejectedBySlot
	// slots pass them but their own Requirements (START) refuse the job.
	RejectedByJob, RejectedBySlot int
	// Matching slots accept the job and are accepted by it, by state.
	Matching int
	Free     int // Unclaimed: the job could start there at the next cycle
	Yours    int // claimed, running jobs of the job's own user
	Others   int // claimed by other users
	Offline  int // Owner, Drained, Preempting, Matched: not taking jobs now
	// Clauses are the job's Requirements, clause by clause.
	Clauses []Clause
	// SlotClauses are the slots' clauses that refuse the job, most
	// frequent first.
	SlotClauses []SlotClause
	// Suggestions say what would make the job match, checked against the
	// pool.
	Suggestions []string
	// Never says why the job never runs whatever the slots' state: it
	// asks for more of a concurrency limit than the pool has (see Never).
	Never []string
}

// NeverRuns records why the job never runs, from outside its ad and the
// slots' (the negotiator's concurrency limits): a job whose slots match
// does not wait for one to be free, so the advice to wait goes.
func (r *Report) NeverRuns(reasons []string) {
	if len(reasons) == 0 {
		return
	}
	r.Never = append(r.Never, reasons...)
	if r.Matching > 0 {
		r.Suggestions = nil // only "none is free now: the job waits"
	}
}

// Clause is one conjunct of the job's Requirements.
type Clause struct {
	Expr string
	// Attr is where the clause comes from when it is not Requirements
	// itself (an attribute Requirements refers to).
	Attr string
	// Pass counts the slots the clause holds for; Undefined the slots
	// where it is undefined (the slot lacks an attribute); Alone the slots
	// this clause is the only one to reject.
	Pass, Undefined, Alone int
}

// SlotClause is a clause of slots' Requirements that refuses the job.
type SlotClause struct {
	Expr  string
	Slots int
}

// Job analyzes job against slots.
func Job(job *classad.Ad, slots []*classad.Ad) *Report {
	r := &Report{Slots: len(slots)}
	clauses, progs := jobClauses(job, slots)
	r.Clauses = clauses
	user := classad.EvalStringOr(job, "User", "")
	if user == "" {
		user = classad.EvalStringOr(job, "Owner", "")
	}
	var st eval.State
	var m match.Matcher
	slotClauses := map[string]int{}
	for _, slot := range slots {
		failed, last := 0, -1
		for k, p := range progs {
			st.Reset(job, slot)
			v := st.Eval(p)
			switch {
			case v.IsTrue():
				r.Clauses[k].Pass++
			default:
				if v.IsUndefined() {
					r.Clauses[k].Undefined++
				}
				failed++
				last = k
			}
		}
		if failed == 1 {
			r.Clauses[last].Alone++
		}
		if !requirementsHold(&st, job, slot) {
			r.RejectedByJob++
			continue
		}
		if !m.Matches(job, slot) {
			r.RejectedBySlot++
			for _, c := range match.Explain(slot, job, "Requirements") {
				if !c.Holds() {
					slotClauses[c.String()]++
				}
			}
			continue
		}
		r.Matching++
		r.countState(slot, user)
	}
	for e, n := range slotClauses {
		r.SlotClauses = append(r.SlotClauses, SlotClause{Expr: e, Slots: n})
	}
	slices.SortFunc(r.SlotClauses, func(a, b SlotClause) int {
		return cmp.Or(cmp.Compare(b.Slots, a.Slots), cmp.Compare(a.Expr, b.Expr))
	})
	r.Suggestions = suggest(job, slots, r)
	return r
}

func requirementsHold(st *eval.State, job, slot *classad.Ad) bool {
	st.Reset(job, slot)
	return st.EvalAttr("Requirements").IsTrue()
}

// countState sorts a matching slot by what it is doing.
func (r *Report) countState(slot *classad.Ad, user string) {
	switch state := classad.EvalStringOr(slot, "State", ""); {
	case strings.EqualFold(state, "Unclaimed"):
		r.Free++
	case strings.EqualFold(state, "Claimed"):
		if remote := classad.EvalStringOr(slot, "RemoteUser", ""); remote != "" && (remote == user || strings.HasPrefix(remote, user+"@")) {
			r.Yours++
		} else {
			r.Others++
		}
	default:
		r.Offline++
	}
}

// jobClauses splits the job's Requirements into clauses (expanding
// references to its own attributes) and compiles each once.
func jobClauses(job *classad.Ad, slots []*classad.Ad) ([]Clause, []*classad.Program) {
	target := classad.NewAd()
	if len(slots) > 0 {
		target = slots[0]
	}
	var out []Clause
	var progs []*classad.Program
	for _, c := range match.Explain(job, target, "Requirements") {
		cl := Clause{Expr: ast.String(unparen(c.Expr))}
		if !ast.EqualFold(c.Attr, "Requirements") {
			cl.Attr = c.Attr
		}
		out = append(out, cl)
		progs = append(progs, eval.Compile(c.Expr))
	}
	return out, progs
}

// submitCommands maps job attributes to the submit commands that set them.
var submitCommands = map[string]string{
	"requestmemory": "request_memory",
	"requestcpus":   "request_cpus",
	"requestdisk":   "request_disk",
}

// suggest proposes changes that would let the job match, each checked by
// counting the slots the changed job would match.
func suggest(job *classad.Ad, slots []*classad.Ad, r *Report) []string {
	if r.Matching > 0 {
		if r.Free == 0 {
			return []string{fmt.Sprintf("%d slots match but none is free now: the job waits for one (or for its share of the pool)", r.Matching)}
		}
		return nil
	}
	var out []string
	for k, c := range r.Clauses {
		if c.Pass > 0 && c.Alone == 0 {
			continue
		}
		e, err := classad.ParseExpr(c.Expr)
		if err != nil {
			continue
		}
		out = append(out, clauseAdvice(job, slots, e, r.Clauses[k])...)
	}
	if r.RejectedBySlot > 0 && len(r.SlotClauses) > 0 {
		out = append(out, fmt.Sprintf("%d slots accept the job's requirements but refuse the job by their own policy, most often: %s",
			r.RejectedBySlot, r.SlotClauses[0].Expr))
	}
	return out
}

// clauseAdvice explains a failing comparison between a slot attribute and
// a value of the job, and tries the value that would pass on the most
// slots.
func clauseAdvice(job *classad.Ad, slots []*classad.Ad, e ast.Expr, c Clause) []string {
	b, ok := unparen(e).(*ast.Binary)
	if !ok || !b.Op.IsComparison() {
		if c.Pass == 0 && c.Undefined > 0 {
			return []string{fmt.Sprintf("%s is undefined on %d slots: they lack an attribute it reads", c.Expr, c.Undefined)}
		}
		return nil
	}
	slotSide, jobSide, op := b.X, b.Y, b.Op
	name, isSlot := slotAttr(job, slotSide)
	if !isSlot {
		slotSide, jobSide, op = b.Y, b.X, flip(b.Op)
		if name, isSlot = slotAttr(job, slotSide); !isSlot {
			return nil
		}
	}
	want, _ := eval.Evaluate(eval.Compile(jobSide), job, nil)
	vals := slotValues(slots, name)
	if len(vals.nums) == 0 && len(vals.strs) == 0 {
		return []string{fmt.Sprintf("no slot in the pool has %s (clause %s)", name, c.Expr)}
	}
	if f, ok := want.NumberValue(); ok && len(vals.nums) > 0 {
		return numberAdvice(job, slots, jobSide, name, op, f, vals, c)
	}
	if s, ok := want.StringValue(); ok && len(vals.strs) > 0 {
		return []string{fmt.Sprintf("the job wants %s %s %q; the pool has %s", name, op, s, vals.describe())}
	}
	return nil
}

// numberAdvice handles `slot.X op value`.
func numberAdvice(job *classad.Ad, slots []*classad.Ad, jobSide ast.Expr, name string, op ast.Op, want float64, vals values, c Clause) []string {
	lo, hi := slices.Min(vals.nums), slices.Max(vals.nums)
	var msg string
	switch op {
	case ast.OpGE, ast.OpGT:
		msg = fmt.Sprintf("the job needs %s %s %s; the largest in the pool is %s", name, op, num(want), num(hi))
	case ast.OpLE, ast.OpLT:
		msg = fmt.Sprintf("the job needs %s %s %s; the smallest in the pool is %s", name, op, num(want), num(lo))
	default:
		return []string{fmt.Sprintf("the job needs %s %s %s; the pool has values from %s to %s", name, op, num(want), num(lo), num(hi))}
	}
	out := []string{msg}
	ref, isRef := unparen(jobSide).(*ast.AttrRef)
	if !isRef {
		return out
	}
	cmd := submitCommands[ast.Lower(ref.Name)]
	if cmd == "" {
		cmd = "+" + ref.Name
	}
	try := hi
	if op == ast.OpLE || op == ast.OpLT {
		try = lo
	}
	changed := job.Clone()
	changed.Set(ref.Name, numberLiteral(try))
	var m match.Matcher
	n := 0
	for _, s := range slots {
		if m.Matches(changed, s) {
			n++
		}
	}
	if n > 0 {
		out = append(out, fmt.Sprintf("with %s = %s the job would match %d slots", cmd, num(try), n))
	} else {
		out = append(out, fmt.Sprintf("%s = %s alone would not be enough: other clauses still fail", cmd, num(try)))
	}
	return out
}

func numberLiteral(f float64) ast.Expr {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return ast.Int(int64(f))
	}
	return ast.Real(f)
}

func num(f float64) string { return ast.String(numberLiteral(f)) }

// values are a slot attribute's values across the pool.
type values struct {
	nums []float64
	strs map[string]int
}

func slotValues(slots []*classad.Ad, name string) values {
	v := values{strs: map[string]int{}}
	for _, s := range slots {
		val, _ := classad.EvalAttr(s, name, nil)
		if f, ok := val.NumberValue(); ok {
			v.nums = append(v.nums, f)
		} else if str, ok := val.StringValue(); ok {
			v.strs[str]++
		}
	}
	return v
}

// describe lists string values with their counts, commonest first.
func (v values) describe() string {
	type kv struct {
		s string
		n int
	}
	var list []kv
	for s, n := range v.strs {
		list = append(list, kv{s, n})
	}
	slices.SortFunc(list, func(a, b kv) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.s, b.s)) })
	var parts []string
	for i, e := range list {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("and %d more", len(list)-6))
			break
		}
		parts = append(parts, fmt.Sprintf("%q (%d slots)", e.s, e.n))
	}
	return strings.Join(parts, ", ")
}

// slotAttr reports whether e reads a slot attribute: TARGET.X, or a bare X
// the job does not define.
func slotAttr(job *classad.Ad, e ast.Expr) (string, bool) {
	switch x := unparen(e).(type) {
	case *ast.Select:
		if base, ok := x.X.(*ast.AttrRef); ok && ast.EqualFold(base.Name, "target") {
			return x.Name, true
		}
	case *ast.AttrRef:
		if job.Index(x.Name) < 0 && !ast.EqualFold(x.Name, "target") && !ast.EqualFold(x.Name, "my") {
			return x.Name, true
		}
	}
	return "", false
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.Paren)
		if !ok {
			return e
		}
		e = p.X
	}
}

// flip mirrors a comparison: a < b is b > a.
func flip(op ast.Op) ast.Op {
	switch op {
	case ast.OpLT:
		return ast.OpGT
	case ast.OpGT:
		return ast.OpLT
	case ast.OpLE:
		return ast.OpGE
	case ast.OpGE:
		return ast.OpLE
	}
	return op
}
