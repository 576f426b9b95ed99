package schedd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/factory"
	"github.com/kite-sched/kite/daemons/schedd/jobtypes"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/transfer"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// Config is the schedd's runtime configuration.
type Config struct {
	Listen string // host:port to serve
	Name   string // the schedd's name; "" means the host's
	// Spool holds the job queue file.
	Spool string
	// UIDDomain makes submitter names owner@UIDDomain; "" means the host.
	// Jobs carry it as their UidDomain: startds of the same domain run
	// them as their owners.
	UIDDomain string
	// IdentityMap and AcceptIdentities turn callers' identities into
	// local accounts (config.Schedd's keys of the same names).
	IdentityMap      []string
	AcceptIdentities []string
	// Identities replaces the map built from them (tests).
	Identities *runas.Map
	// PeriodicInterval is how often periodic policy is evaluated.
	PeriodicInterval time.Duration
	// UpdateInterval and UpdateDelay: ads go to the collector every
	// interval, and this long after a change.
	UpdateInterval, UpdateDelay time.Duration
	// ClaimLease is the lease asked of startds; keep-alives go every
	// third of it.
	ClaimLease time.Duration
	// MaxRunning caps running jobs (0: no cap).
	MaxRunning int
	// HistoryRetain bounds the history (0: keep all).
	HistoryRetain int
	// MaxBodyBytes bounds a submit's body (and the daemons' requests).
	MaxBodyBytes int64
	// MaxJobsPerSubmission and MaxJobsPerOwner bound the jobs of one
	// submit and of one owner in the queue (0: 20000 and 100000).
	MaxJobsPerSubmission, MaxJobsPerOwner int
	// Expr bounds the expressions of users' requests (zero fields: the
	// defaults of the configuration).
	Expr classad.Limits
	// RequeueAfter is how long after gossip finds a startd dead its jobs
	// go back to idle (0: at once).
	RequeueAfter time.Duration
	// DAGHoldClaim is the KeepClaimIdle of DAG node jobs that have
	// children (claimhold.go; 0: none).
	DAGHoldClaim time.Duration
	// MaxAborts holds a job whose machine was lost more often (0: never).
	MaxAborts int
	// Replicas is how many extra instances of a running job may run
	// (0: none), unless the job's KiteReplicas says.
	Replicas int
	// StartLocalUniverse and StartSchedulerUniverse say when a local or
	// scheduler universe job may start (ClassAd expressions over the
	// schedd's ad, the job as TARGET; "": HTCondor's defaults, local.go).
	StartLocalUniverse, StartSchedulerUniverse string
	// FlockTo lists the pools idle jobs may flock to, in order, and
	// FlockAfter how long a job waits before the next one (flock.go).
	FlockTo    []FlockPool
	FlockAfter time.Duration
	// NoSync commits without fsync: benchmarks of everything else only.
	NoSync bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// storeFault, in tests, fails the queue's commits as a full disk does.
	storeFault func() error
	// actBatch, in tests, replaces actBatch.
	actBatch int
	// requeueRetry is how often a requeue that could not be
	// written is tried again (default 5s).
	requeueRetry time.Duration
	// afterFunc, in tests, replaces time.AfterFunc for the requeue of a
	// startd gossip found dead; it returns the timer's Stop.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
}

// ConfigFrom takes the schedd's section of a host configuration.
func ConfigFrom(c *config.Config) Config {
	s := c.Schedd
	return Config{
		Listen: s.Listen, Name: s.Name, Spool: c.SpoolDir(), UIDDomain: s.UIDDomain,
		IdentityMap: s.IdentityMap, AcceptIdentities: s.AcceptIdentities,
		PeriodicInterval: s.PeriodicInterval.Duration, UpdateInterval: s.UpdateInterval.Duration,
		UpdateDelay: s.UpdateDelay.Duration, ClaimLease: s.ClaimLease.Duration, DAGHoldClaim: s.DAGHoldClaimTime.Duration,
		MaxRunning: s.MaxRunningJobs, HistoryRetain: s.HistoryRetain, MaxBodyBytes: s.MaxBodyBytes,
		RequeueAfter: s.RequeueAfter.Duration, MaxAborts: s.MaxAborts, Replicas: s.Replicas,
		MaxJobsPerSubmission: s.MaxJobsPerSubmission, MaxJobsPerOwner: s.MaxJobsPerOwner,
		StartLocalUniverse: s.StartLocalUniverse, StartSchedulerUniverse: s.StartSchedulerUniverse,
		FlockTo: flockPools(c), FlockAfter: s.FlockAfter.Duration,
		Expr: classad.Limits{Bytes: s.MaxExpressionBytes, Tokens: s.MaxExpressionTokens, Depth: s.MaxExpressionDepth},
	}
}

