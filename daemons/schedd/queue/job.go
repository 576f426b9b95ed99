package queue

import (
	"iter"
	"sync/atomic"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// Cluster is the jobs of one submit: the attributes they share, stored
// once, and the jobs.
type Cluster struct {
	ID    int64
	Owner string
	// Submitter is who the jobs are accounted to: the cluster's
	// AccountingGroup (group.user) when it has one, else its Owner.
	Submitter string
	// ad holds the attributes every proc shares. It is replaced, never
	// changed in place, so readers may keep it.
	ad    *classad.Ad
	procs []*Job // by proc id; nil once the proc has left the queue
	live  int
	first int // procs[:first] have all left
	json  clusterJSON
	// counts are the cluster's jobs by status; open keeps an emptied
	// cluster in the queue for the job factory that adds to it (grow.go).
	counts Counts
	open   bool
	prio   int64 // JobPrio of ad, evaluated once
	// idleFrom is a proc id below which no job is idle (IdleJobs).
	idleFrom atomic.Int64
}

// Ad returns the attributes the cluster's jobs share.
func (c *Cluster) Ad() *classad.Ad { return c.ad }

// Prio returns the cluster's JobPrio (the submit file's priority; 0 when
// it is not a number), which orders a submitter's clusters.
func (c *Cluster) Prio() int64 { return c.prio }

// newCluster returns a cluster of an ad, its JobPrio evaluated once.
func newCluster(id int64, owner string, ad *classad.Ad) *Cluster {
	prio, _ := classad.EvalNumber(ad, attr.JobPrio)
	return &Cluster{ID: id, Owner: owner, Submitter: submitterOf(ad, owner), ad: ad, prio: int64(prio)}
}

// Job is one job in the queue: its cluster's ad with its own attributes
// over it.
type Job struct {
	ID      JobID
	Cluster *Cluster
	// own holds ProcId and the attributes that differ from the cluster's
	// or changed since the submit. It is replaced on every change (copy on
	// write), so a View taken earlier stays as it was.
	own    *classad.Ad
	status int64
}

// Status returns the job's JobStatus.
func (j *Job) Status() int64 { return j.status }

// Owner returns the job's owner.
func (j *Job) Owner() string { return j.Cluster.Owner }

// View is a job as it was when taken: safe to read without the queue's
// lock while the queue goes on changing.
type View struct {
	ID        JobID
	Cluster   *classad.Ad
	Own       *classad.Ad
	Owner     string
	Submitter string
	Status    int64
}

// View returns the job as it is now. Call it under the queue's lock (Read
// or Update).
func (j *Job) View() View {
	c := j.Cluster
	return View{ID: j.ID, Cluster: c.ad, Own: j.own, Owner: c.Owner, Submitter: c.Submitter, Status: j.status}
}

// Lookup returns the expression of the job's attribute called name.
func (v *View) Lookup(name string) (ast.Expr, bool) {
	if e, ok := v.Own.Lookup(name); ok {
		return e, !deleted(e)
	}
	return v.Cluster.Lookup(name)
}

// String returns the job's attribute called name when it is a string
// literal, else "". The job's literal attributes are what the schedd
// reads of it without evaluating (an attribute written as an expression
// is the user's, for the matchmaker and the startd to evaluate).
func (v *View) String(name string) string {
	if l, ok := v.literal(name); ok && l.Kind == ast.StringLit {
		return l.Str
	}
	return ""
}

// Int returns the job's attribute called name when it is a number
// literal (a real truncated), else def.
func (v *View) Int(name string, def int64) int64 {
	if l, ok := v.literal(name); ok {
		switch l.Kind {
		case ast.IntLit:
			return l.Int
		case ast.RealLit:
			return int64(l.Real)
		}
	}
	return def
}

// Real returns the job's attribute called name when it is a number
// literal, else 0.
func (v *View) Real(name string) float64 {
	if l, ok := v.literal(name); ok {
		switch l.Kind {
		case ast.IntLit:
			return float64(l.Int)
		case ast.RealLit:
			return l.Real
		}
	}
	return 0
}

func (v *View) literal(name string) (*ast.Literal, bool) {
	e, ok := v.Lookup(name)
	if !ok {
		return nil, false
	}
	l, isLit := e.(*ast.Literal)
	return l, isLit
}

// deleted reports whether a job's own value hides its cluster's: a job
// whose attribute was deleted holds it as the literal undefined, which
// reads as absent.
func deleted(e ast.Expr) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.UndefinedLit
}

