package eval

import (
	"github.com/kite-sched/kite/classad/ast"
)

// List functions: member, identicalMember, anyCompare, allCompare,
// evalInEachContext, countMatches.

func init() {
	register(
		fn("member", 2, 2, func(c *Call, a []Value) Value { return member(c.st, a, false) }),
		fn("identicalMember", 2, 2, func(c *Call, a []Value) Value { return member(c.st, a, true) }),
		fn("anyCompare", 3, 3, func(c *Call, a []Value) Value { return listCompare(c.st, a, true) }),
		fn("allCompare", 3, 3, func(c *Call, a []Value) Value { return listCompare(c.st, a, false) }),
		lazy("evalInEachContext", 2, 2, func(st *State, sc *Scope, a []node) Value { return eachContext(st, sc, a, false) }),
		lazy("countMatches", 2, 2, func(st *State, sc *Scope, a []node) Value { return eachContext(st, sc, a, true) }),
	)
}

func (l *List) values(st *State) []Value {
	if l.src == nil {
		return l.vals
	}
	out := make([]Value, len(l.elems))
	for i := range out {
		out[i] = l.elem(st, i)
	}
	return out
}

func isScalar(v Value) bool { return v.kind != ListKind && v.kind != RecordKind }

// member reports whether x equals (==, or =?= when identical) an element of
// the list: true as soon as one comparison is true, else false. An
// UNDEFINED list is UNDEFINED, as is an UNDEFINED x for member; a list
// that is not a list, or an x that is a list or record, is ERROR, as is an
// ERROR x for member (identicalMember looks for ERROR in the list).
func member(st *State, a []Value, ident bool) Value {
	x, lv := a[0], a[1]
	switch {
	case lv.kind == UndefinedKind || (!ident && x.kind == UndefinedKind):
		return Undefined()
	case lv.kind != ListKind || !isScalar(x):
		return Error()
	case !ident && x.kind == ErrorKind:
		return Error()
	}
	l := lv.list()
	for i := 0; i < l.Len(); i++ {
		e := l.elem(st, i)
		var r Value
		if ident {
			r = identical(e, x)
		} else {
			r = binary(opEq, e, x)
		}
		if r.kind == BoolKind && r.n != 0 {
			return Bool(true)
		}
	}
	return Bool(false)
}

// listCompareOps are the operators anyCompare and allCompare accept,
// spelled exactly so.
var listCompareOps = map[string]func(a, b Value) Value{
	"<":    func(a, b Value) Value { return binary(ast.OpLT, a, b) },
	"<=":   func(a, b Value) Value { return binary(ast.OpLE, a, b) },
	"==":   func(a, b Value) Value { return binary(ast.OpEq, a, b) },
	"!=":   func(a, b Value) Value { return binary(ast.OpNe, a, b) },
	">=":   func(a, b Value) Value { return binary(ast.OpGE, a, b) },
	">":    func(a, b Value) Value { return binary(ast.OpGT, a, b) },
	"is":   identical,
	"isnt": notIdentical,
}

// listCompare is anyCompare (any) and allCompare: compare each element of
// the list with x by the operator named in the first argument, stopping at
// the first element that decides. A comparison that is UNDEFINED makes
// either function false at once; one that is ERROR makes it ERROR. The
// operator is checked before the list: UNDEFINED is UNDEFINED, anything but
// one of < <= == != >= > is isnt is ERROR; then an UNDEFINED list is
// UNDEFINED and a non-list ERROR.
func listCompare(st *State, a []Value, any bool) Value {
	opv, lv, x := a[0], a[1], a[2]
	if opv.kind == UndefinedKind {
		return Undefined()
	}
	cmp, ok := listCompareOps[opv.str()]
	switch {
	case opv.kind != StringKind || !ok:
		return Error()
	case lv.kind == UndefinedKind:
		return Undefined()
	case lv.kind != ListKind:
		return Error()
	}
	l := lv.list()
	for i := 0; i < l.Len(); i++ {
		switch r := cmp(l.elem(st, i), x); {
		case r.kind == UndefinedKind:
			return Bool(false)
		case r.kind != BoolKind:
			return Error()
		case (r.n != 0) == any:
			return Bool(any)
		}
	}
	return Bool(!any)
}

// eachContext is evalInEachContext (a list of the expression's value in
// each record of the list) and countMatches (how many of those values are
// true or a non-zero number). When the expression is a reference to an
// attribute, the attribute's expression is what is evaluated in each
// record. An element that is not a record gives UNDEFINED (or ERROR unless
// it is UNDEFINED) and is never counted. An UNDEFINED list gives UNDEFINED
// to evalInEachContext and 0 to countMatches; anything else not a list is
// ERROR.
func eachContext(st *State, sc *Scope, args []node, count bool) Value {
	lv := args[1].eval(st, sc)
	switch {
	case lv.kind == UndefinedKind && count:
		return Int(0)
	case lv.kind == UndefinedKind:
		return Undefined()
	case lv.kind != ListKind:
		return Error()
	}
	expr := contextExpr(st, sc, args[0])
	l := lv.list()
	out := make([]Value, l.Len())
	n := int64(0)
	for i := range out {
		out[i] = inContext(st, expr, l.elem(st, i))
		if out[i].IsTrue() {
			n++
		}
	}
	if count {
		return Int(n)
	}
	return ListOf(out...)
}

// contextExpr returns what evalInEachContext evaluates: the expression an
// attribute reference names, or the argument itself.
func contextExpr(st *State, sc *Scope, n node) compiled {
	if e, _, ok := attrExpr(st, sc, n); ok && e != nil {
		return compileAttr(e)
	}
	if r, ok := n.(*refNode); ok {
		if alt := st.alternate(sc); alt != nil {
			if e, _, _ := attrExpr(st, alt, r); e != nil {
				return compileAttr(e)
			}
		}
	}
	return compiled{n: n}
}

// inContext evaluates c in the record rec.
func inContext(st *State, c compiled, rec Value) Value {
	switch rec.kind {
	case RecordKind:
		return st.evalCompiled(rec.scope(), c)
	case UndefinedKind:
		return Undefined()
	}
	return Error()
}

// evalCompiled evaluates an expression found at run time (by eval() or an
// attribute lookup) in sc, counting it against the step and depth limits.
func (st *State) evalCompiled(sc *Scope, c compiled) Value {
	st.steps++
	if st.steps > MaxSteps {
		return st.fail("evaluation took more than %d steps", MaxSteps)
	}
	st.depth += int(c.depth)
	defer func() { st.depth -= int(c.depth) }()
	if st.depth > MaxDepth {
		return st.fail("evaluation nested more than %d levels deep", MaxDepth)
	}
	return c.n.eval(st, sc)
}
