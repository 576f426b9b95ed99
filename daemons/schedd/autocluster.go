package schedd

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	clustering "github.com/kite-sched/kite/internal/autocluster"
	"github.com/kite-sched/kite/internal/wire"
)

// An autocluster is the idle jobs of a submitter that no slot can tell
// apart (internal/autocluster says which): the negotiator matches one job
// of each and takes as many slots as the autocluster has jobs.

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

// signatures groups queued jobs into autoclusters.
type signatures struct{ *clustering.Signer }

// newSignatures returns the grouping for the attributes the pool reads of
// jobs, as the negotiator sent them.
func newSignatures(significant []string) signatures {
	return signatures{clustering.NewSigner(significant)}
}

// of returns a queued job's signature.
func (g signatures) of(v *queue.View) string { return g.Of(v.Cluster, v.Own, v) }

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
	if err := s.flock.allows(r.Caller); err != nil {
		return nil, err
	}
	var q wire.RequestsQuery
	if err := r.Decode(&q); err != nil {
		return nil, err
	}
	key, ok := s.submitterKey(q.Submitter)
	if !ok {
		return nil, wire.NotFound("no submitter %q at this schedd", q.Submitter)
	}
	acs := s.autoclusters(key, q.Significant)
	s.remember(negotiationKey(q.Submitter, r.Caller.Pool), acs)
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
	for _, rr := range s.replication.requests(q.Submitter, key, q.Significant) {
		if q.Limit > 0 && len(out.Requests) >= q.Limit {
			break
		}
		out.Requests = append(out.Requests, rr)
	}
	s.typedRequests(requestAds(out.Requests))
	s.markFlocked(out.Requests, r.Caller.Pool)
	return out, nil
}

// autoclusters groups a submitter's matchable idle jobs, best first.
func (s *Server) autoclusters(submitter string, significant []string) []*autocluster {
	g := newSignatures(significant)
	var idle []*idleJob
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			if c.Submitter != submitter || clusterOnSchedd(c) {
				continue // another's, or jobs the schedd runs itself (local.go)
			}
			for j := range c.Jobs {
				if j.Status() == attr.Idle && s.claims.Matchable(j.ID) {
					v := j.View()
					idle = append(idle, &idleJob{view: v, prio: v.Int(attr.JobPrio, 0), qdate: v.Int(attr.QDate, 0)})
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
			ac = &autocluster{id: s.claims.AutoclusterID(sig), sig: sig}
			bySig[sig] = ac
			out = append(out, ac)
		}
		ac.jobs = append(ac.jobs, j)
	}
	return out
}

// privateAttrs are the schedd's own attributes of a job, which the ads it
// sends leave out.
var privateAttrs = []string{attrClaimID, attrStartdAddr, attrReplicaClaims}

// stripPrivate removes the schedd's own attributes from an ad it sends.
func stripPrivate(ad *classad.Ad) {
	for _, name := range privateAttrs {
		ad.Delete(name)
	}
}
