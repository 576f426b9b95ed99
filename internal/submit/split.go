package submit

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
)

// cluster splits the attributes of all queue statements into those common
// to every proc, which go into the cluster ad, and those that differ, which
// go into each proc's ad. An attribute is common when every statement's
// static ad has it with the same value, or when every proc set it to the
// same value (a per-proc step may set some attributes that do not in fact
// vary, such as StreamOut next to a per-proc Out).
func (x *expander) cluster() *Cluster {
	c := &Cluster{}
	var hoisted []attrVal
	c.Ad, hoisted = x.clusterAd()
	var rec ast.Record
	for _, g := range x.groups {
		delta := staticDelta(g, c.Ad)
		for _, p := range g.procs {
			rec.Attrs = procRecord(rec.Attrs[:0], x.intLit(int64(p.id)), delta, g.attrs[p.start:p.end], hoisted)
			c.Procs = append(c.Procs, eval.FromRecord(&rec))
		}
	}
	return c
}

// clusterAd returns the cluster ad, and the per-proc attributes hoisted
// into it.
func (x *expander) clusterAd() (*classad.Ad, []attrVal) {
	ad := classad.NewAd()
	x.env.setSubmitter(ad)
	if len(x.groups) == 0 {
		ad.Set("ClusterId", x.intLit(int64(x.env.Cluster)))
		if x.env.Owner != "" {
			ad.Set("Owner", ast.Str(x.env.Owner))
		}
		return ad, nil
	}
	for name, e := range x.groups[0].static.All() {
		if x.commonStatic(name, e) {
			ad.Set(name, e)
		}
	}
	hoisted := x.commonDynamic()
	for _, a := range hoisted {
		ad.Set(a.name, a.expr)
	}
	return ad, hoisted
}

// commonStatic reports whether every statement's static ad has the
// attribute with the same value.
func (x *expander) commonStatic(name string, e ast.Expr) bool {
	for _, g := range x.groups[1:] {
		f, ok := g.static.Lookup(name)
		if !ok || (f != e && !ast.Equal(f, e)) {
			return false
		}
	}
	return true
}

// commonDynamic returns the per-proc attributes that every proc has with
// the same value.
func (x *expander) commonDynamic() []attrVal {
	g0 := x.groups[0]
	p0 := g0.procs[0]
	same := append([]attrVal(nil), g0.attrs[p0.start:p0.end]...)
	for _, g := range x.groups {
		for _, p := range g.procs {
			if len(same) == 0 {
				return nil
			}
			own := attrList(g.attrs[p.start:p.end])
			kept := same[:0]
			for _, a := range same {
				if e, ok := own.lookup(a.name); ok && sameExpr(e, a.expr) {
					kept = append(kept, a)
				}
			}
			same = kept
		}
	}
	return same
}

// staticDelta returns a statement's static attributes that the cluster ad
// does not have.
func staticDelta(g *group, cluster *classad.Ad) []attrVal {
	var delta []attrVal
	for name, e := range g.static.All() {
		if _, ok := cluster.Lookup(name); !ok {
			delta = append(delta, attrVal{name, e})
		}
	}
	return delta
}

// procRecord lists a proc's ad: ProcId, the statement's attributes the
// cluster lacks (unless the proc sets its own), and the proc's own
// attributes but those hoisted into the cluster.
func procRecord(out []ast.Attr, id ast.Expr, delta, own, hoisted []attrVal) []ast.Attr {
	out = append(out, ast.Attr{At: ast.NoPos, Name: "ProcId", Value: id})
	for _, a := range delta {
		if _, ok := attrList(own).lookup(a.name); !ok {
			out = append(out, ast.Attr{At: ast.NoPos, Name: a.name, Value: a.expr})
		}
	}
	for _, a := range own {
		if _, ok := attrList(hoisted).lookup(a.name); !ok {
			out = append(out, ast.Attr{At: ast.NoPos, Name: a.name, Value: a.expr})
		}
	}
	return out
}

// sameExpr is a cheap equality: the same node, or equal literals.
func sameExpr(a, b ast.Expr) bool {
	if a == b {
		return true
	}
	la, ok := a.(*ast.Literal)
	lb, ok2 := b.(*ast.Literal)
	return ok && ok2 && *la == *lb
}
