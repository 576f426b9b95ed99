package schedd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/userlog"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

func (s *Server) handleNewCluster(ctx context.Context, r *wire.Request) (any, error) {
	id, err := s.q.NewCluster(r.Caller.Name)
	if err != nil {
		return nil, wire.Unavailable("%v", err)
	}
	return wire.NewCluster{Cluster: id, Owner: r.Caller.Name}, nil
}

// handleSubmit queues a cluster: the body is a JSON array, the cluster ad
// then each proc's own ad. Everything is checked before anything changes.
func (s *Server) handleSubmit(ctx context.Context, r *wire.Request) (any, error) {
	cluster, err := strconv.ParseInt(r.HTTP.URL.Query().Get("cluster"), 10, 64)
	if err != nil || cluster < 1 {
		return nil, wire.BadRequest("submit: the query needs cluster=N, a cluster id from %s", wire.PathNewCluster)
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	raws, err := splitArray(body)
	if err != nil {
		return nil, wire.BadRequest("submit: %v", err)
	}
	ads, err := parseAll(raws)
	if err != nil {
		return nil, wire.BadRequest("submit: %v", err)
	}
	if len(ads) < 2 {
		return nil, wire.BadRequest("submit: the body needs the cluster ad and at least one job")
	}
	owner := r.Caller.Name
	ad, procs := ads[0], ads[1:]
	if err := s.checkCluster(cluster, owner, ad); err != nil {
		return nil, err
	}
	ad.Set(attr.TotalSubmitProcs, ast.Int(int64(len(procs))))
	for i, p := range procs {
		if err := checkProc(i, cluster, p); err != nil {
			return nil, err
		}
	}
	if err := s.submit(cluster, owner, ad, procs, raws[1:]); err != nil {
		return nil, err
	}
	s.met.submits.Inc()
	s.met.submitted.Add(float64(len(procs)))
	return wire.SubmitResult{Cluster: cluster, Procs: len(procs)}, nil
}

// submit commits a checked cluster and logs its submit events, which are
// formatted while the cluster is written.
func (s *Server) submit(cluster int64, owner string, ad *classad.Ad, procs []*classad.Ad, raws [][]byte) error {
	events := make(chan *eventBatch, 1)
	go func() { events <- s.submitEvents(cluster, ad, procs) }()
	err := s.q.Update(func(tx *queue.Tx) error {
		if reserved, ok := s.q.Reservation(cluster); ok && reserved != "" && reserved != owner {
			return wire.Forbidden("submit: cluster %d was handed out to %s", cluster, reserved)
		}
		if _, err := tx.Submit(cluster, owner, ad, procs, raws); err != nil {
			return wire.Conflict("submit: %v", err)
		}
		tx.AfterCommit(func() { (<-events).write() })
		return nil
	})
	if err == nil {
		s.kickAds()
	}
	return err
}

// submitEvents formats the submit events of a new cluster.
func (s *Server) submitEvents(cluster int64, ad *classad.Ad, procs []*classad.Ad) *eventBatch {
	ev := s.newEvents().sized(len(procs))
	host := "<" + s.Addr() + ">"
	for i, own := range procs {
		v := queue.View{ID: queue.JobID{Cluster: cluster, Proc: int64(i)}, Cluster: ad, Own: own}
		ev.add(&v, userlog.Event{Code: userlog.Submit, Host: host, Notes: stringAttr(&v, attr.SubmitEventNotes)})
	}
	return ev
}

// checkCluster checks the cluster ad and sets what the schedd decides:
// owner, submitter, queue date, ids.
func (s *Server) checkCluster(cluster int64, owner string, ad *classad.Ad) error {
	if e, ok := ad.Lookup(attr.ClusterID); ok && !isInt(e, cluster) {
		return wire.BadRequest("submit: the cluster ad's ClusterId is %s, not %d", ast.String(e), cluster)
	}
	if e, ok := ad.Lookup(attr.JobUniverse); ok && !isInt(e, attr.UniverseVanilla) {
		return wire.BadRequest("submit: JobUniverse %s: Kite runs the vanilla universe (5)", ast.String(e))
	}
	now := s.now().Unix()
	ad.Set(attr.ClusterID, ast.Int(cluster))
	ad.Set(attr.Owner, ast.Str(owner))
	ad.Set(attr.User, ast.Str(owner+"@"+s.domain))
	ad.Set(attr.MyType, ast.Str(attr.TypeJob))
	ad.Set(attr.TargetType, ast.Str(attr.TypeSlot))
	ad.Set(attr.QDate, ast.Int(now))
	ad.Set(attr.EnteredCurrentStatus, ast.Int(now))
	if _, ok := ad.Lookup(attr.JobStatus); !ok {
		ad.Set(attr.JobStatus, ast.Int(attr.Idle))
	}
	if _, ok := ad.Lookup(attr.JobUniverse); !ok {
		ad.Set(attr.JobUniverse, ast.Int(attr.UniverseVanilla))
	}
	return checkStatus(ad, "the cluster ad")
}

// checkProc checks proc i's own ad: it is ProcId i and leaves the
// schedd's attributes alone.
func checkProc(i int, cluster int64, p *classad.Ad) error {
	e, ok := p.Lookup(attr.ProcID)
	if !ok || !isInt(e, int64(i)) {
		return wire.BadRequest("submit: job %d: ProcId must be %d", i, i)
	}
	for _, name := range []string{attr.ClusterID, attr.Owner, attr.User, attr.QDate, attr.MyType, attr.JobUniverse, attrClaimID, attrStartdAddr, attrReplicaClaims} {
		if _, ok := p.Lookup(name); ok {
			if name == attr.ClusterID {
				if v, _ := p.Lookup(name); isInt(v, cluster) {
					continue
				}
			}
			return wire.BadRequest("submit: job %d.%d sets %s, which the schedd keeps", cluster, i, name)
		}
	}
	return checkStatus(p, fmt.Sprintf("job %d.%d", cluster, i))
}

// checkStatus allows a submit to queue jobs idle or held only.
func checkStatus(ad *classad.Ad, what string) error {
	e, ok := ad.Lookup(attr.JobStatus)
	if ok && !isInt(e, attr.Idle) && !isInt(e, attr.Held) {
		return wire.BadRequest("submit: %s: JobStatus %s: jobs are submitted idle (1) or held (5)", what, ast.String(e))
	}
	return nil
}

func isInt(e ast.Expr, n int64) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.IntLit && l.Int == n
}

// readBody reads a request body into a buffer of its announced length.
func readBody(r *wire.Request) ([]byte, error) {
	n := r.HTTP.ContentLength
	if n <= 0 || n > 1<<31 {
		return r.Body()
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r.HTTP.Body, buf); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, err
		}
		return nil, wire.BadRequest("request body: %v", err)
	}
	return buf, nil
}
