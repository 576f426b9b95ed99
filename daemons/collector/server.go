package collector

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/collector/dashboard"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/wire"
)

// Config is the collector's runtime configuration.
type Config struct {
	Listen          string        // host:port to serve
	AdLifetime      time.Duration // life of an ad without updates
	DeadMemberGrace time.Duration // how long a dead member's ads stay, marked absent
	MaxBodyBytes    int64         // bound on one update of ads
	// Expr bounds a query's constraint and projection (zero fields: the
	// configuration's defaults).
	Expr classad.Limits
	// Housekeeping is how often expired ads are removed and the
	// collector's own ad refreshed.
	Housekeeping time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Dashboard configures the web dashboard.
	Dashboard DashboardConfig
}

// ConfigFrom takes the collector's section of a host configuration.
func ConfigFrom(c *config.Config) Config {
	return Config{
		Listen:          c.Collector.Listen,
		AdLifetime:      c.Collector.AdLifetime.Duration,
		DeadMemberGrace: c.Collector.DeadMemberGrace.Duration,
		MaxBodyBytes:    c.Collector.MaxBodyBytes,
		Expr:            exprLimitsFrom(c),
		Housekeeping:    time.Second,
		Dashboard:       DashboardConfigFrom(c),
	}
}

// exprLimitsFrom takes the bounds on queries' expressions.
func exprLimitsFrom(c *config.Config) classad.Limits {
	k := c.Collector
	return classad.Limits{Bytes: k.MaxExpressionBytes, Tokens: k.MaxExpressionTokens, Depth: k.MaxExpressionDepth}
}

// Server is the collector daemon.
type Server struct {
	env    *daemon.Env
	cfg    Config
	log    *slog.Logger
	store  *Store
	now    func() time.Time
	start  time.Time
	ready  chan struct{}
	mu     sync.Mutex
	addr   string
	gossip *membership.Node

	reg     *prometheus.Registry
	met     *collectorMetrics
	sampler *dashboard.Sampler
}

// New returns a collector; Run starts it.
func New(env *daemon.Env, cfg Config) (*Server, error) {
	if cfg.AdLifetime <= 0 || cfg.Housekeeping <= 0 {
		return nil, errors.New("collector: ad lifetime and housekeeping interval must be positive")
	}
	if cfg.Dashboard.Enabled && cfg.Dashboard.SampleInterval <= 0 {
		return nil, errors.New("collector: the dashboard's sample interval must be positive")
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	cfg.Expr.Bytes = cmp.Or(cfg.Expr.Bytes, 1<<20)
	cfg.Expr.Tokens = cmp.Or(cfg.Expr.Tokens, 100000)
	cfg.Expr.Depth = cmp.Or(cfg.Expr.Depth, config.MaxExpressionDepth)
	s := &Server{
		env: env, cfg: cfg, log: env.Log.With("component", "collector"),
		store: NewStore(cfg.AdLifetime), now: now, start: now(), ready: make(chan struct{}),
		sampler: dashboard.NewSampler(cfg.Dashboard.PoolSamples, cfg.Dashboard.MachineSamples),
	}
	s.reg, s.met = s.newMetrics()
	return s, nil
}

// Metrics returns the collector's Prometheus registry.
func (s *Server) Metrics() *prometheus.Registry { return s.reg }

// Store returns the collector's ad store.
func (s *Server) Store() *Store { return s.store }

// Ready is closed once the collector serves requests.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr returns the address the collector serves (valid once Ready).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Run serves until ctx is done, then leaves the gossip and stops.
func (s *Server) Run(ctx context.Context) error {
	l, err := s.env.Listen(s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("collector: %w", err)
	}
	addr := wire.HostPort(l)
	s.mu.Lock()
	s.addr = addr
	s.mu.Unlock()
	node, err := s.env.JoinPool(ctx, "collector", daemon.MemberName("collector", addr), addr)
	if err != nil {
		l.Close()
		return fmt.Errorf("collector: %w", err)
	}
	s.gossip = node
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { s.housekeep(ctx) })
	if s.cfg.Dashboard.Enabled {
		wg.Go(func() { s.sampleLoop(ctx) })
	}
	if node != nil {
		wg.Go(func() { s.watchMembers(ctx, node) })
	}
	s.log.Info("serving", "addr", addr)
	close(s.ready)
	err = wire.Serve(ctx, l, s.mux(), s.env.ServerTLS, 5*time.Second, s.log)
	cancel()
	if node != nil {
		node.Leave(time.Second)
	}
	wg.Wait()
	return err
}

