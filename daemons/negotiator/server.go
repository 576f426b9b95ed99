package negotiator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/fairshare"
	"github.com/kite-sched/kite/internal/fairshare/replicated"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/policy"
	"github.com/kite-sched/kite/internal/wire"
)

// Config is the negotiator's runtime configuration.
type Config struct {
	Listen         string
	Interval       time.Duration // longest time between cycles
	CycleDelay     time.Duration // shortest time between cycles
	UpdateInterval time.Duration // negotiator ad between cycles
	Timeout        time.Duration // per call to a schedd
	MaxRequests    int
	Strategy       string
	StrategyParams policy.Params     // the strategy's parameters (nil: its defaults)
	Seed           uint64            // 0: a new seed each cycle
	Policy         matchmaker.Policy // ranks, preemption, limits (Seed and Strategy set per cycle)
	Accountant     string            // the accountant's file
	HalfLife       time.Duration
	DefaultFactor  float64
	// Raft, when Raft.Bind is set, makes the negotiator one of a group
	// that elects the one that runs cycles (ha.go).
	Raft RaftConfig
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ConfigFrom takes the negotiator's section of a host configuration.
func ConfigFrom(c *config.Config) (Config, error) {
	n := c.Negotiator
	cfg := Config{
		Listen: n.Listen, Interval: n.Interval.Duration, CycleDelay: n.CycleDelay.Duration,
		UpdateInterval: n.UpdateInterval.Duration, Timeout: n.Timeout.Duration, MaxRequests: n.MaxRequests,
		Strategy: n.Strategy, StrategyParams: policy.Params(n.StrategyParams), Seed: n.Seed,
		Accountant: filepath.Join(c.Path(c.Pool.StateDir), "negotiator", "accountant.db"),
		HalfLife:   n.HalfLife.Duration, DefaultFactor: n.DefaultPrioFactor,
		Raft: raftConfigFrom(c),
	}
	p := &cfg.Policy
	p.ConsiderPreemption = n.ConsiderPreemption
	p.DefaultLimit = n.DefaultLimit
	p.ConcurrencyLimits = map[string]float64{}
	for name, v := range n.Limits {
		p.ConcurrencyLimits[ast.Lower(name)] = v
	}
	for _, e := range []struct {
		dst **classad.Program
		src string
	}{{&p.PreJobRank, n.PreJobRank}, {&p.PostJobRank, n.PostJobRank}, {&p.PreemptionRank, n.PreemptionRank},
		{&p.PreemptionRequirements, n.PreemptionRequirements}} {
		if e.src == "" {
			continue
		}
		prog, err := classad.Compile(e.src)
		if err != nil {
			return Config{}, err
		}
		*e.dst = prog
	}
	return cfg, nil
}

// Server is the negotiator daemon: it runs cycles on a timer and on
// request, keeps the accountant, and serves priorities and cycle reports.
type Server struct {
	env     *daemon.Env
	cfg     Config
	log     *slog.Logger
	acct    *fairshare.Accountant
	group   *replicated.Group // nil: no Raft group
	now     func() time.Time
	start   time.Time
	ready   chan struct{}
	trigger chan struct{}
	pending pendingMatches
	reg     *prometheus.Registry
	metrics *cycleMetrics
	// strategy is one instance for the negotiator's life: strategies such
	// as round-robin carry their state from cycle to cycle.
	strategy policy.Strategy

	mu     sync.Mutex
	addr   string
	report wire.CycleReport
	seq    int64
	limits limits // concurrency limits, which reconfig changes live
}

// limits are the concurrency limits' maximums (see Policy).
type limits struct {
	byName       map[string]float64
	defaultLimit float64
}

// New opens the accountant and returns a negotiator; Run starts it.
func New(env *daemon.Env, cfg Config) (*Server, error) {
	if cfg.Interval <= 0 || cfg.Timeout <= 0 || cfg.UpdateInterval <= 0 {
		return nil, errors.New("negotiator: interval, timeout and update interval must be positive")
	}
	strategy, err := policy.NewWith(cfg.Strategy, cfg.StrategyParams)
	if err != nil {
		return nil, fmt.Errorf("negotiator: %w", err)
	}
	acct, group, err := openAccountant(env, cfg)
	if err != nil {
		return nil, fmt.Errorf("negotiator: %w", err)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	reg := metrics.NewRegistry()
	return &Server{
		env: env, cfg: cfg, log: env.Log.With("component", "negotiator"), acct: acct, group: group,
		now: now, start: now(), ready: make(chan struct{}), trigger: make(chan struct{}, 1),
		pending: pendingMatches{ttl: 2 * cfg.Timeout, bySlot: map[string]*pendingMatch{}},
		reg:     reg, metrics: newCycleMetrics(reg), strategy: strategy,
		limits: limits{cfg.Policy.ConcurrencyLimits, cfg.Policy.DefaultLimit},
	}, nil
}

// Reconfigure applies a configuration read again (kite reconfig): the
// concurrency limits ([negotiator.limits], default_limit) hold from the
// next cycle on. The negotiator's other keys are read at its start; the
// master's answer to reconfig names those that changed.
func (s *Server) Reconfigure(c *config.Config) error {
	cfg, err := ConfigFrom(c)
	if err != nil {
		return fmt.Errorf("negotiator: %w", err)
	}
	s.mu.Lock()
	s.limits = limits{cfg.Policy.ConcurrencyLimits, cfg.Policy.DefaultLimit}
	s.mu.Unlock()
	s.log.Info("reconfigured: concurrency limits", "limits", cfg.Policy.ConcurrencyLimits, "default_limit", cfg.Policy.DefaultLimit)
	s.Reschedule() // jobs a new limit lets run need not wait for the interval
	return nil
}

// policy returns the policy of the next cycle: the configured one with
// the concurrency limits in force now.
func (s *Server) policy() matchmaker.Policy {
	p := s.cfg.Policy
	s.mu.Lock()
	p.ConcurrencyLimits, p.DefaultLimit = s.limits.byName, s.limits.defaultLimit
	s.mu.Unlock()
	return p
}

// Ready is closed once the negotiator serves requests.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr returns the address the negotiator serves (valid once Ready).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Metrics returns the negotiator's Prometheus registry.
func (s *Server) Metrics() *prometheus.Registry { return s.reg }

// Accountant returns the negotiator's accountant.
func (s *Server) Accountant() *fairshare.Accountant { return s.acct }

// LastCycle returns the report of the last cycle.
func (s *Server) LastCycle() wire.CycleReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.report
}

// Reschedule asks for a cycle soon (no later than CycleDelay after the
// last one).
func (s *Server) Reschedule() {
	select {
	case s.trigger <- struct{}{}:
	default:
	}
}

// Run serves and negotiates until ctx is done.
func (s *Server) Run(ctx context.Context) error {
	defer s.acct.Close()
	if s.group != nil {
		defer s.group.Close()
	}
	l, err := s.env.Listen(s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("negotiator: %w", err)
	}
	addr := wire.HostPort(l)
	s.mu.Lock()
	s.addr = addr
	s.mu.Unlock()
	node, err := s.env.JoinPool(ctx, "negotiator", daemon.MemberName("negotiator", addr), addr)
	if err != nil {
		l.Close()
		return fmt.Errorf("negotiator: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	back := s.env.WatchCollector(ctx, node, nil)
	var wg sync.WaitGroup
	wg.Go(func() { s.loop(ctx, back) })
	s.log.Info("serving", "addr", addr)
	close(s.ready)
	err = wire.Serve(ctx, l, s.mux(), s.env.ServerTLS, 5*time.Second, s.log)
	cancel()
	wg.Wait()
	s.invalidateAd()
	if node != nil {
		node.Leave(time.Second)
	}
	return err
}

// loop runs a cycle every Interval, and soon after a reschedule request,
// never two closer than CycleDelay; it advertises the negotiator ad in
// between.
func (s *Server) loop(ctx context.Context, collectorBack <-chan struct{}) {
	s.advertise(ctx)
	next := time.NewTimer(s.cfg.CycleDelay)
	defer next.Stop()
	update := time.NewTicker(s.cfg.UpdateInterval)
	defer update.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-update.C:
			s.advertise(ctx)
			continue
		case <-collectorBack:
			s.advertise(ctx)
			continue
		case won := <-s.leadership():
			s.onLeadership(ctx, won)
			s.advertise(ctx)
			continue
		case <-s.leaderChanges():
			s.advertise(ctx)
			continue
		case <-s.trigger:
			// Run as soon as the minimum delay since the last cycle allows.
			next.Reset(max(0, s.cfg.CycleDelay-time.Since(last)))
			continue
		case <-next.C:
		}
		if !s.leads() {
			// A follower keeps the accountant's copy and waits to lead.
			next.Reset(s.cfg.Interval)
			continue
		}
		last = time.Now()
		if err := s.Cycle(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("negotiation cycle failed", "err", err)
		}
		s.advertise(ctx)
		next.Reset(s.cfg.Interval)
	}
}

// smallBody bounds the body of a request that carries a few fields.
const smallBody = 64 << 10

// Routes lists the negotiator's endpoints.
func (s *Server) Routes() []wire.Route { return s.mux().Routes() }

// mux builds the negotiator's endpoints.
func (s *Server) mux() *wire.Mux {
	m := s.env.Mux()
	m.SetMaxBody(smallBody) // every request here is a few fields
	m.Handle("POST "+wire.PathReschedule, auth.Write, s.handleReschedule)
	m.Handle("GET "+wire.PathPriorities, auth.Read, s.handlePriorities)
	m.Handle("POST "+wire.PathSetFactor, auth.Administrator, s.handleSetFactor)
	m.Handle("POST "+wire.PathSetPriority, auth.Administrator, s.handleSetPriority)
	m.Handle("POST "+wire.PathResetUsage, auth.Administrator, s.handleResetUsage)
	m.Handle("GET "+wire.PathCycle, auth.Read, s.handleCycle)
	metrics.Serve(m, s.reg)
	return m
}

func (s *Server) handleReschedule(ctx context.Context, r *wire.Request) (any, error) {
	s.Reschedule()
	return nil, nil
}

func (s *Server) handlePriorities(ctx context.Context, r *wire.Request) (any, error) {
	users := s.acct.Users()
	out := wire.Priorities{Users: make([]wire.Priority, len(users))}
	for i, u := range users {
		out.Users[i] = wirePriority(u)
	}
	return out, nil
}

func wirePriority(u fairshare.Usage) wire.Priority {
	return wire.Priority{
		User: u.Name, Effective: u.Effective(), Real: u.Priority, Factor: u.Factor, InUse: u.InUse,
		Usage: u.Accumulated / 3600, BeginUsage: u.BeginUsage, LastUsage: u.LastUsage,
	}
}

func (s *Server) handleSetFactor(ctx context.Context, r *wire.Request) (any, error) {
	var in wire.SetFactor
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	if in.User == "" {
		return nil, wire.BadRequest("a user is required")
	}
	if err := fairshare.CheckFactor(in.Factor); err != nil {
		return nil, wire.BadRequest("%v", err)
	}
	out, err := s.edit(ctx, r, wire.PathSetFactor, in,
		func() (fairshare.Usage, error) { return s.acct.SetFactor(in.User, in.Factor) },
		func(g *replicated.Group) (fairshare.Usage, error) { return g.SetFactor(in.User, in.Factor) })
	if err == nil {
		s.log.Info("priority factor set", "user", in.User, "factor", in.Factor, "by", r.Caller.Name)
	}
	return out, err
}

func (s *Server) handleSetPriority(ctx context.Context, r *wire.Request) (any, error) {
	var in wire.SetPriority
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	if in.User == "" {
		return nil, wire.BadRequest("a user is required")
	}
	if err := fairshare.CheckPriority(in.Priority); err != nil {
		return nil, wire.BadRequest("%v", err)
	}
	now := s.now()
	out, err := s.edit(ctx, r, wire.PathSetPriority, in,
		func() (fairshare.Usage, error) { return s.acct.SetPriority(in.User, in.Priority, now) },
		func(g *replicated.Group) (fairshare.Usage, error) { return g.SetPriority(in.User, in.Priority, now) })
	if err == nil {
		s.log.Info("real priority set", "user", in.User, "priority", in.Priority, "by", r.Caller.Name)
	}
	return out, err
}

func (s *Server) handleResetUsage(ctx context.Context, r *wire.Request) (any, error) {
	var in wire.ResetUsage
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	now := s.now()
	out, err := s.edit(ctx, r, wire.PathResetUsage, in,
		func() (fairshare.Usage, error) { return s.acct.ResetUsage(in.User, now) },
		func(g *replicated.Group) (fairshare.Usage, error) { return g.ResetUsage(in.User, now) })
	if err == nil {
		s.log.Info("usage reset", "user", in.User, "by", r.Caller.Name)
	}
	return out, err
}

func (s *Server) handleCycle(ctx context.Context, r *wire.Request) (any, error) {
	return s.LastCycle(), nil
}

// newSeed picks the seed of a cycle.
func (s *Server) newSeed() uint64 {
	if s.cfg.Seed != 0 {
		return s.cfg.Seed
	}
	return rand.Uint64()
}
