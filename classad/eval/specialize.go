package eval

import (
	"sync/atomic"
	"unsafe"

	"github.com/kite-sched/kite/classad/ast"
)

// Match specialisation: the matchmaker evaluates a slot's Requirements and
// Rank against thousands of jobs, and most of those expressions read the
// slot's own attributes (MY.Memory, START, WithinResourceLimits), which are
// the same for every job. HTCondor's matchmaker flattens the machine ad's
// Requirements against the machine's own attributes once per cycle; this is
// Kite's equivalent, done once per ad and attribute and kept until the ad
// changes.
//
// An attribute is specialised by rewriting its compiled expression:
//
//   - a reference to an attribute of the same ad whose value depends on
//     nothing but that ad (no TARGET, no fallback to the other ad, only pure
//     functions, no reference cycle) becomes its value;
//   - a reference to any other attribute of the same ad is inlined: its
//     specialised expression runs in place, with the bookkeeping of an
//     attribute evaluation (depth, steps, cycle detection) kept;
//   - operators whose operands became constants are folded, as is && or ||
//     with one constant operand that decides or passes the other through.
//
// References to the other ad become lookups straight in it (targetRefNode);
// eval(), time(), random() and other impure or lazily evaluated calls are
// left alone. The specialised expression gives
// the value the original would in every match; an evaluation that hits a
// depth or step limit is redone with the original expression, so failures
// are reported exactly as before.

// maxInlines bounds the attributes inlined into one specialised expression
// (inlining a diamond of references repeatedly would grow without bound).
const maxInlines = 64

// maxFoldSteps bounds the evaluation steps of an attribute folded to its
// value.
const maxFoldSteps = 10_000

// specialized is an attribute's expression specialised to its ad.
type specialized struct {
	c compiled // the specialised expression, with the attribute's depth
	// folded is the evaluation steps of the references folded away, which
	// the original expression would have spent.
	folded int
}

// specCache holds an ad's specialised attributes, by attribute index.
type specCache struct {
	progs []unsafe.Pointer // *specialized
}

// forgetSpecialized drops the ad's specialised expressions; any change to
// the ad may change what they fold to.
func (a *Ad) forgetSpecialized() {
	if atomic.LoadPointer(&a.spec) != nil { // no store, which is dearer, when there is none
		atomic.StorePointer(&a.spec, nil)
	}
}

// specialized returns attribute i's expression specialised to the ad, or
// nil when it is evaluated as it is (a constant, or an ad with attributes
// named like scope keywords).
func (a *Ad) specialized(i int) *specialized {
	if a.special > 0 {
		return nil
	}
	c := (*specCache)(atomic.LoadPointer(&a.spec))
	if c == nil {
		c = &specCache{progs: make([]unsafe.Pointer, len(a.attrs))}
		if !atomic.CompareAndSwapPointer(&a.spec, nil, unsafe.Pointer(c)) {
			c = (*specCache)(atomic.LoadPointer(&a.spec))
		}
	}
	p := atomic.LoadPointer(&c.progs[i])
	if p == nil {
		p = unsafe.Pointer(specialize(a, i))
		atomic.StorePointer(&c.progs[i], p)
	}
	if sp := (*specialized)(p); sp.c.n != nil {
		return sp
	}
	return nil
}

// AttrName is an attribute name with its hash computed once, for a name
// evaluated again and again (the matchmaker's Requirements and Rank).
type AttrName struct {
	name string
	hash uint32
}

// NewAttrName returns name ready for EvalMatch.
func NewAttrName(name string) AttrName { return AttrName{name, ast.FoldHash(name)} }

// EvalMatchAttr evaluates the attribute called name of the state's ad as
// EvalAttr does, with the attribute specialised to its ad: the fast path
// for a matchmaker evaluating one ad's Requirements or Rank against many.
func (st *State) EvalMatchAttr(name string) Value { return st.EvalMatch(NewAttrName(name)) }