// mux builds the collector's endpoints.
func (s *Server) mux() *wire.Mux {
	m := s.env.Mux()
	m.LimitBody(s.cfg.MaxBodyBytes, "collector.max_body_bytes")
	m.Handle("POST "+wire.PathAds, auth.Flock, s.handleUpdate)
	m.Handle("POST "+wire.PathInvalidate, auth.Flock, s.handleInvalidate)
	// Queries carry a constraint and a projection.
	m.LimitBody(4*int64(s.cfg.Expr.Bytes)+1<<20, "4 × collector.max_expression_bytes + 1 MiB")
	m.HandleStream("POST "+wire.PathQuery, auth.Read, s.handleQuery)
	m.Handle("GET "+wire.PathMembers, auth.Read, s.handleMembers)
	m.Handle("GET "+wire.PathGossip, auth.Read, s.handleGossip)
	metrics.Serve(m, s.reg)
	s.targetRoutes(m)
	s.dashboardRoutes(m)
	return m
}

// Routes lists the collector's endpoints.
func (s *Server) Routes() []wire.Route { return s.mux().Routes() }

func (s *Server) handleUpdate(ctx context.Context, r *wire.Request) (any, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	ads, raws, err := classad.ParseJSONArray(body)
	if err != nil {
		s.met.observeUpdate(0, 0, err)
		return nil, wire.BadRequest("%v", err)
	}
	for i := range raws {
		raws[i] = bytes.Clone(raws[i]) // not the whole body: it would stay while any of its ads does
	}
	var stored, stale int
	if pool := r.Caller.Pool; pool != "" {
		stored, stale, err = s.store.updateFrom(pool, ads, s.now())
	} else {
		stored, stale, err = s.store.Update(ads, raws, s.now())
	}
	s.met.observeUpdate(stored, stale, err)
	if err != nil {
		return nil, wire.BadRequest("%v", err)
	}
	return wire.UpdateAdsResult{Stored: stored, Stale: stale}, nil
}

func (s *Server) handleInvalidate(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.Invalidate
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	if req.Type == "" {
		return nil, wire.BadRequest("invalidate: the ad type is required")
	}
	compile := s.compileConstraint
	if pool := r.Caller.Pool; pool != "" {
		compile = func(string) (*classad.Program, error) { return s.flockInvalidate(pool, req) }
	}
	p, err := compile(req.Constraint)
	if err != nil {
		return nil, err
	}
	return wire.InvalidateResult{Removed: s.store.Invalidate(req.Type, req.Names, p)}, nil
}

func (s *Server) handleQuery(ctx context.Context, r *wire.Request, out *wire.Stream) error {
	var q wire.Query
	if err := r.Decode(&q); err != nil {
		return err
	}
	p, err := s.compileConstraint(q.Constraint)
	if err != nil {
		return err
	}
	if err := s.exprLimits().Names("projection", q.Projection); err != nil {
		return err
	}
	if q.Limit < 0 {
		return wire.BadRequest("query: limit must not be negative")
	}
	defer s.met.observeQuery(q.Type, time.Now())
	if q.Type == "" || ast.EqualFold(q.Type, attr.TypeCollector) {
		s.refreshOwnAd() // its counters as of now
	}
	daemon := r.Caller.Allows(auth.Daemon) // only daemons see claim ids
	var buf []byte
	for _, f := range s.store.Query(q.Type, p, q.Limit, q.Absent) {
		data := f.JSON
		if !daemon && f.Public != nil {
			data = f.Public
		}
		if len(q.Projection) > 0 {
			ad := project(f.Ad, q.Projection)
			if !daemon {
				ad.Delete(attr.ClaimID)
			}
			buf = classad.AppendJSON(buf[:0], ad, false)
			data = buf
		}
		if err := out.SendJSON(data); err != nil {
			return err
		}
	}
	return nil
}

// compileConstraint compiles a query's constraint, within the bounds on
// expressions; "" is none.
func (s *Server) compileConstraint(src string) (*classad.Program, error) {
	if src == "" {
		return nil, nil
	}
	return s.exprLimits().Compile("constraint", src)
}

