package autocluster

import (
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// Job is a job's ad as a Signer reads it: a *classad.Ad, or a schedd's
// view of a proc (its own attributes over its cluster's ad).
type Job interface {
	Lookup(name string) (ast.Expr, bool)
	All() iter.Seq2[string, ast.Expr]
}

// Signer computes the autocluster signatures of jobs for one list of
// significant attributes. It caches clusters' signatures: use one per
// grouping, while the cluster ads do not change.
type Signer struct {
	significant []string
	byCluster   map[*classad.Ad]*clusterSig
	lower       map[string]string // own attribute names, lower-cased once
}

// clusterSig is a cluster's signature, for procs that do not change it.
type clusterSig struct {
	sig   string
	names map[string]bool // significant attribute names, lower case
}

// NewSigner returns a Signer for the attributes the pool reads of jobs.
func NewSigner(significant []string) *Signer {
	return &Signer{significant: significant, byCluster: map[*classad.Ad]*clusterSig{}, lower: map[string]string{}}
}

// Of returns the signature of a proc: cluster is the ad its cluster's
// procs share, own the attributes the proc sets itself, and job the two
// together (own over cluster).
func (g *Signer) Of(cluster, own *classad.Ad, job Job) string {
	cs := g.cluster(cluster)
	for i := range own.Len() {
		if g.apart(cs, own.Name(i)) {
			return g.Signature(job)
		}
	}
	return cs.sig
}

// ClusterSignature is the signature of a cluster's procs that set no
// significant attribute themselves.
func (g *Signer) ClusterSignature(cluster *classad.Ad) string {
	return g.cluster(cluster).sig
}

// SetsApart reports whether a proc of cluster that sets the attribute
// called name itself needs a signature of its own: the attribute is
// significant for the cluster's procs, and not ProcId, which every proc
// sets.
func (g *Signer) SetsApart(cluster *classad.Ad, name string) bool {
	return g.apart(g.cluster(cluster), name)
}

func (g *Signer) apart(cs *clusterSig, name string) bool {
	k, ok := g.lower[name]
	if !ok {
		k = ast.Lower(name)
		g.lower[name] = k
	}
	return k != "procid" && cs.names[k]
}

// cluster returns the cluster's signature, computed once.
func (g *Signer) cluster(ad *classad.Ad) *clusterSig {
	cs := g.byCluster[ad]
	if cs == nil {
		names := g.Names(ad)
		cs = &clusterSig{names: names, sig: signature(names, ad)}
		g.byCluster[ad] = cs
	}
	return cs
}

// Signature returns the signature of a whole job ad.
func (g *Signer) Signature(job Job) string {
	return signature(g.Names(job), job)
}

// Names returns the significant attributes of a job, lower case: the
// pool's, Requirements and Rank, and what those read of the job itself.
// An expression that reads attributes by computed name (eval of a string
// made at run time) could read any of them: then all are significant but
// ProcId, which tells every job apart.
func (g *Signer) Names(job Job) map[string]bool {
	r := ast.NewRefs()
	r.Follow(job, attr.Requirements, attr.Rank)
	names := map[string]bool{"requirements": true, "rank": true}
	if r.Escape {
		for n := range job.All() {
			if k := ast.Lower(n); k != "procid" {
				names[k] = true
			}
		}
	}
	for n := range r.Self {
		names[n] = true
	}
	for _, n := range g.significant {
		names[ast.Lower(n)] = true
	}
	return names
}

// signature prints the names and their expressions in job, in order.
func signature(names map[string]bool, job Job) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(names)) {
		b.WriteString(k)
		b.WriteByte('=')
		if e, ok := job.Lookup(k); ok {
			b.WriteString(ast.String(e))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// Proc is a job of a cluster whose own attributes are set over its
// cluster's ad: a Job for Of when the caller has no view of its own.
type Proc struct {
	Cluster, Own *classad.Ad
}

// Lookup implements Job: the proc's own attribute, else its cluster's.
func (p Proc) Lookup(name string) (ast.Expr, bool) {
	if e, ok := p.Own.Lookup(name); ok {
		return e, true
	}
	return p.Cluster.Lookup(name)
}

// All implements Job: the cluster's attributes in their order (each
// replaced by the proc's own when it has one), then the proc's others.
func (p Proc) All() iter.Seq2[string, ast.Expr] {
	return func(yield func(string, ast.Expr) bool) {
		for n, e := range p.Cluster.All() {
			if o, ok := p.Own.Lookup(n); ok {
				e = o
			}
			if !yield(n, e) {
				return
			}
		}
		for n, e := range p.Own.All() {
			if p.Cluster.Index(n) < 0 && !yield(n, e) {
				return
			}
		}
	}
}
