package ast

import "iter"

// Children returns the direct sub-expressions of e in source order (a
// call's arguments and a list's elements are its own slices).
func Children(e Expr) []Expr {
	switch x := e.(type) {
	case *Call:
		return x.Args
	case *List:
		return x.Elems
	}
	var out []Expr // nil for a leaf
	EachChild(e, func(c Expr) {
		if out == nil {
			n := 3 // the most of a fixed node (Cond)
			if r, ok := e.(*Record); ok {
				n = len(r.Attrs)
			}
			out = make([]Expr, 0, n)
		}
		out = append(out, c)
	})
	return out
}

// EachChild calls f for each direct sub-expression of e in source order,
// without making a slice: walks that run on every compile (the depth of a
// tree) allocate nothing.
func EachChild(e Expr, f func(Expr)) {
	switch x := e.(type) {
	case *Select:
		f(x.X)
	case *Index:
		f(x.X)
		f(x.Index)
	case *Unary:
		f(x.X)
	case *Binary:
		f(x.X)
		f(x.Y)
	case *Cond:
		f(x.Cond)
		f(x.Then)
		f(x.Else)
	case *Paren:
		f(x.X)
	case *Call:
		for _, c := range x.Args {
			f(c)
		}
	case *List:
		for _, c := range x.Elems {
			f(c)
		}
	case *Record:
		for _, a := range x.Attrs {
			f(a.Value)
		}
	}
}

// Inspect calls f for e and, while f returns true, for every sub-expression
// in depth-first order.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	EachChild(e, func(c Expr) { Inspect(c, f) })
}

// Preorder returns every expression in the tree rooted at e, parents first.
func Preorder(e Expr) iter.Seq[Expr] {
	return func(yield func(Expr) bool) {
		var walk func(Expr) bool
		walk = func(e Expr) bool {
			if e == nil || !yield(e) {
				return e == nil
			}
			for _, c := range Children(e) {
				if !walk(c) {
					return false
				}
			}
			return true
		}
		walk(e)
	}
}

// Equal reports whether a and b are the same tree, ignoring positions.
// Names compare exactly (as written), so Equal is the round-trip check of
// the printer and parser.
func Equal(a, b Expr) bool {
	return String(a) == String(b) && sameShape(a, b)
}

// sameShape compares node kinds, so that printing cannot hide a change of
// structure (the printer writes parentheses only where the tree has them).
func sameShape(a, b Expr) bool {
	ca, cb := Children(a), Children(b)
	if len(ca) != len(cb) || kindOf(a) != kindOf(b) {
		return false
	}
	for i := range ca {
		if !sameShape(ca[i], cb[i]) {
			return false
		}
	}
	return true
}

func kindOf(e Expr) int {
	switch x := e.(type) {
	case *Literal:
		return 1 + int(x.Kind)
	case *AttrRef:
		return 10
	case *Select:
		return 11
	case *Index:
		return 12
	case *Unary:
		return 20 + int(x.Op)
	case *Binary:
		return 60 + int(x.Op)
	case *Cond:
		return 13
	case *Paren:
		return 14
	case *Call:
		return 15
	case *List:
		return 16
	case *Record:
		return 17
	}
	return 0
}
