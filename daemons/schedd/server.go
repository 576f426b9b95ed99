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

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/userlog"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/wire"
)

// Config is the schedd's runtime configuration.
type Config struct {
	Listen string // host:port to serve
	Name   string // the schedd's name; "" means the host's
	// Spool holds the job queue file.
	Spool string
	// UIDDomain makes submitter names owner@UIDDomain; "" means the host.
	UIDDomain string
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
	// MaxBodyBytes bounds one request body.
	MaxBodyBytes int64
	// RequeueAfter is how long after gossip finds a startd dead its jobs
	// go back to idle (0: at once).
	RequeueAfter time.Duration
	// MaxAborts holds a job whose machine was lost more often (0: never).
	MaxAborts int
	// Replicas is how many extra instances of a running job may run
	// (0: none), unless the job's KiteReplicas says.
	Replicas int
	// NoSync commits without fsync: benchmarks of everything else only.
	NoSync bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ConfigFrom takes the schedd's section of a host configuration.
func ConfigFrom(c *config.Config) Config {
	s := c.Schedd
	return Config{
		Listen: s.Listen, Name: s.Name, Spool: c.SpoolDir(), UIDDomain: s.UIDDomain,
		PeriodicInterval: s.PeriodicInterval.Duration, UpdateInterval: s.UpdateInterval.Duration,
		UpdateDelay: s.UpdateDelay.Duration, ClaimLease: s.ClaimLease.Duration,
		MaxRunning: s.MaxRunningJobs, HistoryRetain: s.HistoryRetain, MaxBodyBytes: s.MaxBodyBytes,
		RequeueAfter: s.RequeueAfter.Duration, MaxAborts: s.MaxAborts, Replicas: s.Replicas,
	}
}

// Server is the schedd daemon.
type Server struct {
	env    *daemon.Env
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	name   string
	domain string
	q      *queue.Queue
	events *userlog.Log
	start  time.Time
	ready  chan struct{}
	jobs   *runs
	kick   chan struct{} // advertise (and poke the negotiator) soon
	reg    *prometheus.Registry
	met    *scheddMetrics
	extra  *extraMetrics // metrics_extra.go
	types  *jobTypes     // job type statistics (jobtypes.go)
	lost   *lostStartds  // lost machines (lost.go)

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
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	name := cmp.Or(cfg.Name, env.Host)
	s := &Server{
		env: env, cfg: cfg, log: env.Log.With("component", "schedd"), now: now,
		name: name, domain: cmp.Or(cfg.UIDDomain, env.Host), events: &userlog.Log{},
		start: now(), ready: make(chan struct{}), kick: make(chan struct{}, 1), bg: context.Background(),
	}
	s.jobs = newRuns(s)
	s.types = newJobTypes()
	s.lost = newLostStartds()
	s.reg, s.met = s.newMetrics()
	s.extra = newExtraMetrics(s.reg)
	return s, nil
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
	q, err := queue.Open(QueuePath(s.cfg.Spool), queue.Options{HistoryRetain: s.cfg.HistoryRetain, NoSync: s.cfg.NoSync})
	if err != nil {
		return fmt.Errorf("schedd: %w", err)
	}
	s.q = q
	defer q.Close()
	if err := s.types.open(q); err != nil {
		return fmt.Errorf("schedd: job types: %w", err)
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
	s.wg.Go(func() { s.jobs.keepAlive(ctx) })
	s.wg.Go(func() { s.lostLoop(ctx) })
	s.log.Info("serving", "addr", addr, "name", s.name)
	close(s.ready)
	s.wg.Go(func() {
		select {
		case <-q.Broken():
			s.log.Error("stopping: the job queue cannot be written", "err", q.Err())
			cancel()
		case <-ctx.Done():
		}
	})
	err = wire.Serve(ctx, l, s.mux(), s.env.ServerTLS, 5*time.Second, s.log)
	cancel()
	if qerr := q.Err(); qerr != nil {
		err = fmt.Errorf("schedd: %w", qerr)
	}
	s.wg.Wait()
	s.invalidate()
	if node != nil {
		node.Leave(time.Second)
	}
	return err
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
	m.SetMaxBody(s.cfg.MaxBodyBytes)
	m.Handle("POST "+wire.PathNewCluster, auth.Write, s.handleNewCluster)
	m.Handle("POST "+wire.PathSubmit, auth.Write, s.handleSubmit)
	m.HandleStream("POST "+wire.PathQueue, auth.Read, s.handleQuery)
	m.Handle("GET "+wire.PathTotals, auth.Read, s.handleTotals)
	m.Handle("POST "+wire.PathAct, auth.Write, s.handleAct)
	m.Handle("POST "+wire.PathEdit, auth.Write, s.handleEdit)
	m.HandleStream("POST "+wire.PathHistory, auth.Read, s.handleHistory)
	m.Handle("POST "+wire.PathResourceRequests, auth.Daemon, s.handleRequests)
	m.Handle("POST "+wire.PathMatches, auth.Daemon, s.handleMatches)
	m.Handle("POST "+wire.PathJobUpdate, auth.Daemon, s.handleJobUpdates)
	m.HandleRaw("GET "+wire.PathJobInput, auth.Daemon, s.handleInput)
	metrics.Serve(m, s.reg)
	m.SetMaxBody(maxOutputBytes) // outputs stream to disk: no body bound but this
	m.HandleRaw("PUT "+wire.PathJobOutput, auth.Daemon, s.handleOutput)
	return m
}

// maxOutputBytes bounds one output file a startd sends back.
const maxOutputBytes = 1 << 40

// kickAds asks for the ads to go out soon (coalesced).
func (s *Server) kickAds() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}
