package eval

import "github.com/kite-sched/kite/classad/ast"

// List is a list value. A list literal evaluates to itself: its elements
// are evaluated when they are used, in the scope the literal was evaluated
// in, and the list prints as written, as in HTCondor. Lists built by
// functions (split, a selection over a list of records) hold values.
type List struct {
	vals  []Value // when src is nil
	src   *ast.List
	elems []node
	scope *Scope
}

// Len returns the number of elements.
func (l *List) Len() int {
	if l.src != nil {
		return len(l.elems)
	}
	return len(l.vals)
}

// Elem evaluates and returns the i-th element.
func (l *List) Elem(i int) Value {
	st := getState(nil, nil)
	defer putState(st)
	return l.elem(st, i)
}

// Values evaluates and returns every element.
func (l *List) Values() []Value {
	st := getState(nil, nil)
	defer putState(st)
	out := make([]Value, l.Len())
	for i := range out {
		out[i] = l.elem(st, i)
	}
	return out
}

func (l *List) elem(st *State, i int) Value {
	if l.src == nil {
		return l.vals[i]
	}
	sc := l.scope
	if sc == nil {
		sc = emptyScope
	}
	return l.elems[i].eval(st, sc)
}

// Expr returns the list as an expression: the literal it came from, or
// literals of its values.
func (l *List) Expr() ast.Expr {
	if l.src != nil {
		return l.src
	}
	out := &ast.List{At: ast.NoPos, Elems: make([]ast.Expr, len(l.vals))}
	for i, v := range l.vals {
		out.Elems[i] = ToExpr(v)
	}
	return out
}

func (l *List) appendTo(buf []byte, style ast.Style) []byte {
	return appendExpr(buf, l.Expr(), style)
}

// emptyScope is the scope of expressions evaluated outside any ad.
var emptyScope = NewAd().Scope()

// ToExpr returns an expression that evaluates to v: a literal for scalars,
// absTime("...") and relTime("...") for times, a list or record literal for
// lists and records.
func ToExpr(v Value) ast.Expr {
	switch v.kind {
	case UndefinedKind:
		return ast.Undefined()
	case ErrorKind:
		return ast.Error()
	case BoolKind:
		return ast.Bool(v.n != 0)
	case IntKind:
		return ast.Int(v.i())
	case RealKind:
		return ast.Real(v.r())
	case StringKind:
		return ast.Str(v.str())
	case AbsTimeKind:
		return &ast.Call{At: ast.NoPos, Name: "absTime", Args: []ast.Expr{ast.Str(string(AppendAbsTime(nil, v.i(), v.tz)))}}
	case RelTimeKind:
		return &ast.Call{At: ast.NoPos, Name: "relTime", Args: []ast.Expr{ast.Str(FormatRelTime(v.r()))}}
	case ListKind:
		l := v.list()
		return l.Expr()
	case RecordKind:
		s := v.scope()
		return s.ad.Record()
	}
	return ast.Error()
}
