package ast

import "iter"

// Children returns the direct sub-expressions of e in source order.
func Children(e Expr) []Expr {
	switch x := e.(type) {
	case *Select:
		return []Expr{x.X}
	case *Index:
		return []Expr{x.X, x.Index}
	case *Unary:
		return []Expr{x.X}
	case *Binary:
		return []Expr{x.X, x.Y}
	case *Cond:
		return []Expr{x.Cond, x.Then, x.Else}
	case *Paren:
		return []Expr{x.X}
	case *Call:
		return x.Args
	case *List:
		return x.Elems
	case *Record:
		out := make([]Expr, len(x.Attrs))
		for i, a := range x.Attrs {
			out[i] = a.Value
		}
		return out
	}
	return nil
}

// Inspect calls f for e and, while f returns true, for every sub-expression
// in depth-first order.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	for _, c := range Children(e) {
		Inspect(c, f)
	}
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
