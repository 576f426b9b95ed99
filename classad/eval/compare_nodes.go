package eval

import "github.com/kite-sched/kite/classad/ast"

// Comparison nodes specialised at compile time. Requirements and Rank
// expressions are mostly comparisons of an attribute with a constant, so
// these fast paths carry most of matchmaking; anything unusual falls back
// to the generic operator.

// compileComparison returns a node for x op y, a comparison operator.
func compileComparison(op ast.Op, x, y node) node {
	if lit, ok := y.(*litNode); ok {
		switch lit.v.kind {
		case IntKind:
			return &cmpIntNode{op: op, x: x, k: lit.v.i(), kv: lit.v}
		case StringKind:
			if op == ast.OpEq || op == ast.OpNe {
				return &eqStringNode{ne: op == ast.OpNe, x: x, k: lit.v.str(), kv: lit.v}
			}
		}
	}
	return &cmpNode{op: op, x: x, y: y}
}

// cmpNode compares two operands, with a fast path for two integers.
type cmpNode struct {
	op   ast.Op
	x, y node
}

func (n *cmpNode) eval(st *State, sc *Scope) Value {
	a, b := n.x.eval(st, sc), n.y.eval(st, sc)
	if a.kind == IntKind && b.kind == IntKind {
		return Bool(holds(n.op, cmpInt(a.i(), b.i())))
	}
	return binary(n.op, a, b)
}

// cmpIntNode compares an operand with an integer constant.
type cmpIntNode struct {
	op ast.Op
	x  node
	k  int64
	kv Value
}

func (n *cmpIntNode) eval(st *State, sc *Scope) Value {
	a := n.x.eval(st, sc)
	if a.kind == IntKind {
		return Bool(holds(n.op, cmpInt(a.i(), n.k)))
	}
	return binary(n.op, a, n.kv)
}

// eqStringNode is == or != with a string constant: case-insensitive.
type eqStringNode struct {
	ne bool
	x  node
	k  string
	kv Value
}

func (n *eqStringNode) eval(st *State, sc *Scope) Value {
	a := n.x.eval(st, sc)
	if a.kind == StringKind {
		return Bool(ast.EqualFold(a.str(), n.k) != n.ne)
	}
	op := ast.OpEq
	if n.ne {
		op = ast.OpNe
	}
	return binary(op, a, n.kv)
}
