package schedd

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// An autocluster is the idle jobs of a submitter that no slot can tell
// apart: equal values of the significant attributes (those the pool's
// slot expressions read, as the negotiator says, and those the jobs' own
// Requirements and Rank read). The negotiator matches one job of each and
// takes as many slots as the autocluster has jobs.
//
// A cluster's procs share their cluster's signature unless a proc's own
// ad sets a significant attribute, so grouping 100 000 procs of one submit
// costs one signature and a look at each proc's few own attributes.

// autocluster is one request of an answer.
type autocluster struct {
	id   int
	sig  string
	jobs []*idleJob
}

// idleJob is an idle job as requests order them.
type idleJob struct {
	view  queue.View
	prio  int64
	qdate int64
}

func (a *idleJob) before(b *idleJob) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.qdate != b.qdate {
		return a.qdate < b.qdate
	}
	return a.view.ID.Less(b.view.ID)
}

// clusterSig caches a cluster's signature for procs that do not change it.
type clusterSig struct {
	sig   string
	names map[string]bool // significant attribute names, lower case
}

// signatures groups the idle jobs into autoclusters.
type signatures struct {
	significant []string
	byCluster   map[*classad.Ad]*clusterSig
}

// of returns a job's signature.
func (g *signatures) of(v *queue.View) string {
	cs := g.byCluster[v.Cluster]
	if cs == nil {
		cs = g.clusterSig(v)
		g.byCluster[v.Cluster] = cs
	}
	for i := range v.Own.Len() {
		if n := ast.Lower(v.Own.Name(i)); cs.names[n] && n != "procid" {
			return g.jobSig(v) // the proc sets a significant attribute
		}
	}
	return cs.sig
}

// clusterSig computes the signature the cluster's ad gives its procs.
func (g *signatures) clusterSig(v *queue.View) *clusterSig {
	names := g.names(v.Cluster)
	cs := &clusterSig{names: names}
	ad := v.Cluster
	cs.sig = signatureOf(names, func(n string) (ast.Expr, bool) { return ad.Lookup(n) })
	return cs
}

// jobSig computes a job's signature from its whole ad.
func (g *signatures) jobSig(v *queue.View) string {
	ad := v.Ad()
	return signatureOf(g.names(ad), func(n string) (ast.Expr, bool) { return ad.Lookup(n) })
}

// names returns the significant attributes for an ad: the negotiator's,
// Requirements and Rank, and what those read of the job itself. An
// expression that reads attributes by computed name (eval of a string
// made at run time) could read any of them: then all are significant.
func (g *signatures) names(ad *classad.Ad) map[string]bool {
	self, _, escape := refs(ad, attr.Requirements, attr.Rank)
	names := map[string]bool{"requirements": true, "rank": true}
	if escape {
		for i := range ad.Len() {
			if n := ast.Lower(ad.Name(i)); n != "procid" {
				names[n] = true
			}
		}
	}
	for n := range self {
		names[n] = true
	}
	for _, n := range g.significant {
		names[ast.Lower(n)] = true
	}
	return names
}

// signatureOf prints the values of the names, in order.
func signatureOf(names map[string]bool, lookup func(string) (ast.Expr, bool)) string {
	keys := make([]string, 0, len(names))
	for n := range names {
		keys = append(keys, n)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		if e, ok := lookup(k); ok {
			b.WriteString(ast.String(e))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// submitterKey reads a submitter name (owner@domain, or
// group.user@domain) back to the queue's submitter.
func (s *Server) submitterKey(submitter string) (string, bool) {
	i := strings.LastIndexByte(submitter, '@')
	if i <= 0 {
		return submitter, submitter != ""
	}
	return submitter[:i], strings.EqualFold(submitter[i+1:], s.domain)
}

func (s *Server) handleRequests(ctx context.Context, r *wire.Request) (any, error) {
	var q wire.RequestsQuery
	if err := r.Decode(&q); err != nil {
		return nil, err
	}
	key, ok := s.submitterKey(q.Submitter)
	if !ok {
		return nil, wire.NotFound("no submitter %q at this schedd", q.Submitter)
	}
	acs := s.autoclusters(key, q.Significant)
	s.jobs.remember(q.Submitter, acs)
	out := wire.ResourceRequests{Requests: []wire.ResourceRequest{}}
	for _, ac := range acs {
		if q.Limit > 0 && len(out.Requests) >= q.Limit {
			break
		}
		ad := ac.jobs[0].view.Ad()
		stripPrivate(ad)
		ad.Set(attr.AutoClusterID, ast.Int(int64(ac.id)))
		out.Requests = append(out.Requests, wire.ResourceRequest{ID: strconv.Itoa(ac.id), Count: len(ac.jobs), Ad: ad})
	}
	for _, rr := range s.replicaRequests(q.Submitter, key, q.Significant) {
		if q.Limit > 0 && len(out.Requests) >= q.Limit {
			break
		}
		out.Requests = append(out.Requests, rr)
	}
	s.typedRequests(requestAds(out.Requests))
	return out, nil
}

// autoclusters groups a submitter's matchable idle jobs, best first.
func (s *Server) autoclusters(submitter string, significant []string) []*autocluster {
	g := &signatures{significant: significant, byCluster: map[*classad.Ad]*clusterSig{}}
	var idle []*idleJob
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			if c.Submitter != submitter {
				continue
			}
			for j := range c.Jobs {
				if j.Status() == attr.Idle && s.jobs.matchable(j.ID) {
					v := j.View()
					idle = append(idle, &idleJob{view: v, prio: intAttr(&v, attr.JobPrio, 0), qdate: intAttr(&v, attr.QDate, 0)})
				}
			}
		}
	})
	slices.SortStableFunc(idle, func(a, b *idleJob) int {
		if a.before(b) {
			return -1
		}
		if b.before(a) {
			return 1
		}
		return 0
	})
	bySig := map[string]*autocluster{}
	var out []*autocluster
	for _, j := range idle {
		sig := g.of(&j.view)
		ac := bySig[sig]
		if ac == nil {
			ac = &autocluster{id: s.jobs.autoclusterID(sig), sig: sig}
			bySig[sig] = ac
			out = append(out, ac)
		}
		ac.jobs = append(ac.jobs, j)
	}
	return out
}

// stripPrivate removes the schedd's own attributes from an ad it sends.
func stripPrivate(ad *classad.Ad) {
	ad.Delete(attrClaimID)
	ad.Delete(attrStartdAddr)
	ad.Delete(attrReplicaClaims)
}
