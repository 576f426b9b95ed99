package schedd

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/adarray"
	"github.com/kite-sched/kite/daemons/schedd/attrclass"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

func (s *Server) handleNewCluster(ctx context.Context, r *wire.Request) (any, error) {
	if _, err := s.submitter(r.Caller); err != nil {
		return nil, err
	}
	id, err := s.q.NewCluster(r.Caller.Name)
	if err != nil {
		return nil, wire.Unavailable("%v", err)
	}
	return wire.NewCluster{Cluster: id, Owner: r.Caller.Name, MaxJobs: s.cfg.MaxJobsPerSubmission}, nil
}

// handleSubmit queues a cluster: the body is a JSON array, the cluster ad
// then each proc's own ad. Everything is checked before anything changes.
func (s *Server) handleSubmit(ctx context.Context, r *wire.Request) (any, error) {
	cluster, err := strconv.ParseInt(r.HTTP.URL.Query().Get("cluster"), 10, 64)
	if err != nil || cluster < 1 {
		return nil, wire.BadRequest("submit: the query needs cluster=N, a cluster id from %s", wire.PathNewCluster)
	}
	raws, err := s.readSubmit(r)
	if err != nil {
		return nil, err
	}
	ads, err := adarray.ParseAll(raws)
	if err != nil {
		return nil, wire.BadRequest("submit: %v", err)
	}
	if len(ads) < 2 {
		return nil, wire.BadRequest("submit: the body needs the cluster ad and at least one job")
	}
	owner := r.Caller.Name
	acct, err := s.submitter(r.Caller)
	if err != nil {
		return nil, err
	}
	ad, procs := ads[0], ads[1:]
	if err := s.checkCluster(cluster, owner, acct.Name, ad); err != nil {
		return nil, err
	}
	ad.Set(attr.TotalSubmitProcs, ast.Int(int64(len(procs))))
	for i, p := range procs {
		if err := checkProc(i, cluster, p); err != nil {
			return nil, err
		}
	}
	if err := s.checkLogs(acct, ad, procs); err != nil {
		return nil, err
	}
	if err := s.submit(cluster, owner, ad, procs, raws[1:], nil); err != nil {
		return nil, err
	}
	s.met.submits.Inc()
	s.met.submitted.Add(float64(len(procs)))
	return wire.SubmitResult{Cluster: cluster, Procs: len(procs)}, nil
}

