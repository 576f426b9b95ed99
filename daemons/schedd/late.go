package schedd

import (
	"context"
	"slices"
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/factory"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// Late materialization: a cluster submitted with max_idle or
// max_materialize is a job factory (package factory), whose procs the
// queue's transactions add as the cluster's jobs move on.

// openFactories loads the factories the queue keeps and hooks them to
// its transactions. A factory materializes at most a submit's worth of
// procs a transaction, and none past the owner's max_jobs_per_owner
// (HTCondor: MAX_JOBS_PER_SUBMISSION and MAX_JOBS_PER_OWNER cap
// materialization rather than refusing the submit).
func (s *Server) openFactories() error {
	f, err := factory.Load(s.q, int64(s.cfg.MaxJobsPerSubmission))
	if err != nil {
		return err
	}
	f.Grown = s.grown
	f.Removed = s.clusterRemoved
	f.PerOwner = int64(s.cfg.MaxJobsPerOwner)
	s.factories = f
	s.q.SetHook(f.Hook)
	return nil
}

// grown logs the submit events of the procs a factory materialized, once
// they are durable.
func (s *Server) grown(tx *queue.Tx, c *queue.Cluster, first int64, procs []*classad.Ad) {
	ev := s.procEvents(c.ID, first, c.Ad(), procs)
	tx.AfterCommit(ev.write)
}

// handleSubmitFactory queues a cluster for late materialization: the
// cluster ad and its procs as runs (wire.FactorySubmit). Everything is
// checked before anything changes; the first procs commit with the
// factory.
func (s *Server) handleSubmitFactory(ctx context.Context, r *wire.Request) (any, error) {
	cluster, err := strconv.ParseInt(r.HTTP.URL.Query().Get("cluster"), 10, 64)
	if err != nil || cluster < 1 {
		return nil, wire.BadRequest("submit: the query needs cluster=N, a cluster id from %s", wire.PathNewCluster)
	}
	var body wire.FactorySubmit
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	ad, err := classad.ParseJSON(body.Cluster)
	if err != nil {
		return nil, wire.BadRequest("submit: the cluster ad: %v", err)
	}
	limits, ok, err := factory.LimitsOf(ad)
	if err != nil || !ok {
		return nil, wire.BadRequest("submit: the cluster ad sets neither %s nor %s as a positive integer (max_materialize, max_idle) %v",
			attr.JobMaterializeLimit, attr.JobMaterializeMaxIdle, err)
	}
	runs, err := factoryRuns(cluster, body.Runs)
	if err != nil {
		return nil, err
	}
	owner := r.Caller.Name
	acct, err := s.submitter(r.Caller)
	if err != nil {
		return nil, err
	}
	if err := s.checkCluster(cluster, owner, acct.Name, ad); err != nil {
		return nil, err
	}
	f, err := factory.New(cluster, limits, runs)
	if err != nil {
		return nil, wire.BadRequest("submit: %v", err)
	}
	ad.Set(attr.TotalSubmitProcs, ast.Int(f.Total))
	procs, err := s.factories.Start(f)
	if err != nil {
		return nil, wire.BadRequest("submit: %v", err)
	}
	owns := make([]*classad.Ad, len(runs))
	for i, run := range runs {
		owns[i] = run.Ad
	}
	if err := s.checkLogs(acct, ad, owns); err != nil {
		return nil, err
	}
	start := func(tx *queue.Tx, c *queue.Cluster) {
		s.clusterEvent(tx, c, userlog.Event{Code: userlog.ClusterSubmit, Host: "<" + s.Addr() + ">", Notes: classad.EvalStringOr(c.Ad(), attr.SubmitEventNotes, "")})
		s.factories.Add(tx, c, f, len(procs))
	}
	if err := s.submit(cluster, owner, ad, procs, nil, start); err != nil {
		return nil, err
	}
	s.met.submits.Inc()
	s.met.submitted.Add(float64(len(procs)))
	return wire.SubmitResult{Cluster: cluster, Procs: int(f.Total)}, nil
}

// factoryRuns parses and checks a factory's runs.
func factoryRuns(cluster int64, in []wire.FactoryRun) ([]factory.Run, error) {
	if len(in) == 0 {
		return nil, wire.BadRequest("submit: a factory needs at least one run of procs")
	}
	runs := make([]factory.Run, len(in))
	for i, r := range in {
		what := "run " + strconv.Itoa(i) + " of cluster " + strconv.FormatInt(cluster, 10)
		if r.N < 1 || r.N > 1<<31 {
			return nil, wire.BadRequest("submit: %s: %d procs", what, r.N)
		}
		ad, err := classad.ParseJSON(r.Ad)
		if err != nil {
			return nil, wire.BadRequest("submit: %s: %v", what, err)
		}
		if _, ok := ad.Lookup(attr.ProcID); ok {
			return nil, wire.BadRequest("submit: %s sets ProcId, which the factory sets", what)
		}
		if err := checkOwn(what, cluster, ad); err != nil {
			return nil, err
		}
		runs[i] = factory.Run{N: r.N, Ad: ad}
	}
	return runs, nil
}

// actFactories applies a rm, hold or release of whole clusters to their
// factories (HTCondor: condor_rm of a cluster removes its factory, a hold
// pauses it, a release resumes it). The clusters are those the selection
// names whole, or the owners' it names; a constraint picks jobs only.
// It returns how many factories changed.
func (s *Server) actFactories(sel *selection, all bool, caller auth.Identity, action, reason string) (int, error) {
	if s.factories == nil || sel.constraint != nil {
		return 0, nil
	}
	n := 0
	err := s.q.Update(func(tx *queue.Tx) error {
		n = 0
		for _, id := range s.factories.Clusters() {
			c := tx.Cluster(id)
			if c == nil || !sel.namesCluster(c, all) || !mayChange(caller, c.Owner) {
				continue
			}
			switch action {
			case wire.ActRemove:
				if s.factories.Remove(tx, id) {
					n++
				}
			case wire.ActHold, wire.ActRelease:
				changed, err := s.factories.Pause(tx, id, action == wire.ActHold)
				if err != nil {
					return err
				}
				if changed {
					n++
					s.clusterEvent(tx, c, pauseEvent(action == wire.ActHold, reason))
				}
			}
		}
		return nil
	})
	return n, err
}

// namesCluster reports whether a selection without a constraint names a
// whole cluster: by its id, or by its owner.
func (sel *selection) namesCluster(c *queue.Cluster, all bool) bool {
	byID, byOwner := len(sel.ids) == 0, len(sel.owners) == 0
	for _, s := range sel.ids {
		if s.Cluster == c.ID && s.Proc < 0 {
			byID = true
		}
	}
	for _, o := range sel.owners {
		if o == c.Owner {
			byOwner = true
		}
	}
	if len(sel.ids) == 0 && len(sel.owners) == 0 {
		return all
	}
	return byID && byOwner
}

// sendFactories sends the cluster ads of the factories a selection
// names (its ids and owners; its constraint evaluated in the cluster ad),
// as condor_q -factory shows them.
func (s *Server) sendFactories(out *wire.Stream, sel *selection, projection []string) error {
	var ads []*classad.Ad
	s.q.Read(func(r *queue.Reader) {
		if s.factories == nil {
			return
		}
		ids := s.factories.Clusters()
		slices.Sort(ids)
		for _, id := range ids {
			c := r.Cluster(id)
			if c == nil || !sel.namesFactory(c) {
				continue
			}
			ad := factoryAd(c, s.factories.Get(id))
			if sel.constraint == nil || sel.holds(ad) {
				ads = append(ads, ad)
			}
		}
	})
	var buf []byte
	for _, ad := range ads {
		if len(projection) > 0 {
			ad = project(ad, projection)
		}
		buf = classad.AppendJSON(buf[:0], ad, false)
		if err := out.SendJSON(buf); err != nil {
			return err
		}
	}
	return nil
}

// namesFactory reports whether a selection's ids and owners name a
// cluster (a cluster.proc id names its cluster).
func (sel *selection) namesFactory(c *queue.Cluster) bool {
	byID, byOwner := len(sel.ids) == 0, len(sel.owners) == 0
	for _, s := range sel.ids {
		byID = byID || s.Cluster == c.ID
	}
	for _, o := range sel.owners {
		byOwner = byOwner || o == c.Owner
	}
	return byID && byOwner
}

// factoryAd is a factory's cluster ad with its state and its cluster's
// counts, under HTCondor's names.
func factoryAd(c *queue.Cluster, f *factory.Factory) *classad.Ad {
	ad := c.Ad().Clone()
	n := c.Counts()
	paused := int64(0)
	if f.Paused {
		paused = 1
	}
	for _, a := range []struct {
		name string
		v    int64
	}{
		{attr.JobMaterializeNextProcId, f.Next}, {attr.JobMaterializePaused, paused},
		{attr.JobsPresent, int64(n.Total())}, {attr.JobsIdle, int64(n.Idle)},
		{attr.JobsRunning, int64(n.Running)}, {attr.JobsHeld, int64(n.Held)},
	} {
		ad.Set(a.name, ast.Int(a.v))
	}
	return ad
}

// unmade says how many procs of a cluster its factory has yet to make (0
// when it has none).
func (s *Server) unmade(cluster int64) int64 {
	var n int64
	s.q.Read(func(*queue.Reader) {
		if f := s.factories.Get(cluster); f != nil {
			n = f.Left()
		}
	})
	return n
}

// The events of a late-materialization cluster (HTCondor's 035-038),
// written to the cluster's log as its owner, as a job's are; their job is
// the cluster's, proc -1.

// clusterEvent adds a cluster's event to tx's, written once it commits.
func (s *Server) clusterEvent(tx *queue.Tx, c *queue.Cluster, e userlog.Event) {
	ev := s.newEvents()
	v := queue.View{ID: queue.JobID{Cluster: c.ID, Proc: -1}, Cluster: c.Ad(), Own: classad.NewAd()}
	ev.add(&v, e)
	ev.after(tx)
}

// pauseEvent is a factory's pause (a hold of its cluster: pause code 1,
// the hold's code) or its resumption (a release).
func pauseEvent(hold bool, reason string) userlog.Event {
	if hold {
		return userlog.Event{Code: userlog.FactoryPaused, Reason: reason, PauseCode: 1, HoldCode: attr.HoldUserRequest}
	}
	return userlog.Event{Code: userlog.FactoryResumed, Reason: reason}
}

// clusterRemoved writes the ClusterRemove event of an ended factory's
// cluster, which leaves the queue in tx: how many procs its factory made
// and how it ended (complete, paused by a hold, or incomplete: removed).
// Kite's factory keeps procs, not item rows: items are the procs made.
func (s *Server) clusterRemoved(tx *queue.Tx, c *queue.Cluster, e factory.Ended) {
	completion := userlog.CompletionIncomplete
	switch {
	case e.Complete:
		completion = userlog.CompletionComplete
	case e.Paused:
		completion = userlog.CompletionPaused
	}
	s.clusterEvent(tx, c, userlog.Event{Code: userlog.ClusterRemove, Materialized: e.Made, Items: e.Made, Completion: completion})
}
