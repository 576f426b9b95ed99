package submit

import (
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
)

// Late materialization (condor_submit man page, max_materialize and
// max_idle; users' manual, "Submitting Lots of Jobs"): a cluster whose ad
// sets JobMaterializeLimit or JobMaterializeMaxIdle is sent to the schedd
// as a job factory, which makes its procs as the limits allow. The tool
// sends the cluster ad and the procs' own attributes as runs: consecutive
// procs whose own attributes are the same (ProcId aside) are one run, so
// `queue 1000000` is one whatever its count. Whatever the submit file
// reads or runs (includes, `queue from` a file or a command) is read here,
// by the tool, never by the schedd.

// Late is a cluster for a job factory.
type Late struct {
	Ad   *classad.Ad // attributes common to all procs
	Runs []Run       // the procs in ProcId order
}

// Run is consecutive procs with the same own attributes, ProcId aside.
type Run struct {
	N  int
	Ad *classad.Ad
}

// Procs returns the number of procs.
func (l *Late) Procs() int {
	n := 0
	for _, r := range l.Runs {
		n += r.N
	}
	return n
}

// ExpandLate is Expand for a submit that may be late materialized: when
// the cluster sets max_materialize or max_idle (the same for every proc)
// it returns the cluster as a Late, without making each proc's ad, and
// the schedd's max_jobs_per_submission does not bound it (it bounds what
// the schedd materializes at once); otherwise it returns what Expand
// does.
func (d *Description) ExpandLate(env Env) (*Cluster, *Late, []Warning, error) {
	x := newExpander(d, &env)
	if err := x.statements(); err != nil {
		return nil, nil, nil, err
	}
	ad, hoisted := x.clusterAd()
	if !isLate(ad) || len(x.groups) == 0 {
		c := x.cluster()
		if err := x.sitaFit(c); err != nil {
			return nil, nil, nil, err
		}
		return c, nil, x.warnings, nil
	}
	if _, ok := ad.Lookup("JobMaterializeLimit"); !ok {
		ad.Set("JobMaterializeLimit", x.intLit(1<<31-1)) // max_idle alone, as condor_submit
	}
	return nil, x.late(ad, hoisted), x.warnings, nil
}

// isLate reports whether a cluster ad asks for late materialization.
func isLate(ad *classad.Ad) bool {
	_, limit := ad.Lookup("JobMaterializeLimit")
	_, idle := ad.Lookup("JobMaterializeMaxIdle")
	return limit || idle
}

// lateMaterialized reports whether the submit file so far sets
// max_materialize or max_idle.
func (x *expander) lateMaterialized() bool {
	for _, k := range []string{"max_materialize", "jobmaterializelimit", "max_idle", "materialize_max_idle", "jobmaterializemaxidle"} {
		if m := x.defs.lookup(k); m != nil && trimSpace(m.value) != "" {
			return true
		}
	}
	return false
}

// late lists the procs as runs.
func (x *expander) late(ad *classad.Ad, hoisted []attrVal) *Late {
	l := &Late{Ad: ad}
	var attrs, last []ast.Attr
	for _, g := range x.groups {
		delta := staticDelta(g, ad)
		for _, p := range g.procs {
			attrs = procRecord(attrs[:0], x.intLit(int64(p.id)), delta, g.attrs[p.start:p.end], hoisted)
			own := attrs[1:] // ProcId is the factory's
			if n := len(l.Runs); n > 0 && sameAttrs(own, last) {
				l.Runs[n-1].N++
				continue
			}
			last = append(last[:0], own...)
			l.Runs = append(l.Runs, Run{N: 1, Ad: eval.FromRecord(&ast.Record{Attrs: own})})
		}
	}
	return l
}

// sameAttrs reports whether two procs' own attributes are the same.
func sameAttrs(a, b []ast.Attr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !sameExpr(a[i].Value, b[i].Value) && !ast.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// AppendJSON appends the cluster as the schedd's factory endpoint takes
// it (wire.FactorySubmit): {"cluster": ad, "runs": [{"n": N, "ad": own}...]}.
func (l *Late) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"cluster":`...)
	buf = classad.AppendJSON(buf, l.Ad, false)
	buf = append(buf, `,"runs":[`...)
	for i, r := range l.Runs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"n":`...)
		buf = strconv.AppendInt(buf, int64(r.N), 10)
		buf = append(buf, `,"ad":`...)
		buf = classad.AppendJSON(buf, r.Ad, false)
		buf = append(buf, '}')
	}
	return append(buf, "]}"...)
}