// submit commits a checked cluster and logs its submit events, which are
// formatted while the cluster is written; then, when set, runs in the
// same transaction with the new cluster (a job factory's start).
func (s *Server) submit(cluster int64, owner string, ad *classad.Ad, procs []*classad.Ad, raws [][]byte, then func(*queue.Tx, *queue.Cluster)) error {
	events := make(chan *eventBatch, 1)
	go func() { events <- s.submitEvents(cluster, ad, procs) }()
	err := s.q.Update(func(tx *queue.Tx) error {
		if reserved, ok := s.q.Reservation(cluster); ok && reserved != "" && reserved != owner {
			return wire.Forbidden("submit: cluster %d was handed out to %s", cluster, reserved)
		}
		if err := s.checkOwnerJobs(tx, owner, len(procs)); err != nil {
			return err
		}
		c, err := tx.Submit(cluster, owner, ad, procs, raws)
		if err != nil {
			return wire.Conflict("submit: %v", err)
		}
		if then != nil {
			then(tx, c)
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
	return s.procEvents(cluster, 0, ad, procs)
}

// procEvents formats the submit events of procs first, first+1, ... of a
// cluster.
func (s *Server) procEvents(cluster, first int64, ad *classad.Ad, procs []*classad.Ad) *eventBatch {
	ev := s.newEvents().sized(len(procs))
	host := "<" + s.Addr() + ">"
	for i, own := range procs {
		v := queue.View{ID: queue.JobID{Cluster: cluster, Proc: first + int64(i)}, Cluster: ad, Own: own}
		ev.add(&v, userlog.Event{Code: userlog.Submit, Host: host, Notes: v.String(attr.SubmitEventNotes)})
	}
	return ev
}

// checkLogs opens each job event log of a new cluster as its owner, as
// condor_submit does, so that a log the owner may not write is refused
// with the submit rather than lost later. A log opened so is created.
func (s *Server) checkLogs(acct *runas.Account, ad *classad.Ad, procs []*classad.Ad) error {
	seen := map[string]bool{}
	for _, p := range procs {
		v := queue.View{Cluster: ad, Own: p}
		path := v.String(attr.UserLog)
		if path == "" || seen[path] {
			continue
		}
		seen[path] = true
		if !filepath.IsAbs(path) {
			return wire.BadRequest("submit: the job event log %q is not an absolute path", path)
		}
		err := s.ids.Do(acct.Name, func() error { return userlog.Touch(path) })
		if err != nil {
			return wire.Forbidden("submit: the job event log %s cannot be written as %s: %v", path, acct.Name, err)
		}
	}
	return nil
}

// submitter returns the account a caller's jobs run as, or why the
// caller may not submit here.
func (s *Server) submitter(caller auth.Identity) (*runas.Account, error) {
	a, err := s.ids.Submitter(caller.Name, caller.Allows(auth.Administrator))
	if err != nil {
		return nil, wire.Forbidden("submit: %v", err)
	}
	return a, nil
}

// checkCluster checks the cluster ad and sets what the schedd decides:
// owner, submitter, the account (OsUser) and its domain, queue date, ids.
func (s *Server) checkCluster(cluster int64, owner, account string, ad *classad.Ad) error {
	if err := checkClasses(ad, "the cluster ad"); err != nil {
		return err
	}
	if e, ok := ad.Lookup(attr.ClusterID); ok && !isInt(e, cluster) {
		return wire.BadRequest("submit: the cluster ad's ClusterId is %s, not %d", ast.String(e), cluster)
	}
	if e, ok := ad.Lookup(attr.JobUniverse); ok && !knownUniverse(e) {
		return wire.BadRequest("submit: JobUniverse %s: Kite runs the vanilla (5), java (10), scheduler (7) and local (12) universes", ast.String(e))
	}
	if e, ok := ad.Lookup(attr.JobUniverse); ok && (isInt(e, attr.UniverseScheduler) || isInt(e, attr.UniverseLocal)) {
		s.local.submitted()
	}
	now := s.now().Unix()
	ad.Set(attr.ClusterID, ast.Int(cluster))
	ad.Set(attr.Owner, ast.Str(owner))
	ad.Set(attr.User, ast.Str(owner+"@"+s.domain))
	ad.Set(attr.OsUser, ast.Str(account))
	ad.Set(attr.UIDDomain, ast.Str(s.domain))
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

// checkProc checks proc i's own ad: it is ProcId i, names no other
// cluster, and leaves the schedd's attributes alone (immutable ones are
// the cluster ad's, where the schedd sets them).
func checkProc(i int, cluster int64, p *classad.Ad) error {
	e, ok := p.Lookup(attr.ProcID)
	if !ok || !isInt(e, int64(i)) {
		return wire.BadRequest("submit: job %d: ProcId must be %d", i, i)
	}
	if _, ok := p.Lookup(attr.JobUniverse); ok {
		// As HTCondor's, a job's universe is its cluster's.
		return wire.BadRequest("submit: job %d.%d sets JobUniverse: the universe is the cluster's; submit jobs of another universe as a cluster of their own", cluster, i)
	}
	return checkOwn(fmt.Sprintf("job %d.%d", cluster, i), cluster, p)
}

// knownUniverse reports whether e names a universe Kite runs.
func knownUniverse(e ast.Expr) bool {
	for _, u := range []int64{attr.UniverseVanilla, attr.UniverseJava, attr.UniverseScheduler, attr.UniverseLocal} {
		if isInt(e, u) {
			return true
		}
	}
	return false
}

// checkOwn checks a job's own attributes (what names the job): they
// leave the schedd's attributes alone.
func checkOwn(what string, cluster int64, p *classad.Ad) error {
	for name, e := range p.All() {
		if attrclass.Of(name) != attrclass.Immutable || ast.EqualFold(name, attr.ProcID) {
			continue
		}
		if ast.EqualFold(name, attr.ClusterID) && isInt(e, cluster) {
			continue
		}
		return wire.BadRequest("submit: %s sets %s, which is immutable: the schedd sets it in the cluster ad", what, name)
	}
	if err := checkClasses(p, what); err != nil {
		return err
	}
	return checkStatus(p, what)
}

// checkClasses refuses a submitted ad that sets a secure attribute, or a
// protected one other than those of a job submitted on hold.
func checkClasses(ad *classad.Ad, what string) error {
	for name := range ad.All() {
		if why := attrclass.MaySubmit(name); why != "" {
			return wire.BadRequest("submit: %s sets %s, which %s", what, name, why)
		}
	}
	return nil
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
