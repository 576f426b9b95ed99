package eval

import (
	"github.com/kite-sched/kite/classad/ast"
)

// node is a compiled expression: names hashed, functions resolved,
// constant sub-expressions folded, parentheses dropped. Compilation happens
// once per attribute; evaluation then walks nodes without allocating.
type node interface {
	eval(st *State, sc *Scope) Value
}

// Program is a compiled expression, for evaluating one expression many
// times (a Requirements against every slot, say).
type Program struct {
	expr  ast.Expr
	n     node
	depth int32
}

// Compile compiles e for repeated evaluation.
func Compile(e ast.Expr) *Program {
	c := compileAttr(e)
	return &Program{expr: e, n: c.n, depth: c.depth}
}

// Expr returns the expression the program was compiled from.
func (p *Program) Expr() ast.Expr { return p.expr }

// Constant returns the program's value and true when it does not depend on
// any ad (it was folded to a literal when compiled).
func (p *Program) Constant() (Value, bool) {
	if l, ok := p.n.(*litNode); ok {
		return l.v, true
	}
	return Value{}, false
}

// compileAttr compiles an attribute's expression.
func compileAttr(e ast.Expr) compiled {
	n := compile(e)
	c := compiled{n: n, depth: int32(treeDepth(e))}
	if l, ok := n.(*litNode); ok {
		c.lit, c.val = true, l.v
	}
	return c
}

func treeDepth(e ast.Expr) int {
	d := 0
	ast.EachChild(e, func(c ast.Expr) { d = max(d, treeDepth(c)) })
	return d + 1
}

func compile(e ast.Expr) node {
	switch x := e.(type) {
	case *ast.Literal:
		return &litNode{literalValue(x)}
	case *ast.AttrRef:
		return compileRef(x)
	case *ast.Select:
		return compileSelect(x)
	case *ast.Index:
		return &indexNode{x: compile(x.X), i: compile(x.Index)}
	case *ast.Paren:
		return compile(x.X)
	case *ast.Unary:
		return fold(&unaryNode{op: x.Op, x: compile(x.X)})
	case *ast.Binary:
		return compileBinary(x)
	case *ast.Cond:
		return fold(&condNode{c: compile(x.Cond), a: compile(x.Then), b: compile(x.Else)})
	case *ast.Call:
		return compileCall(x)
	case *ast.List:
		return compileList(x)
	case *ast.Record:
		return &recordNode{ad: FromRecord(x)}
	}
	return &litNode{Error()}
}

func literalValue(x *ast.Literal) Value {
	switch x.Kind {
	case ast.UndefinedLit:
		return Undefined()
	case ast.BoolLit:
		return Bool(x.Bool)
	case ast.IntLit:
		return Int(x.Int)
	case ast.RealLit:
		return Real(x.Real)
	case ast.StringLit:
		return String(x.Str)
	}
	return Error()
}

func compileRef(x *ast.AttrRef) node {
	h := ast.FoldHash(x.Name)
	if x.Absolute {
		return &absRefNode{name: intern(x.Name), hash: h}
	}
	if k := scopeKindOf(x.Name); k != scopeNone {
		return &scopeNode{kind: k, name: x.Name, hash: h}
	}
	return &refNode{name: intern(x.Name), hash: h}
}

func compileSelect(x *ast.Select) node {
	h := ast.FoldHash(x.Name)
	if r, ok := x.X.(*ast.AttrRef); ok && !r.Absolute {
		if k := scopeKindOf(r.Name); k != scopeNone {
			return &scopedRefNode{kind: k, scopeName: r.Name, scopeHash: ast.FoldHash(r.Name), name: intern(x.Name), hash: h}
		}
	}
	return &selectNode{x: compile(x.X), name: intern(x.Name), hash: h}
}

func compileBinary(x *ast.Binary) node {
	a, b := compile(x.X), compile(x.Y)
	var n node
	switch x.Op {
	case ast.OpAnd:
		n = &andNode{a, b}
	case ast.OpOr:
		n = &orNode{a, b}
	case ast.OpElvis:
		n = &elvisNode{a, b}
	case ast.OpIs:
		n = &isNode{a, b, false}
	case ast.OpIsnt:
		n = &isNode{a, b, true}
	default:
		if x.Op.IsComparison() {
			n = compileComparison(x.Op, a, b)
		} else {
			n = &binaryNode{op: x.Op, x: a, y: b}
		}
	}
	return fold(n)
}

// fold evaluates n at compile time when all its operands are literals.
// Only operators and pure functions are folded, so the value is the one
// evaluation would give in any ad.
func fold(n node) node {
	if !constant(n) {
		return n
	}
	st := getState(nil, nil)
	defer putState(st)
	return &litNode{n.eval(st, NewAd().Scope())}
}

func constant(n node) bool {
	isLit := func(n node) bool { _, ok := n.(*litNode); return ok }
	switch x := n.(type) {
	case *unaryNode:
		return isLit(x.x)
	case *binaryNode:
		return isLit(x.x) && isLit(x.y)
	case *cmpNode:
		return isLit(x.x) && isLit(x.y)
	case *cmpIntNode:
		return isLit(x.x)
	case *eqStringNode:
		return isLit(x.x)
	case *andNode:
		return isLit(x.a) && isLit(x.b)
	case *orNode:
		return isLit(x.a) && isLit(x.b)
	case *elvisNode:
		return isLit(x.a) && isLit(x.b)
	case *isNode:
		return isLit(x.a) && isLit(x.b)
	case *condNode:
		return isLit(x.c) && isLit(x.a) && isLit(x.b)
	case *callNode:
		if x.fn == nil || !x.fn.Pure {
			return false
		}
		for _, a := range x.args {
			if !isLit(a) {
				return false
			}
		}
		return true
	}
	return false
}

func compileCall(x *ast.Call) node {
	n := &callNode{src: x, fn: lookupBuiltin(x.Name), args: make([]node, len(x.Args))}
	for i, a := range x.Args {
		n.args[i] = compile(a)
	}
	return fold(n)
}

func compileList(x *ast.List) node {
	n := &listNode{src: x, elems: make([]node, len(x.Elems))}
	allLit := true
	for i, e := range x.Elems {
		n.elems[i] = compile(e)
		if _, ok := n.elems[i].(*litNode); !ok {
			allLit = false
		}
	}
	if allLit {
		n.constant = &List{src: x, elems: n.elems}
	}
	return n
}