// Ad returns the job's whole ad: a fresh ad that the caller may change.
func (v *View) Ad() *classad.Ad { return merge(v.Cluster, v.Own) }

// AdWithout returns the job's whole ad without the attributes called
// names (as Ad followed by deleting them, for less).
func (v *View) AdWithout(names ...string) *classad.Ad { return merge(v.Cluster, v.Own, names...) }

// All yields the job's attributes: the cluster's in their order (each
// replaced by the job's own when it has one), then the job's own others.
func (v *View) All() iter.Seq2[string, ast.Expr] {
	return func(yield func(string, ast.Expr) bool) {
		for i := range v.Cluster.Len() {
			name, e := v.Cluster.Name(i), v.Cluster.Expr(i)
			if o, ok := v.Own.Lookup(name); ok {
				if deleted(o) {
					continue
				}
				e = o
			}
			if !yield(name, e) {
				return
			}
		}
		for i := range v.Own.Len() {
			name := v.Own.Name(i)
			if e := v.Own.Expr(i); v.Cluster.Index(name) < 0 && !deleted(e) && !yield(name, e) {
				return
			}
		}
	}
}

// AppendJSON appends the job's ad in HTCondor's JSON form; with names,
// only those attributes (a projection). Attributes hide reports true for
// are left out (nil: none). rec is scratch space.
func (v *View) AppendJSON(buf []byte, names []string, rec *ast.Record, hide func(string) bool) []byte {
	rec.Attrs = rec.Attrs[:0]
	if len(names) > 0 {
		for _, n := range names {
			if hide != nil && hide(n) {
				continue
			}
			if e, ok := v.Own.Lookup(n); ok {
				if deleted(e) {
					continue
				}
				rec.Attrs = append(rec.Attrs, ast.Attr{At: ast.NoPos, Name: v.Own.Name(v.Own.Index(n)), Value: e})
			} else if i := v.Cluster.Index(n); i >= 0 {
				rec.Attrs = append(rec.Attrs, ast.Attr{At: ast.NoPos, Name: v.Cluster.Name(i), Value: v.Cluster.Expr(i)})
			}
		}
	} else {
		for name, e := range v.All() {
			if hide == nil || !hide(name) {
				rec.Attrs = append(rec.Attrs, ast.Attr{At: ast.NoPos, Name: name, Value: e})
			}
		}
	}
	return ast.AppendJSON(buf, rec, false)
}

// mergeSpare is room a job's whole ad is made with for its callers'
// additions (a job sent to a startd gets its type's statistics).
const mergeSpare = 8

// merge returns a new ad of cluster's attributes with own's over them,
// without those called without. It is made with room for all of own's
// and a few more, so that it is allocated once.
func merge(cluster, own *classad.Ad, without ...string) *classad.Ad {
	ad := cluster.CloneRoom(own.Len() + mergeSpare)
	for _, name := range without {
		ad.Delete(name)
	}
	for i := range own.Len() {
		name, e := own.Name(i), own.Expr(i)
		switch {
		case deleted(e):
			ad.Delete(name)
		case !named(without, name):
			ad.Set(name, e)
		}
	}
	return ad
}

// named reports whether name is one of names (as attribute names compare).
func named(names []string, name string) bool {
	for _, n := range names {
		if ast.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// statusOf reads JobStatus from a job's own ad or its cluster's.
func statusOf(cluster, own *classad.Ad) int64 {
	e, ok := own.Lookup(attr.JobStatus)
	if !ok || deleted(e) {
		e, ok = cluster.Lookup(attr.JobStatus)
	}
	if !ok {
		return attr.Idle
	}
	if l, isLit := e.(*ast.Literal); isLit && l.Kind == ast.IntLit {
		return l.Int
	}
	return attr.Idle
}

// submitterOf is who a cluster's jobs are accounted to.
func submitterOf(ad *classad.Ad, owner string) string {
	if e, ok := ad.Lookup(attr.AccountingGroup); ok {
		if l, isLit := e.(*ast.Literal); isLit && l.Kind == ast.StringLit && l.Str != "" {
			return l.Str
		}
	}
	return owner
}