// EvalMatch is EvalMatchAttr with the name's hash computed beforehand.
func (st *State) EvalMatch(n AttrName) Value {
	if st.my == nil {
		return Undefined()
	}
	i := st.my.find(n.name, n.hash)
	if i < 0 {
		return Undefined()
	}
	sc := st.my.Scope()
	sp := st.my.specialized(i)
	if sp == nil {
		return st.evalAttr(sc, i)
	}
	v := st.enter(sc, i, &sp.c)
	if st.failure != "" || st.steps+sp.folded > MaxSteps {
		// Near a limit: redo it as written, to fail where it would.
		st.Reset(st.my, st.target)
		return st.evalAttr(sc, i)
	}
	return v
}

// inlineNode is an attribute of the evaluating ad inlined where it is
// referenced: its specialised expression, evaluated as the attribute would
// be.
type inlineNode struct {
	i int
	c compiled
}

func (n *inlineNode) eval(st *State, sc *Scope) Value { return st.enter(sc, n.i, &n.c) }

// targetRefNode is a reference the evaluating ad leaves to the other ad of
// the match: TARGET.name, or an unscoped name the ad does not define. It
// is what scopedRefNode and refNode do for them, without the scope walk:
// the specialised ad has no attributes named like scope keywords and is
// not nested.
type targetRefNode struct {
	name string
	hash uint32
}

func (n *targetRefNode) eval(st *State, _ *Scope) Value {
	t := st.target
	if t == nil {
		return Undefined()
	}
	i := t.find(n.name, n.hash)
	if i < 0 {
		return Undefined()
	}
	return st.evalAttr(t.Scope(), i)
}

// boolNode converts an operand of && or || to the boolean the operator
// would yield from it and a deciding constant: `x && true` and `x || false`.
type boolNode struct{ x node }

func (n *boolNode) eval(st *State, sc *Scope) Value {
	v := n.x.eval(st, sc)
	b, ok := logical(v)
	switch {
	case !ok || v.kind == ErrorKind:
		return Error()
	case v.kind == UndefinedKind:
		return v
	}
	return Bool(b)
}

// constAttr is what specialisation knows of an attribute: whether its value
// depends only on its own ad, and if so the value, the deepest nesting and
// the steps its evaluation takes.
type constAttr struct {
	state int8 // 0 unknown, 1 being examined, 2 constant, 3 not constant
	v     Value
	depth int
	steps int
}

const (
	attrUnknown = iota
	attrVisiting
	attrConst
	attrVarying
)

type specializer struct {
	ad      *Ad
	path    []int // attributes being inlined, outermost first
	depth   int   // their depths summed
	inlines int
	folded  int
	attrs   []constAttr
}

// specialize specialises attribute i of a; a constant is left as it is
// (c.n nil).
func specialize(a *Ad, i int) *specialized {
	c := a.compiled(i)
	if c.lit {
		return &specialized{}
	}
	s := &specializer{ad: a, path: []int{i}, depth: int(c.depth), attrs: make([]constAttr, len(a.attrs))}
	n := s.node(c.n)
	return &specialized{c: compiled{n: n, depth: c.depth}, folded: s.folded}
}

// node returns n specialised to the ad, n evaluating in the ad's scope.
func (s *specializer) node(n node) node {
	switch x := n.(type) {
	case *refNode:
		if k := s.ad.find(x.name, x.hash); k >= 0 {
			return s.ref(n, k)
		}
		return &targetRefNode{x.name, x.hash}
	case *scopedRefNode:
		switch x.kind {
		case scopeMy:
			if k := s.ad.find(x.name, x.hash); k >= 0 {
				return s.ref(n, k)
			}
			return &litNode{Undefined()}
		case scopeTarget:
			return &targetRefNode{x.name, x.hash}
		}
	case *unaryNode:
		return fold(&unaryNode{op: x.op, x: s.node(x.x)})
	case *binaryNode:
		return fold(&binaryNode{op: x.op, x: s.node(x.x), y: s.node(x.y)})
	case *cmpNode:
		return comparisonOf(x.op, s.node(x.x), s.node(x.y))
	case *cmpIntNode:
		return fold(compileComparison(x.op, s.node(x.x), &litNode{x.kv}))
	case *eqStringNode:
		return fold(&eqStringNode{ne: x.ne, x: s.node(x.x), k: x.k, kv: x.kv})
	case *andNode:
		return andOf(s.node(x.a), s.node(x.b))
	case *orNode:
		return orOf(s.node(x.a), s.node(x.b))
	case *elvisNode:
		return elvisOf(s.node(x.a), s.node(x.b))
	case *isNode:
		return fold(&isNode{a: s.node(x.a), b: s.node(x.b), not: x.not})
	case *condNode:
		return condOf(s.node(x.c), s.node(x.a), s.node(x.b))
	case *callNode:
		if x.fn != nil && x.fn.Lazy == nil {
			args := make([]node, len(x.args))
			for j, a := range x.args {
				args[j] = s.node(a)
			}
			return fold(&callNode{src: x.src, fn: x.fn, args: args})
		}
	}
	return n
}

