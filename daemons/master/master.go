// Package master is the daemon that runs a host's other daemons: it starts
// the ones the host's configuration names as child processes of the same
// kite binary, restarts one that ends with HTCondor's exponential backoff
// (9 s + 2^n s, at most an hour, forgotten after five minutes of good
// running), advertises a master ad with their states, and obeys `kite on`,
// `kite off`, `kite restart` and `kite reconfig`.
//
// Order matters when a host stops: the negotiator stops first (no new
// matches), then the startd (it vacates running jobs and tells their
// schedds, which put them back to idle), then the schedd (its queue is
// durable), then the collector. The collector starts first, so that the
// others find it when they join the pool.
package master

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/wire"
)

// Config is the master's runtime configuration.
type Config struct {
	Listen  string
	Daemons []string
	// Name is the host's name in the master ad; "" means the host name.
	Name string
	// Command runs a daemon; LogDir receives each daemon's output as
	// KIND.log ("" leaves it on the master's own output).
	Command Command
	LogDir  string
	// Restart backoff: constant + factor^n units, at most the ceiling;
	// the count is forgotten after RecoverAfter of running.
	BackoffConstant, BackoffCeiling, BackoffUnit time.Duration
	BackoffFactor                                float64
	RecoverAfter                                 time.Duration
	UpdateInterval                               time.Duration
	// StopGrace is how long a daemon has to stop after SIGTERM.
	StopGrace time.Duration
	// Collector is the pool's collector address, waited for before the
	// other daemons start when this host runs the collector.
	Collector string
	// Reload reads the configuration again for kite reconfig.
	Reload func() (*config.Config, error)
	// Loaded is the configuration the master started with: reconfig
	// compares the one it reads with it (nil: no comparison).
	Loaded *config.Config
}

// ConfigFrom takes the master's section of a host configuration.
func ConfigFrom(c *config.Config, command Command) Config {
	m := c.Master
	return Config{
		Listen: m.Listen, Daemons: m.Daemons, Command: command, Name: m.Name,
		LogDir:          c.Path(c.Pool.StateDir) + "/log",
		BackoffConstant: m.BackoffConstant.Duration, BackoffCeiling: m.BackoffCeiling.Duration,
		BackoffUnit: time.Second, BackoffFactor: m.BackoffFactor, RecoverAfter: m.RecoverAfter.Duration,
		UpdateInterval: m.UpdateInterval.Duration, StopGrace: 40 * time.Second, Collector: ownCollector(c),
		Loaded: c,
	}
}

// ownCollector is the address of this host's collector: the pool's, or,
// with several (pool.collectors), the one this host listens on.
func ownCollector(c *config.Config) string {
	if len(c.Pool.CollectorAddrs()) > 1 {
		return c.Collector.Listen
	}
	return c.Pool.Collector
}

// startOrder and stopOrder rank the daemons a master knows.
var (
	startOrder = []string{"collector", "negotiator", "schedd", "startd"}
	stopOrder  = []string{"negotiator", "startd", "schedd", "collector"}
)

// Server is the master daemon.
type Server struct {
	env   *daemon.Env
	cfg   Config
	log   *slog.Logger
	sup   *supervisor
	start time.Time
	ready chan struct{}
	quit  chan struct{} // kite off -master
	dirty chan struct{} // a daemon's state changed: advertise soon
	reg   *prometheus.Registry
	met   *masterMetrics

	mu   sync.Mutex
	addr string
	seq  int64
	ctx  context.Context
	conf *config.Config // as of the start or the last reconfig
}

// New returns a master; Run starts it.
func New(env *daemon.Env, cfg Config) (*Server, error) {
	if cfg.Command == nil {
		return nil, errors.New("master: no command to run daemons with")
	}
	if cfg.BackoffUnit <= 0 {
		cfg.BackoffUnit = time.Second
	}
	s := &Server{env: env, cfg: cfg, log: env.Log.With("component", "master"), start: time.Now(),
		ready: make(chan struct{}), quit: make(chan struct{}), dirty: make(chan struct{}, 1), conf: cfg.Loaded}
	s.sup = &supervisor{
		command: cfg.Command, logDir: cfg.LogDir, recover: cfg.RecoverAfter, stopGrace: cfg.StopGrace,
		backoff:  backoff{constant: cfg.BackoffConstant, ceiling: cfg.BackoffCeiling, unit: cfg.BackoffUnit, factor: cfg.BackoffFactor},
		changed:  s.changed,
		logf:     func(msg string, args ...any) { s.log.Info(msg, args...) },
		children: map[string]*child{},
	}
	s.reg, s.met = s.newMetrics()
	s.sup.onEnded = func(kind string) { s.met.restarts.WithLabelValues(kind).Inc() }
	return s, nil
}

