package match

import (
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
)

// Clause is one conjunct of a Requirements expression and its value
// against the other ad.
type Clause struct {
	// Attr is the attribute the clause was taken from: Requirements, or an
	// attribute it refers to and that was expanded (START, say).
	Attr string
	// Expr is the clause.
	Expr ast.Expr
	// Value is the clause evaluated with MY bound to the ad and TARGET to
	// the other one.
	Value eval.Value
}

// Holds reports whether the clause is satisfied (true, or a non-zero number).
func (c Clause) Holds() bool { return c.Value.IsTrue() }

// String returns the clause's canonical text.
func (c Clause) String() string { return ast.String(c.Expr) }

// maxExpand bounds how deep attribute references are expanded into their
// own clauses.
const maxExpand = 8

// Explain splits my's attribute attr (Requirements, usually) into its
// top-level && clauses and evaluates each against target. A clause that is
// just a reference to another attribute of my (START in a machine's
// Requirements) is replaced by that attribute's clauses.
func Explain(my, target *eval.Ad, attr string) []Clause {
	e, ok := my.Lookup(attr)
	if !ok {
		return nil
	}
	var out []Clause
	seen := map[string]bool{ast.Lower(attr): true}
	var walk func(name string, e ast.Expr, depth int)
	walk = func(name string, e ast.Expr, depth int) {
		for _, c := range Conjuncts(e) {
			if ref, ok := localRef(my, c); ok && depth < maxExpand && !seen[ast.Lower(ref)] {
				seen[ast.Lower(ref)] = true
				sub, _ := my.Lookup(ref)
				walk(ref, sub, depth+1)
				continue
			}
			v, _ := eval.Evaluate(eval.Compile(c), my, target)
			out = append(out, Clause{Attr: name, Expr: c, Value: v})
		}
	}
	walk(attr, e, 0)
	return out
}

// Conjuncts returns the operands of the top-level && chain of e, looking
// through parentheses; an expression that is not a conjunction is its own
// single conjunct.
func Conjuncts(e ast.Expr) []ast.Expr {
	switch x := e.(type) {
	case *ast.Paren:
		if inner := Conjuncts(x.X); len(inner) > 1 {
			return inner
		}
	case *ast.Binary:
		if x.Op == ast.OpAnd {
			return append(Conjuncts(x.X), Conjuncts(x.Y)...)
		}
	}
	return []ast.Expr{e}
}

// localRef reports whether e is a reference (`Name` or `MY.Name`) to an
// attribute defined in ad, and returns its name as the ad spells it.
func localRef(ad *eval.Ad, e ast.Expr) (string, bool) {
	for {
		p, ok := e.(*ast.Paren)
		if !ok {
			break
		}
		e = p.X
	}
	var name string
	switch x := e.(type) {
	case *ast.AttrRef:
		name = x.Name
	case *ast.Select:
		base, ok := x.X.(*ast.AttrRef)
		if !ok || !ast.EqualFold(base.Name, "my") {
			return "", false
		}
		name = x.Name
	default:
		return "", false
	}
	i := ad.Index(name)
	if i < 0 {
		return "", false
	}
	return ad.Name(i), true
}