// ref returns the specialisation of n, a reference to attribute k of the ad.
func (s *specializer) ref(n node, k int) node {
	c := s.ad.compiled(k)
	if c.lit {
		return &litNode{c.val} // evaluation returns it without counting
	}
	if cst := s.constant(k); cst != nil && s.depth+cst.depth <= MaxDepth {
		s.folded += cst.steps
		return &litNode{cst.v}
	}
	if s.inlines >= maxInlines || s.depth+int(c.depth) > MaxDepth {
		return n
	}
	for _, p := range s.path {
		if p == k {
			return n // a cycle: left to evaluation
		}
	}
	s.inlines++
	s.path = append(s.path, k)
	s.depth += int(c.depth)
	body := s.node(c.n)
	s.depth -= int(c.depth)
	s.path = s.path[:len(s.path)-1]
	return &inlineNode{i: k, c: compiled{n: body, depth: c.depth}}
}

// constant returns what is known of attribute k when its value depends only
// on the ad, or nil.
func (s *specializer) constant(k int) *constAttr {
	c := &s.attrs[k]
	switch c.state {
	case attrConst:
		return c
	case attrVisiting, attrVarying:
		return nil // a cycle, or it depends on more than the ad
	}
	c.state = attrVisiting
	d, ok := s.closed(s.ad.compiled(k).n)
	if ok {
		ok = s.evaluate(k, c)
		c.depth = int(s.ad.compiled(k).depth) + d
	}
	c.state = attrVarying
	if ok {
		c.state = attrConst
		return c
	}
	return nil
}

// closed reports whether n's value depends only on the ad, and the deepest
// nesting of the constant attributes it references.
func (s *specializer) closed(n node) (int, bool) {
	all := func(ns ...node) (int, bool) {
		d := 0
		for _, x := range ns {
			dx, ok := s.closed(x)
			if !ok {
				return 0, false
			}
			d = max(d, dx)
		}
		return d, true
	}
	switch x := n.(type) {
	case *litNode:
		return 0, true
	case *refNode:
		return s.closedRef(s.ad.find(x.name, x.hash), false)
	case *scopedRefNode:
		if x.kind == scopeMy {
			return s.closedRef(s.ad.find(x.name, x.hash), true)
		}
	case *unaryNode:
		return all(x.x)
	case *binaryNode:
		return all(x.x, x.y)
	case *cmpNode:
		return all(x.x, x.y)
	case *cmpIntNode:
		return all(x.x)
	case *eqStringNode:
		return all(x.x)
	case *andNode:
		return all(x.a, x.b)
	case *orNode:
		return all(x.a, x.b)
	case *elvisNode:
		return all(x.a, x.b)
	case *isNode:
		return all(x.a, x.b)
	case *condNode:
		return all(x.c, x.a, x.b)
	case *callNode:
		if x.fn != nil && x.fn.Pure && x.fn.Lazy == nil {
			return all(x.args...)
		}
	case *listNode:
		return 0, x.constant != nil
	}
	return 0, false
}

// closedRef is closed for a reference to attribute k (-1: none); a missing
// unscoped name would be looked up in the other ad.
func (s *specializer) closedRef(k int, scoped bool) (int, bool) {
	if k < 0 {
		return 0, scoped
	}
	c := s.constant(k)
	if c == nil {
		return 0, false
	}
	return c.depth, true
}