// Ready is closed once the master serves and has started its daemons.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr returns the address the master serves (valid once Ready).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Daemons reports the state of the master's daemons.
func (s *Server) Daemons() []wire.DaemonStatus { return s.sup.statuses() }

func (s *Server) changed() {
	select {
	case s.dirty <- struct{}{}:
	default:
	}
}

// Run starts the daemons and serves until ctx is done (or kite off
// -master), then stops the daemons in order.
func (s *Server) Run(ctx context.Context) error {
	l, err := s.env.Listen(s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("master: %w", err)
	}
	addr := wire.HostPort(l)
	s.mu.Lock()
	s.addr = addr
	s.mu.Unlock()
	daemonsCtx, stopDaemons := context.WithCancel(context.Background())
	defer stopDaemons()
	s.mu.Lock()
	s.ctx = daemonsCtx
	s.mu.Unlock()
	if err := s.startDaemons(ctx, daemonsCtx, s.cfg.Daemons); err != nil {
		s.shutdown()
		l.Close()
		return err
	}
	node, err := s.env.JoinPool(ctx, "master", daemon.MemberName("master", addr), addr)
	if err != nil {
		s.log.Warn("not gossiping: the master goes on without pool membership", "err", err)
	}
	serveCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	back := s.env.WatchCollector(serveCtx, node, nil)
	var wg sync.WaitGroup
	wg.Go(func() { s.advertiseLoop(serveCtx, back) })
	served := make(chan error, 1)
	go func() { served <- wire.Serve(serveCtx, l, s.mux(), s.env.ServerTLS, 5*time.Second, s.log) }()
	s.log.Info("serving", "addr", addr, "daemons", s.cfg.Daemons)
	close(s.ready)
	select {
	case <-ctx.Done():
	case <-s.quit:
		s.log.Info("stopping: kite off -master")
	case err = <-served:
		s.log.Error("serving stopped", "err", err)
	}
	s.shutdown()
	stopDaemons()
	s.sup.wg.Wait()
	s.invalidateAd()
	cancel()
	wg.Wait()
	if node != nil {
		node.Leave(time.Second)
	}
	if err == nil {
		err = <-served
	}
	return err
}

// startDaemons starts the daemons in order, the collector first and ready
// before the others.
func (s *Server) startDaemons(ctx, daemonsCtx context.Context, kinds []string) error {
	kinds = ordered(kinds, startOrder)
	for _, k := range kinds {
		s.sup.add(daemonsCtx, k)
		if k == "collector" && s.cfg.Collector != "" {
			if err := waitListening(ctx, s.cfg.Collector, 30*time.Second); err != nil {
				return fmt.Errorf("master: the collector did not start: %w", err)
			}
		}
	}
	return nil
}

