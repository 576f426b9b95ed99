package eval

import (
	"strings"

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
		&Builtin{Name: "evalInEachContext", MinArgs: 2, MaxArgs: 2, Lazy: evalInEachContext},
		&Builtin{Name: "countMatches", MinArgs: 2, MaxArgs: 2, Lazy: countMatches},
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
// the list: true as soon as one does.
func member(st *State, a []Value, identical bool) Value {
	x, lv := a[0], a[1]
	switch {
	case x.kind == UndefinedKind && !identical:
		return Undefined()
	case x.kind == ErrorKind || lv.kind == ErrorKind:
		return Error()
	case lv.kind == UndefinedKind:
		return Undefined()
	case lv.kind != ListKind || !isScalar(x):
		return Error()
	}
	l := lv.o.(*List)
	for i := 0; i < l.Len(); i++ {
		e := l.elem(st, i)
		if identical {
			if Identical(x, e) {
				return Bool(true)
			}
			continue
		}
		if r := binary(ast.OpEq, x, e); r.kind == BoolKind && r.n != 0 {
			return Bool(true)
		}
	}
	return Bool(false)
}

var compareOps = map[string]ast.Op{
	"<": ast.OpLT, "<=": ast.OpLE, "==": ast.OpEq, "!=": ast.OpNe, ">=": ast.OpGE, ">": ast.OpGT,
	"is": ast.OpIs, "=?=": ast.OpIs, "isnt": ast.OpIsnt, "=!=": ast.OpIsnt,
}

// listCompare is anyCompare (any) and allCompare: compare each element of
// the list with x by the operator named in the first argument.
func listCompare(st *State, a []Value, any bool) Value {
	opv, lv, x := a[0], a[1], a[2]
	if v, bad := strictArgs(opv, lv); bad {
		return v
	}
	if opv.kind != StringKind || lv.kind != ListKind || !isScalar(x) {
		return Error()
	}
	op, ok := compareOps[strings.ToLower(opv.s)]
	if !ok {
		return Error()
	}
	l := lv.o.(*List)
	for i := 0; i < l.Len(); i++ {
		e := l.elem(st, i)
		var r bool
		switch op {
		case ast.OpIs:
			r = Identical(e, x)
		case ast.OpIsnt:
			r = !Identical(e, x)
		default:
			r = binary(op, e, x).IsTrue()
		}
		if r == any {
			return Bool(any)
		}
	}
	return Bool(!any)
}

// contexts evaluates the list argument of evalInEachContext and
// countMatches.
func contexts(st *State, sc *Scope, n node) (*List, Value) {
	v := n.eval(st, sc)
	if v.kind != ListKind {
		return nil, v
	}
	return v.o.(*List), v
}

// evalInEachContext evaluates the expression in each record of the list.
func evalInEachContext(st *State, sc *Scope, args []node) Value {
	l, v := contexts(st, sc, args[1])
	if l == nil {
		return Error()
	}
	out := make([]Value, l.Len())
	for i := range out {
		e := l.elem(st, i)
		if e.kind != RecordKind {
			return Error()
		}
		out[i] = args[0].eval(st, e.o.(*Scope))
	}
	_ = v
	return ListOf(out...)
}

// countMatches counts the records of the list in which the expression is
// true; elements that are not records are skipped.
func countMatches(st *State, sc *Scope, args []node) Value {
	l, v := contexts(st, sc, args[1])
	if l == nil {
		if v.kind == ErrorKind {
			return Error()
		}
		return Int(0)
	}
	n := int64(0)
	for i := 0; i < l.Len(); i++ {
		e := l.elem(st, i)
		if e.kind == RecordKind && args[0].eval(st, e.o.(*Scope)).IsTrue() {
			n++
		}
	}
	return Int(n)
}