// evaluate sets c to attribute k's value, evaluated on its own, and reports
// whether it can stand for the reference: a scalar, reached without
// failure, in few steps.
func (s *specializer) evaluate(k int, c *constAttr) bool {
	st := getState(s.ad, nil)
	defer putState(st)
	v := st.evalAttr(s.ad.Scope(), k)
	if st.failure != "" || st.steps > maxFoldSteps {
		return false
	}
	switch v.kind {
	case UndefinedKind, ErrorKind, BoolKind, IntKind, RealKind, StringKind:
		c.v, c.steps = v, st.steps
		return true
	}
	return false
}

// andOf is a && b with constant operands folded.
func andOf(a, b node) node { return shortCircuit(a, b, &andNode{a, b}, false) }

// orOf is a || b with constant operands folded.
func orOf(a, b node) node { return shortCircuit(a, b, &orNode{a, b}, true) }

// shortCircuit folds op, a && b (decisive false) or a || b (decisive
// true): a constant a that is the decisive value decides; a constant a
// that is not leaves b; a constant b that is not decisive leaves a.
func shortCircuit(a, b, op node, decisive bool) node {
	n := fold(op)
	if la, ok := a.(*litNode); ok {
		l, ok := logical(la.v)
		switch {
		case !ok || la.v.kind == ErrorKind:
			return &litNode{Error()}
		case la.v.kind == UndefinedKind:
			return n
		case l == decisive:
			return &litNode{Bool(decisive)}
		}
		return boolOf(b)
	}
	if decides(b, !decisive) {
		return boolOf(a)
	}
	return n
}

// decides reports whether n is a constant that is logically want (not
// UNDEFINED or ERROR).
func decides(n node, want bool) bool {
	l, ok := n.(*litNode)
	if !ok || l.v.kind == UndefinedKind || l.v.kind == ErrorKind {
		return false
	}
	b, ok := logical(l.v)
	return ok && b == want
}

// boolOf converts n as && and || convert an operand, unless n already
// yields only booleans, UNDEFINED or ERROR.
func boolOf(n node) node {
	if l, ok := n.(*litNode); ok {
		return &litNode{(&boolNode{l}).eval(nil, nil)}
	}
	if yieldsBool(n) {
		return n
	}
	return &boolNode{n}
}

// yieldsBool reports whether n yields only booleans, UNDEFINED or ERROR.
func yieldsBool(n node) bool {
	switch x := n.(type) {
	case *andNode, *orNode, *cmpNode, *cmpIntNode, *intCmpNode, *eqStringNode, *isNode, *boolNode:
		return true
	case *inlineNode: // or UNDEFINED for a cycle, ERROR on failure
		return yieldsBool(x.c.n)
	}
	return false
}

// elvisOf is a ?: b with a constant a folded.
func elvisOf(a, b node) node {
	if la, ok := a.(*litNode); ok {
		if la.v.kind != UndefinedKind {
			return a
		}
		return b
	}
	return &elvisNode{a, b}
}

// condOf is c ? a : b with a constant condition folded.
func condOf(c, a, b node) node {
	lc, ok := c.(*litNode)
	if !ok {
		return &condNode{c, a, b}
	}
	l, ok := logical(lc.v)
	switch {
	case !ok || lc.v.kind == ErrorKind:
		return &litNode{Error()}
	case lc.v.kind == UndefinedKind:
		return &litNode{Undefined()}
	case l:
		return a
	}
	return b
}

// comparisonOf is x op y, a comparison, with a constant integer x given its
// own fast path as a constant y is at compile time.
func comparisonOf(op ast.Op, x, y node) node {
	n := fold(compileComparison(op, x, y))
	if c, ok := n.(*cmpNode); ok {
		if l, ok := c.x.(*litNode); ok && l.v.kind == IntKind {
			return &intCmpNode{op: op, k: l.v.i(), kv: l.v, y: y}
		}
	}
	return n
}

// intCmpNode compares an integer constant with an operand: k op y.
type intCmpNode struct {
	op ast.Op
	k  int64
	kv Value
	y  node
}

func (n *intCmpNode) eval(st *State, sc *Scope) Value {
	b := n.y.eval(st, sc)
	if b.kind == IntKind {
		return Bool(holds(n.op, cmpInt(n.k, b.i())))
	}
	return binary(n.op, n.kv, b)
}
