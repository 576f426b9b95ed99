package negotiator

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// refs collects the attribute names an evaluation can read from one side
// of a match. A walk starts at some attributes of an ad and follows
// references: those the ad itself defines are followed into their own
// expressions (MY side), the rest belong to the other ad (TARGET side).
type refs struct {
	ad     *classad.Ad
	self   map[string]string // lower-case name -> name, defined in ad and read
	other  map[string]string // read from the other ad
	escape bool              // eval() of a computed string: reads anything
}

func newRefs(ad *classad.Ad) *refs {
	return &refs{ad: ad, self: map[string]string{}, other: map[string]string{}}
}

// attr follows the attribute called name of r.ad.
func (r *refs) attr(name string) {
	k := ast.Lower(name)
	if _, seen := r.self[k]; seen {
		return
	}
	e, ok := r.ad.Lookup(name)
	if !ok {
		r.other[k] = name
		return
	}
	r.self[k] = name
	r.expr(e)
}

// expr follows the references of an expression evaluated in r.ad.
func (r *refs) expr(e ast.Expr) {
	ast.Inspect(e, func(x ast.Expr) bool {
		switch n := x.(type) {
		case *ast.AttrRef:
			r.attr(n.Name)
		case *ast.Select:
			if base, ok := n.X.(*ast.AttrRef); ok {
				switch ast.Lower(base.Name) {
				case "my", "self":
					r.attr(n.Name)
					return false
				case "target", "other":
					r.other[ast.Lower(n.Name)] = n.Name
					return false
				}
			}
		case *ast.Call:
			if ast.EqualFold(n.Name, "eval") {
				if len(n.Args) != 1 || !isStringLiteral(n.Args[0]) {
					r.escape = true
				}
			}
		}
		return true
	})
}

func isStringLiteral(e ast.Expr) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.StringLit
}

// expressionRefs returns what evaluating attrs of ad reads: its own
// attributes, and the other ad's.
func expressionRefs(ad *classad.Ad, attrs ...string) *refs {
	r := newRefs(ad)
	r.follow(attrs...)
	return r
}

// follow adds what evaluating attrs of r.ad reads.
func (r *refs) follow(attrs ...string) {
	for _, a := range attrs {
		if i := r.ad.Index(a); i >= 0 {
			r.self[ast.Lower(a)] = r.ad.Name(i)
			r.expr(r.ad.Expr(i))
		}
	}
}

// reset empties r for a walk of ad, keeping its storage.
func (r *refs) reset(ad *classad.Ad) {
	r.ad, r.escape = ad, false
	clear(r.self)
	clear(r.other)
}