// exprLimits are the bounds on the expressions of queries.
func (s *Server) exprLimits() wire.ExprLimits {
	return wire.ExprLimits{Limits: s.cfg.Expr, Section: "collector"}
}

// project returns an ad holding only the named attributes of ad.
func project(ad *classad.Ad, names []string) *classad.Ad {
	out := classad.NewAd()
	for _, n := range names {
		if i := ad.Index(n); i >= 0 {
			out.Set(ad.Name(i), ad.Expr(i))
		}
	}
	return out
}

func (s *Server) handleMembers(ctx context.Context, r *wire.Request) (any, error) {
	out := wire.Members{Members: []wire.Member{}}
	if s.gossip == nil {
		return out, nil
	}
	for _, m := range s.gossip.Members() {
		out.Members = append(out.Members, wire.Member{
			Name: m.Name, Kind: m.Meta.Kind, Addr: m.Meta.Addr, Gossip: m.Gossip,
			State: string(m.State), Since: m.Since, Version: m.Meta.Version,
		})
	}
	return out, nil
}

func (s *Server) handleGossip(ctx context.Context, r *wire.Request) (any, error) {
	if s.gossip == nil {
		return wire.GossipInfo{}, nil
	}
	return wire.GossipInfo{Addr: s.gossip.Gossip()}, nil
}

// housekeep removes expired ads and refreshes the collector's own ad.
func (s *Server) housekeep(ctx context.Context) {
	t := time.NewTicker(s.cfg.Housekeeping)
	defer t.Stop()
	for {
		s.refreshOwnAd()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n := s.store.Expire(s.now(), s.cfg.DeadMemberGrace); n > 0 {
				s.met.expired.Add(float64(n))
				s.log.Debug("expired ads", "count", n)
			}
		}
	}
}

// watchMembers marks the ads of members gossip reports gone.
func (s *Server) watchMembers(ctx context.Context, node *membership.Node) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-node.Events():
			if !ok {
				return
			}
			s.memberEvent(ev)
		}
	}
}

// memberEvent applies one change of membership to the ads: a member gone
// takes the ads of its incarnation out of answers; a member alive again
// brings back those gossip took out by mistake.
func (s *Server) memberEvent(ev membership.Event) {
	m := ev.Member
	switch ev.Kind {
	case membership.Failed, membership.Departed:
		n := s.store.MarkAbsent(m.Name, m.Meta.Incarnation, s.now())
		s.log.Info("member gone", "member", m.Name, "incarnation", m.Meta.Incarnation, "event", ev.Kind.String(), "ads", n)
	case membership.Joined, membership.Updated:
		if m.Meta.Leaving {
			return
		}
		if n := s.store.Revive(m.Name, m.Meta.Incarnation); n > 0 {
			s.log.Info("member back", "member", m.Name, "incarnation", m.Meta.Incarnation, "ads", n)
		}
	}
}

// refreshOwnAd stores the collector's own ad with its counters.
func (s *Server) refreshOwnAd() {
	byType, updates, queries := s.store.Stats()
	ad := classad.NewAd()
	host, _, _ := net.SplitHostPort(s.Addr())
	ad.Set(attr.MyType, ast.Str(attr.TypeCollector))
	ad.Set(attr.Name, ast.Str("collector@"+host))
	ad.Set(attr.MyAddress, ast.Str(s.Addr()))
	ad.Set(attr.DaemonStartTime, ast.Int(s.start.Unix()))
	ad.Set(attr.KiteVersion, ast.Str(daemon.Version))
	ad.Set(attr.UpdateSequence, ast.Int(s.now().UnixNano()))
	ad.Set("UpdatesReceived", ast.Int(updates))
	ad.Set("QueriesReceived", ast.Int(queries))
	for typ, n := range byType {
		if typ != attr.TypeCollector && ast.IsPlainName("Num"+typ+"Ads") {
			ad.Set("Num"+typ+"Ads", ast.Int(int64(n)))
		}
	}
	if s.gossip != nil {
		ad.Set("GossipAddress", ast.Str(s.gossip.Gossip()))
	}
	s.store.update([]*classad.Ad{ad}, nil, s.now())
}