// ordered sorts daemon kinds by a reference order; unknown ones go last.
func ordered(kinds, order []string) []string {
	out := slices.Clone(kinds)
	rank := func(k string) int {
		if i := slices.Index(order, k); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// waitListening waits until something accepts connections at addr.
func waitListening(ctx context.Context, addr string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// shutdown stops the daemons one by one in stop order.
func (s *Server) shutdown() {
	var kinds []string
	for _, st := range s.sup.statuses() {
		kinds = append(kinds, st.Name)
	}
	for _, k := range ordered(kinds, stopOrder) {
		s.sup.setWant(k, false)
		if !s.sup.waitStopped(k, s.cfg.StopGrace+5*time.Second) {
			s.log.Warn("daemon did not stop", "daemon", k)
		}
	}
}

// mux builds the master's endpoints.
func (s *Server) mux() *wire.Mux {
	m := s.env.Mux()
	m.SetMaxBody(64 << 10) // a command names a few daemons
	m.Handle("GET "+wire.PathMasterDaemons, auth.Read, s.handleDaemons)
	m.Handle("POST "+wire.PathMasterOn, auth.Administrator, s.command(s.on))
	m.Handle("POST "+wire.PathMasterOff, auth.Administrator, s.command(s.off))
	m.Handle("POST "+wire.PathMasterRestart, auth.Administrator, s.command(s.restart))
	m.Handle("POST "+wire.PathMasterReconfig, auth.Administrator, s.handleReconfig)
	metrics.Serve(m, s.reg)
	return m
}

// Routes lists the master's endpoints.
func (s *Server) Routes() []wire.Route { return s.mux().Routes() }

func (s *Server) handleDaemons(ctx context.Context, r *wire.Request) (any, error) {
	return wire.MasterDaemons{Master: s.name(), Daemons: s.Daemons()}, nil
}

// command wraps an action on daemons as an endpoint.
func (s *Server) command(act func(wire.MasterCommand) error) wire.Handler {
	return func(ctx context.Context, r *wire.Request) (any, error) {
		var in wire.MasterCommand
		if err := r.Decode(&in); err != nil {
			return nil, err
		}
		for _, d := range in.Daemons {
			if !slices.Contains(startOrder, d) {
				return nil, wire.BadRequest("unknown daemon %q (known: %v)", d, startOrder)
			}
		}
		s.log.Info("command", "path", r.HTTP.URL.Path, "daemons", in.Daemons, "master", in.Master, "by", r.Caller.Name)
		if err := act(in); err != nil {
			return nil, err
		}
		return wire.MasterDaemons{Master: s.name(), Daemons: s.Daemons()}, nil
	}
}

// targets are the daemons a command names, or all the master runs.
func (s *Server) targets(in wire.MasterCommand) []string {
	if len(in.Daemons) > 0 {
		return in.Daemons
	}
	var out []string
	for _, st := range s.sup.statuses() {
		out = append(out, st.Name)
	}
	return out
}

func (s *Server) on(in wire.MasterCommand) error {
	s.mu.Lock()
	ctx := s.ctx
	s.mu.Unlock()
	for _, k := range in.Daemons {
		s.sup.add(ctx, k)
	}
	for _, k := range s.targets(in) {
		s.sup.setWant(k, true)
	}
	return nil
}

func (s *Server) off(in wire.MasterCommand) error {
	if in.Master {
		close(s.quit)
		return nil
	}
	for _, k := range ordered(s.targets(in), stopOrder) {
		if s.sup.get(k) == nil {
			return wire.NotFound("this master does not run the %s", k)
		}
		s.sup.setWant(k, false)
	}
	return nil
}

func (s *Server) restart(in wire.MasterCommand) error {
	for _, k := range s.targets(in) {
		if s.sup.get(k) == nil {
			return wire.NotFound("this master does not run the %s", k)
		}
		s.sup.restartDaemon(k)
	}
	return nil
}

// handleReconfig is kite reconfig: its answer names the changed keys
// that need a restart.
func (s *Server) handleReconfig(ctx context.Context, r *wire.Request) (any, error) {
	var keys []string
	res, err := s.command(func(in wire.MasterCommand) (err error) {
		keys, err = s.reconfig(in)
		return err
	})(ctx, r)
	if err != nil {
		return nil, err
	}
	out := res.(wire.MasterDaemons)
	out.NeedRestart = keys
	return out, nil
}

// reconfig reads the configuration again: daemons added to the host's
// list start, removed ones stop, and the others get SIGHUP to reload. It
// returns the keys changed since the start (or the last reconfig) that
// the daemons of this host read only when they start.
func (s *Server) reconfig(in wire.MasterCommand) ([]string, error) {
	if s.cfg.Reload == nil {
		return nil, wire.Unavailable("this master cannot reload its configuration")
	}
	cfg, err := s.cfg.Reload()
	if err != nil {
		return nil, wire.BadRequest("the configuration does not load: %v", err)
	}
	want := cfg.Master.Daemons
	s.mu.Lock()
	ctx, old := s.ctx, s.conf
	s.conf = cfg
	s.mu.Unlock()
	for _, k := range ordered(want, startOrder) {
		if s.sup.get(k) == nil {
			s.sup.add(ctx, k)
		}
	}
	for _, st := range s.sup.statuses() {
		if !slices.Contains(want, st.Name) {
			s.sup.setWant(st.Name, false)
		}
	}
	for _, k := range s.targets(in) {
		if slices.Contains(want, k) {
			s.sup.hangup(k)
		}
	}
	if old == nil {
		return nil, nil
	}
	var restart []string
	for _, key := range config.Changed(old, cfg) {
		if d := config.Daemon(key); !config.AppliesLive(key) && (d == "" || d == "master" || slices.Contains(want, d)) {
			restart = append(restart, key)
		}
	}
	if len(restart) > 0 {
		s.log.Warn("reconfig: changed keys apply only when their daemon restarts", "keys", restart)
	}
	return restart, nil
}

// name is the master's ad name.
func (s *Server) name() string { return "master@" + s.host() }

// host is the host's name in the master ad: the configured one, else the
// host name.
func (s *Server) host() string {
	if s.cfg.Name != "" {
		return s.cfg.Name
	}
	if s.env.Host != "" {
		return s.env.Host
	}
	host, _ := os.Hostname()
	return host
}

// ad is the master ad: where it serves and its daemons' states.
func (s *Server) ad() *classad.Ad {
	s.mu.Lock()
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	ad := classad.NewAd()
	ad.Set(attr.MyType, ast.Str(attr.TypeMaster))
	ad.Set(attr.Name, ast.Str(s.name()))
	ad.Set(attr.Machine, ast.Str(s.host()))
	ad.Set(attr.MyAddress, ast.Str(s.Addr()))
	ad.Set(attr.Member, ast.Str(daemon.MemberName("master", s.Addr())))
	ad.Set(attr.Incarnation, ast.Str(s.env.Incarnation()))
	ad.Set(attr.KiteVersion, ast.Str(daemon.Version))
	ad.Set(attr.DaemonStartTime, ast.Int(s.start.Unix()))
	ad.Set(attr.UpdateSequence, ast.Int(seq))
	var names []ast.Expr
	for _, st := range s.Daemons() {
		names = append(names, ast.Str(st.Name))
		prefix := daemonAttr(st.Name)
		ad.Set(prefix+"State", ast.Str(st.State))
		ad.Set(prefix+"Restarts", ast.Int(int64(st.Restarts)))
		if st.PID > 0 {
			ad.Set(prefix+"Pid", ast.Int(int64(st.PID)))
		}
	}
	ad.Set("Daemons", &ast.List{At: ast.NoPos, Elems: names})
	return ad
}

// daemonAttr spells a daemon kind as an attribute prefix: Schedd, Startd.
func daemonAttr(kind string) string {
	if kind == "" {
		return kind
	}
	return string(kind[0]-'a'+'A') + kind[1:]
}

// advertiseLoop sends the master ad every update interval and soon after
// a daemon's state changes.
func (s *Server) advertiseLoop(ctx context.Context, collectorBack <-chan struct{}) {
	t := time.NewTicker(s.cfg.UpdateInterval)
	defer t.Stop()
	retry := &daemon.UpdateRetry{Log: s.log, What: "master ad", Interval: s.cfg.UpdateInterval}
	for {
		again := retry.Done(s.advertise(ctx))
		select {
		case <-ctx.Done():
			return
		case <-again:
		case <-t.C:
		case <-collectorBack:
		case <-s.dirty:
			// Coalesce a burst of changes.
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// advertise sends the master ad and returns why the collector did not
// take it (nil when ctx ended first: the master is stopping).
func (s *Server) advertise(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	body := classad.AppendJSONArray(nil, []*classad.Ad{s.ad()})
	var res wire.UpdateAdsResult
	if err := s.env.Collector().CallRaw(cctx, "POST", wire.PathAds, body, &res); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

func (s *Server) invalidateAd() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var res wire.InvalidateResult
	inv := wire.Invalidate{Type: attr.TypeMaster, Names: []string{s.name()}}
	if err := s.env.Collector().Call(ctx, "POST", wire.PathInvalidate, inv, &res); err != nil {
		s.log.Debug("invalidating the master ad", "err", err)
	}
}