// Server is the schedd daemon.
type Server struct {
	env         *daemon.Env
	cfg         Config
	log         *slog.Logger
	now         func() time.Time
	name        string
	domain      string
	q           *queue.Queue
	events      *userlog.Log
	ids         *runas.Map // identities to accounts; files are opened as them
	start       time.Time
	ready       chan struct{}
	claims      *claims.Registry
	handoffs    handoffs // next jobs handed in end reports' answers (handoff.go)
	replication *replication
	files       *transfer.Files
	kick        chan struct{} // advertise (and poke the negotiator) soon
	reg         *prometheus.Registry
	met         *scheddMetrics
	types       *jobtypes.Stats // job type statistics
	factories   *factory.Set    // late materialization, read and changed under the queue's lock
	dags        *dagSet         // DAGs (dag.go), read and changed under the queue's lock
	lost        *lostStartds    // lost machines (lost.go)
	local       *localJobs      // jobs of the local and scheduler universes (local.go)
	flock       *flocking       // flocking to other pools (flock.go)
	held        *heldClaims     // claims kept idle for the owner's next job (claimhold.go)

	mu   sync.Mutex
	addr string
	bg   context.Context // Run's context, for work started by requests
	wg   sync.WaitGroup
}

// New returns a schedd; Run opens its queue and serves.
func New(env *daemon.Env, cfg Config) (*Server, error) {
	if cfg.Spool == "" {
		return nil, errors.New("schedd: no spool directory")
	}
	if cfg.PeriodicInterval <= 0 || cfg.UpdateInterval <= 0 || cfg.ClaimLease <= 0 {
		return nil, errors.New("schedd: periodic interval, update interval and claim lease must be positive")
	}
	cfg.MaxBodyBytes = cmp.Or(cfg.MaxBodyBytes, 256<<20)
	cfg.MaxJobsPerSubmission = cmp.Or(cfg.MaxJobsPerSubmission, 20000)
	cfg.MaxJobsPerOwner = cmp.Or(cfg.MaxJobsPerOwner, 100000)
	cfg.Expr.Bytes = cmp.Or(cfg.Expr.Bytes, 1<<20)
	cfg.Expr.Tokens = cmp.Or(cfg.Expr.Tokens, 100000)
	cfg.Expr.Depth = cmp.Or(cfg.Expr.Depth, config.MaxExpressionDepth)
	cfg.actBatch = cmp.Or(cfg.actBatch, actBatch)
	cfg.requeueRetry = cmp.Or(cfg.requeueRetry, 5*time.Second)
	if cfg.afterFunc == nil {
		cfg.afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	name := cmp.Or(cfg.Name, env.Host)
	var err error
	s := &Server{
		env: env, cfg: cfg, log: env.Log.With("component", "schedd"), now: now,
		name: name, domain: cmp.Or(cfg.UIDDomain, env.Host), events: &userlog.Log{},
		start: now(), ready: make(chan struct{}), kick: make(chan struct{}, 1), bg: context.Background(),
	}
	if s.ids, err = identities(cfg); err != nil {
		return nil, fmt.Errorf("schedd: %w", err)
	}
	if s.local, err = newLocalJobs(cfg.StartLocalUniverse, cfg.StartSchedulerUniverse); err != nil {
		return nil, fmt.Errorf("schedd: %w", err)
	}
	s.claims = claims.New(s.now)
	s.replication = newReplication(s)
	s.lost = newLostStartds()
	s.flock = newFlocking(s)
	s.held = newHeldClaims()
	s.reg, s.met = s.newMetrics()
	s.files = &transfer.Files{Job: s.instanceJob, SendOutputs: s.claims.SendOutputs, Accounts: s.ids, Moved: s.met.transferred, Log: s.log,
		Checkpoints: filepath.Join(cfg.Spool, "checkpoints"), Spool: filepath.Join(cfg.Spool, spooledDir)}
	return s, nil
}

// identities builds the map of callers to accounts.
func identities(cfg Config) (*runas.Map, error) {
	if cfg.Identities != nil {
		return cfg.Identities, nil
	}
	rules := make([]runas.Rule, len(cfg.IdentityMap))
	for i, line := range cfg.IdentityMap {
		r, err := runas.ParseRule(line)
		if err != nil {
			return nil, fmt.Errorf("identity_map rule %d: %w", i+1, err)
		}
		rules[i] = r
	}
	return runas.New(rules, cfg.AcceptIdentities)
}

// Ready is closed once the schedd serves requests.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr returns the address the schedd serves (valid once Ready).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Name returns the schedd's name.
func (s *Server) Name() string { return s.name }

// Queue returns the schedd's job queue (valid once Ready).
func (s *Server) Queue() *queue.Queue { return s.q }

// QueuePath is the queue's file in a spool directory.
func QueuePath(spool string) string { return filepath.Join(spool, "job_queue.db") }

// Run opens the queue, recovers the jobs that were running, and serves
// until ctx is done.
func (s *Server) Run(ctx context.Context) error {
	q, err := queue.Open(QueuePath(s.cfg.Spool), queue.Options{
		HistoryRetain: s.cfg.HistoryRetain, NoSync: s.cfg.NoSync, Fault: s.cfg.storeFault,
	})
	if err != nil {
		return fmt.Errorf("schedd: %w", err)
	}
	s.q = q
	defer q.Close()
	if err := s.openFactories(); err != nil {
		return fmt.Errorf("schedd: %w", err)
	}
	if err := s.openDAGs(); err != nil {
		return fmt.Errorf("schedd: %w", err)
	}
	if s.types, err = jobtypes.Open(q, s.now); err != nil {
		// Statistics only: a full disk must not keep the schedd down.
		s.log.Error("job type statistics not rebuilt (again at the next start)", "err", err)
	}
	l, err := s.env.Listen(s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("schedd: %w", err)
	}
	addr := wire.HostPort(l)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.addr, s.bg = addr, ctx
	s.mu.Unlock()
	if err := s.recover(); err != nil {
		l.Close()
		return fmt.Errorf("schedd: recovering running jobs: %w", err)
	}
	node, err := s.env.JoinPool(ctx, "schedd", daemon.MemberName("schedd", addr), addr)
	if err != nil {
		s.log.Warn("not joining the pool's gossip", "err", err)
	}
	back := s.env.WatchCollector(ctx, node, s.onMember)
	s.wg.Go(func() { s.advertise(ctx, back) })
	s.wg.Go(func() { s.periodic(ctx) })
	s.wg.Go(func() { s.keepAlive(ctx) })
	s.wg.Go(func() { s.lostLoop(ctx) })
	s.wg.Go(func() { s.settleOrphans(ctx) })
	s.wg.Go(func() { s.dagLoop(ctx) })
	s.wg.Go(func() { s.keepHeldClaims(ctx) })
	s.wg.Go(func() { s.localLoop(ctx) })
	s.wg.Go(func() { s.flock.run(ctx) })
	s.wg.Go(func() { s.spoolLoop(ctx) })
	s.log.Info("serving", "addr", addr, "name", s.name)
	close(s.ready)
	// A commit that fails (a full disk) is refused and undone by the
	// queue, which goes on: reads keep working, each change is refused
	// with the write's error until the disk has room again.
	err = wire.Serve(ctx, l, s.mux(), s.env.ServerTLS, 5*time.Second, s.log)
	cancel()
	s.wg.Wait()
	s.invalidate()
	if node != nil {
		node.Leave(time.Second)
	}
	return err
}

// every calls fn each period until ctx is done.
func every(ctx context.Context, period time.Duration, fn func()) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// updateRunning runs fn in a queue transaction on a job that is still
// running, with the transaction's batch of job events; a job no longer
// running is left as it is.
func (s *Server) updateRunning(id queue.JobID, fn func(tx *queue.Tx, j *queue.Job, ev *eventBatch)) error {
	wait, err := s.stageRunning(id, fn)
	if err != nil {
		return err
	}
	return wait()
}

// stageRunning is updateRunning without the wait for the commit.
func (s *Server) stageRunning(id queue.JobID, fn func(tx *queue.Tx, j *queue.Job, ev *eventBatch)) (wait func() error, err error) {
	return s.q.Stage(func(tx *queue.Tx) error {
		j := tx.Job(id)
		if j == nil || tx.Status(j) != attr.Running {
			return nil
		}
		ev := s.newEvents()
		fn(tx, j, ev)
		ev.after(tx)
		return nil
	})
}

// goBackground runs f in the background until Run ends.
func (s *Server) goBackground(f func(ctx context.Context)) {
	s.mu.Lock()
	ctx := s.bg
	s.mu.Unlock()
	s.wg.Go(func() { f(ctx) })
}

// mux builds the schedd's endpoints.
func (s *Server) mux() *wire.Mux {
	m := s.env.Mux()
	// Users' requests but submit carry a few expressions at most.
	m.LimitBody(requestBody(s.cfg.Expr), "4 × schedd.max_expression_bytes + 1 MiB")
	m.Handle("POST "+wire.PathNewCluster, auth.Write, s.handleNewCluster)
	m.HandleStream("POST "+wire.PathQueue, auth.Read, s.handleQuery)
	m.Handle("GET "+wire.PathTotals, auth.Read, s.handleTotals)
	m.Handle("POST "+wire.PathAct, auth.Write, s.handleAct)
	m.Handle("POST "+wire.PathEdit, auth.Write, s.handleEdit)
	m.Handle("POST "+wire.PathTail, auth.Write, s.handleTail)
	m.HandleRaw("POST "+wire.PathShell, auth.Write, s.handleShell)
	m.HandleStream("POST "+wire.PathHistory, auth.Read, s.handleHistory)
	m.LimitBody(s.cfg.MaxBodyBytes, "schedd.max_body_bytes")
	m.Handle("POST "+wire.PathSubmit, auth.Write, s.handleSubmit)
	m.Handle("POST "+wire.PathSubmitFactory, auth.Write, s.handleSubmitFactory)
	m.Handle("POST "+wire.PathSubmitDAG, auth.Write, s.handleSubmitDAG)
	m.HandleRaw("PUT "+wire.PathSpoolInput, auth.Write, s.handleSpoolInput) // a job's spooled input, in all
	m.HandleRaw("GET "+wire.PathSpoolOutput, auth.Write, s.handleSpoolOutput)
	m.Handle("POST "+wire.PathSpoolDone, auth.Write, s.handleSpoolDone)
	m.Handle("POST "+wire.PathDAGs, auth.Read, s.handleDAGs)
	m.Handle("POST "+wire.PathDAGThrottle, auth.Write, s.handleDAGThrottle)
	m.Handle("POST "+wire.PathResourceRequests, auth.Flock, s.handleRequests)
	m.Handle("POST "+wire.PathMatches, auth.Flock, s.handleMatches)
	m.Handle("POST "+wire.PathJobUpdate, auth.Flock, s.handleJobUpdate)
	m.Handle("POST "+wire.PathJobUpdates, auth.Flock, s.handleJobUpdates)
	m.HandleRaw("GET "+wire.PathJobInput, auth.Flock, s.files.Input)
	metrics.Serve(m, s.reg)
	m.SetMaxBody(maxOutputBytes) // outputs stream to disk: no body bound but this
	m.HandleRaw("PUT "+wire.PathJobOutput, auth.Flock, s.files.Output)
	m.HandleRaw("PUT "+wire.PathJobCheckpoint, auth.Flock, s.files.Checkpoint)
	m.HandleRaw("GET "+wire.PathJobCheckpoint, auth.Flock, s.files.Checkpoint)
	return m
}

// requestBody bounds the body of a user's request other than submit: a
// constraint, a projection or qedit's values, ids and owners. Four
// expressions at their bound, and 1 MiB for the rest.
func requestBody(l classad.Limits) int64 { return 4*int64(l.Bytes) + 1<<20 }

// maxOutputBytes bounds one output file a startd sends back.
const maxOutputBytes = 1 << 40

// kickAds asks for the ads to go out soon (coalesced).
func (s *Server) kickAds() {
	s.local.poke()
	s.held.poke()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}
