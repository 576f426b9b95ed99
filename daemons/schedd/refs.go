package schedd

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// refs returns the attributes that evaluating the named attributes of ad
// reads: its own (followed into their expressions) and the other ad's,
// all lower case. escape reports an eval() of a computed string, which
// could read anything.
func refs(ad *classad.Ad, attrs ...string) (self, other map[string]bool, escape bool) {
	self, other = map[string]bool{}, map[string]bool{}
	var follow func(name string)
	var walk func(e ast.Expr)
	follow = func(name string) {
		k := ast.Lower(name)
		if self[k] {
			return
		}
		e, ok := ad.Lookup(name)
		if !ok {
			other[k] = true
			return
		}
		self[k] = true
		walk(e)
	}
	walk = func(e ast.Expr) {
		ast.Inspect(e, func(x ast.Expr) bool {
			switch n := x.(type) {
			case *ast.AttrRef:
				follow(n.Name)
			case *ast.Select:
				if base, ok := n.X.(*ast.AttrRef); ok {
					switch ast.Lower(base.Name) {
					case "my", "self":
						follow(n.Name)
						return false
					case "target", "other":
						other[ast.Lower(n.Name)] = true
						return false
					}
				}
			case *ast.Call:
				if ast.EqualFold(n.Name, "eval") {
					if l, ok := firstArg(n).(*ast.Literal); !ok || l.Kind != ast.StringLit {
						escape = true
					}
				}
			}
			return true
		})
	}
	for _, a := range attrs {
		if e, ok := ad.Lookup(a); ok {
			self[ast.Lower(a)] = true
			walk(e)
		}
	}
	return self, other, escape
}

func firstArg(c *ast.Call) ast.Expr {
	if len(c.Args) != 1 {
		return nil
	}
	return c.Args[0]
}
