package startd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/startd/cgroups"
	"github.com/kite-sched/kite/daemons/startd/container"
	"github.com/kite-sched/kite/daemons/startd/devices"
	"github.com/kite-sched/kite/daemons/startd/javabench"
	"github.com/kite-sched/kite/daemons/startd/resources"
	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/wire"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// namedExpr is an attribute of every slot ad.
type namedExpr struct {
	name string
	expr ast.Expr
}

// Server is the startd daemon.
type Server struct {
	env *daemon.Env
	cfg Config
	log *slog.Logger
	// reports is the context of job events on their way to schedds:
	// cancelled once shutdown stops waiting for the jobs.
	reports     context.Context
	stopReports context.CancelFunc
	now         func() time.Time
	sensors     Sensors
	machine     resources.Machine
	host        string
	policy      []namedExpr     // Start, Rank, ... as configured
	attrs       []namedExpr     // [startd.attributes]
	policyAd    *classad.Ad     // the policy alone, when it reads nothing else (policyad.go)
	plugins     *xferplugin.Set // nil: no URL transfers
	methods     string          // the plugins' methods, comma-separated, for slot ads
	java        *javabench.Info // nil: no JVM
	containers  container.Detection
	cgroups     *cgroups.Manager
	start       time.Time
	ready       chan struct{}
	wake        chan struct{} // the advertiser's: something changed
	// freed is set when slots become free (a claim ends; the startd
	// starts): the next update that shows them asks the negotiator for a
	// cycle, so that idle jobs need not wait for its interval.
	freed   bool
	jobs    sync.WaitGroup
	files   *http.Client // file transfer with schedds
	reg     *prometheus.Registry
	met     *startdMetrics
	mon     *monitor    // node monitoring (monitor.go)
	crashed atomic.Bool // Kill was called (kill.go)
	ends    endBatches  // job ends on their way to schedds (endbatch.go)

	// devices are the custom machine resources, GPUs among them;
	// withinLimits the slots' WithinResourceLimits, which covers them.
	devices      []devices.Resource
	withinLimits ast.Expr
	confiner     *devices.Confiner // nil: jobs are not kept from others' GPUs

	mu            sync.Mutex
	orphans       map[string]*orphanResult // results a killed startd left, by claim (results.go)
	results       *resultLog               // jobs' last events on their way (results.go); nil keeps none
	addr, member  string
	slots         []*slotState // static and partitionable, in order
	gone          []string     // removed dynamic slots, to invalidate
	seq           int64        // update sequence number
	load          float64
	keyboardIdle  int64
	consoleIdle   int64
	kflops, mips  int64
	lastBenchmark time.Time
	draining      bool
	graceful      bool // a graceful drain lets jobs finish
	stopping      bool
	node          *membership.Node // gossip, while Run runs
	kill          func()           // Kill's way to stop Run at once
}

// New returns a startd for the machine; Run starts it. It detects the
// machine, lays out its slots and checks the policy; a problem with any
// is an error and the startd does not start.
func New(env *daemon.Env, cfg Config) (*Server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := &Server{env: env, cfg: cfg, log: env.Log.With("component", "startd"), now: cfg.Now,
		sensors: cfg.Sensors, host: cfg.Name, ready: make(chan struct{}), wake: make(chan struct{}, 1),
		files: newFileClient(env)}
	if s.now == nil {
		s.now = time.Now
	}
	s.reports, s.stopReports = context.WithCancel(context.Background())
	s.freed = true // the first ads offer new slots
	if s.host == "" {
		s.host = env.Host
	}
	s.start = s.now()
	if err := s.openMonitor(); err != nil {
		return nil, err
	}
	left, err := s.prepareExecuteDir()
	if err != nil {
		return nil, err
	}
	s.mon.recover(left)
	steps := []func() error{s.detect, s.detectDevices, s.compilePolicy, s.loadPlugins, s.detectJava, s.detectContainers, s.layout}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("startd: %w", err)
		}
	}
	if s.sensors == nil {
		s.sensors = machineSensors{resources.NewIdle(cfg.ConsoleDevices)}
	}
	s.reg, s.met = s.newMetrics()
	return s, nil
}

// prepareExecuteDir makes the execute directory and removes sandboxes an
// earlier startd left; it returns when each was made (node monitoring
// counts their jobs as aborted).
func (s *Server) prepareExecuteDir() ([]time.Time, error) {
	dir := s.cfg.ExecuteDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("startd: execute directory: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("startd: execute directory: %w", err)
	}
	var left []time.Time
	for _, e := range entries {
		spare := strings.HasPrefix(e.Name(), sandbox.SparePrefix)
		if !spare && !strings.HasPrefix(e.Name(), sandbox.Prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if fi, err := e.Info(); !spare && (err != nil || !sandbox.Parked(fi)) { // a job was running there
			s.log.Info("removing a sandbox left behind", "dir", e.Name())
			left = append(left, sandboxMade(p))
		}
		if err := os.RemoveAll(p); err != nil {
			s.log.Warn("a sandbox left behind cannot be removed", "dir", e.Name(), "err", err)
		}
	}
	return left, nil
}

// detect finds the machine's resources; configured amounts replace
// detected ones, and what neither gives is an error.
func (s *Server) detect() error {
	var m resources.Machine
	var err error
	if s.cfg.Machine != nil {
		m = *s.cfg.Machine
	} else {
		m, err = resources.Detect(s.cfg.ExecuteDir)
	}
	for _, o := range []struct {
		set  int64
		into *int64
	}{{s.cfg.Cpus, &m.Cpus}, {s.cfg.Memory, &m.MemoryMiB}, {s.cfg.Disk, &m.DiskKiB}} {
		if o.set > 0 {
			*o.into = o.set
		}
	}
	if m.Cpus < 1 || m.MemoryMiB < 1 {
		return fmt.Errorf("the machine's cpus and memory are unknown (%v): set startd.cpus and startd.memory", err)
	}
	s.machine = m
	return nil
}

// compilePolicy parses the policy expressions and the host's attributes.
func (s *Server) compilePolicy() error {
	for _, p := range s.cfg.Policy {
		e, err := classad.ParseExpr(p.Src, classad.Filename(p.Key))
		if err != nil {
			return err
		}
		s.policy = append(s.policy, namedExpr{p.Attr, e})
	}
	for _, name := range sortedNames(s.cfg.Attributes) {
		e, err := config.AttributeExpr(s.cfg.Attributes[name], "startd.attributes."+name)
		if err != nil {
			return err
		}
		s.attrs = append(s.attrs, namedExpr{name, e})
	}
	s.policyAd = policyOnlyAd(s.policy)
	return nil
}

// loadPlugins asks the configured file transfer plugins what they serve
// (HTCondor's FILETRANSFER_PLUGINS query); a plugin that does not answer
// is left out with a warning, as HTCondor leaves it out. Their StartdAttrs
// join the host's attributes.
func (s *Server) loadPlugins() error {
	if !s.cfg.URLTransfers {
		return nil
	}
	s.plugins = xferplugin.Load(context.Background(), s.cfg.Plugins, func(path string, err error) {
		s.log.Warn("file transfer plugin left out", "plugin", path, "err", err)
	})
	for _, a := range s.plugins.Attrs() {
		s.attrs = append(s.attrs, namedExpr{a.Name, a.Expr})
	}
	s.methods = strings.Join(s.plugins.Methods(), ",")
	return nil
}

// layout divides the machine into slots, each with a claim id, a user
// and its SITA-E interval.
func (s *Server) layout() error {
	m := s.machine
	laid, err := slots.Layout(slots.Resources{Cpus: m.Cpus, Memory: m.MemoryMiB, Disk: m.DiskKiB}, s.machineDevices(), s.cfg.Layout, s.start)
	if err != nil {
		return err
	}
	users := map[string]*starter.User{}
	for _, sl := range laid {
		st := &slotState{Slot: sl, name: s.fullName(sl.Name()), claimID: newClaimID()}
		if sl.User == "" {
			sl.User = s.cfg.SlotUser
		}
		if st.user, err = s.slotUser(sl.User, users); err != nil {
			return err
		}
		if err := s.sitaFor(st); err != nil {
			return err
		}
		s.slots = append(s.slots, st)
	}
	return nil
}

func (s *Server) fullName(short string) string { return short + "@" + s.host }

// sitaFor sets a slot's SITA-E attributes and its Requirements.
func (s *Server) sitaFor(st *slotState) error {
	attrs, clause, err := sita.HostAd(s.cfg.Sita, s.host, st.name)
	if err != nil {
		return fmt.Errorf("%s: SITA-E: %w", st.name, err)
	}
	st.sitaAttrs = attrs
	req := "START && WithinResourceLimits"
	if clause != "" {
		req += " && " + clause
	}
	st.requirements, err = classad.ParseExpr(req)
	return err
}

// slotUser resolves the account a slot's jobs run as: only a startd
// running as root switches users.
func (s *Server) slotUser(name string, known map[string]*starter.User) (*starter.User, error) {
	if name == "" || os.Geteuid() != 0 {
		return nil, nil
	}
	if u, ok := known[name]; ok {
		return u, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("slot user %q: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if uid == 0 {
		return nil, fmt.Errorf("slot user %q is root: jobs must not run as root", name)
	}
	if err := sandbox.CheckReachable(s.cfg.ExecuteDir, uid, gid); err != nil {
		return nil, fmt.Errorf("slot user %q cannot reach the execute directory: %w (set startd.execute_dir to a directory it can reach, such as /var/lib/kite/execute)", name, err)
	}
	known[name] = &starter.User{Name: name, UID: uid, GID: gid}
	return known[name], nil
}

// setupCgroups finds cgroup v2 for the jobs; without it jobs still run.
func (s *Server) setupCgroups() {
	if !s.cfg.Cgroups {
		return
	}
	m, err := cgroups.Detect(s.cfg.CgroupParent, cgroupScope(s.cfg.ExecuteDir))
	if err != nil {
		s.log.Info("jobs run without cgroups", "reason", err)
		return
	}
	n, err := m.Cleanup()
	if err != nil {
		s.log.Warn("job cgroups left behind", "count", n, "err", err)
	} else if n > 0 {
		s.log.Info("removed job cgroups left behind", "count", n)
	}
	s.log.Info("jobs run in cgroups", "parent", m.Parent(), "memory", m.Has("memory"), "cpu", m.Has("cpu"))
	s.cgroups = m
}

// cgroupScope names a startd's own cgroup after its execute directory:
// two startds of a host have different ones, and a restarted startd finds
// the groups its predecessor left.
func cgroupScope(executeDir string) string {
	abs, _ := filepath.Abs(executeDir)
	sum := sha256.Sum256([]byte(abs))
	return "kite_startd_" + hex.EncodeToString(sum[:6])
}

// Ready is closed once the startd serves requests.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr returns the address the startd serves (valid once Ready).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Run serves until ctx is done, then vacates its jobs (they go back to
// their schedds as evicted), withdraws its ads and leaves the gossip.
func (s *Server) Run(ctx context.Context) error {
	l, err := s.env.Listen(s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("startd: %w", err)
	}
	addr := wire.HostPort(l)
	s.mu.Lock()
	s.addr, s.member = addr, daemon.MemberName("startd", addr)
	s.mu.Unlock()
	node, err := s.env.JoinPool(ctx, "startd", s.member, addr)
	if err != nil {
		l.Close()
		return fmt.Errorf("startd: %w", err)
	}
	s.setupCgroups()
	loops, stopLoops := context.WithCancel(context.WithoutCancel(ctx))
	defer stopLoops()
	serving, stopServing := context.WithCancel(ctx)
	defer stopServing()
	s.mu.Lock()
	s.node, s.kill = node, func() { stopLoops(); stopServing() }
	s.mu.Unlock()
	s.begin()
	if err := s.reportLeftResults(s.reports); err != nil {
		s.log.Warn("the results of jobs that ended before the startd stopped are not reported", "err", err)
	}
	back := s.env.WatchCollector(loops, node, nil)
	var wg sync.WaitGroup
	wg.Go(func() { s.advertise(loops, back) })
	wg.Go(func() { s.policyLoop(loops) })
	wg.Go(func() {
		s.mon.run(loops, min(s.cfg.UpdateInterval, time.Minute), min(s.cfg.UpdateDelay, time.Second), s.now)
	})
	s.log.Info("serving", "addr", addr, "slots", len(s.slots), "cpus", s.machine.Cpus, "memory_mib", s.machine.MemoryMiB)
	close(s.ready)
	err = wire.Serve(serving, l, s.mux(), s.env.ServerTLS, 5*time.Second, s.log)
	if s.crashed.Load() {
		s.crash(stopLoops, &wg)
		return nil
	}
	s.shutdown()
	stopLoops()
	wg.Wait()
	if merr := s.mon.end(s.now()); merr != nil {
		s.log.Error("node monitoring record not written", "err", merr)
	}
	s.withdraw()
	s.files.CloseIdleConnections()
	if s.cgroups != nil {
		if err := s.cgroups.Close(); err != nil {
			s.log.Warn("removing the startd's cgroups", "err", err)
		}
	}
	if node != nil {
		node.Leave(time.Second)
	}
	return err
}

// mux builds the startd's endpoints.
func (s *Server) mux() *wire.Mux {
	m := s.env.Mux()
	m.SetMaxBody(16 << 20) // a claim carries the job's ad
	m.Handle("POST "+wire.PathClaim, auth.Flock, s.handleClaim)
	m.Handle("POST "+wire.PathActivate, auth.Flock, s.handleActivate)
	m.Handle("POST "+wire.PathAlive, auth.Flock, s.handleAlive)
	m.Handle("POST "+wire.PathRelease, auth.Flock, s.handleRelease)
	m.Handle("POST "+wire.PathVacate, auth.Flock, s.handleVacate)
	m.Handle("POST "+wire.PathClaimFile, auth.Flock, s.handleClaimFile)
	m.HandleRaw("POST "+wire.PathClaimShell, auth.Flock, s.handleClaimShell)
	m.SetMaxBody(64 << 10) // the tools' requests name a few slots
	m.Handle("GET "+PathSlots, auth.Read, s.handleSlots)
	m.Handle("POST "+PathDrain, auth.Administrator, s.handleDrain)
	m.Handle("POST "+PathDrainCancel, auth.Administrator, s.handleCancelDrain)
	metrics.Serve(m, s.reg)
	return m
}

// Metrics returns the startd's Prometheus registry.
func (s *Server) Metrics() *prometheus.Registry { return s.reg }

// begin brings the slots out of Owner (as the policy says) and runs the
// benchmark in the slots that are then unclaimed.
func (s *Server) begin() {
	s.sense()
	s.mu.Lock()
	s.evaluate()
	var bench []*slotState
	for _, st := range s.slots {
		if slots.Allows(st.Status(), slots.Benchmark) && s.apply(st, slots.Benchmark) {
			bench = append(bench, st)
		}
	}
	s.mu.Unlock()
	kflops, mips := resources.Benchmark()
	benchMs := s.cfg.BenchmarkMs
	if benchMs <= 0 {
		benchMs = benchmarkMs(kflops, mips)
	}
	if err := s.mon.begin(s.now(), benchMs); err != nil {
		s.log.Error("node monitoring record not written", "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kflops, s.mips, s.lastBenchmark = kflops, mips, s.now()
	for _, st := range bench {
		s.apply(st, slots.BenchmarkDone)
	}
}

// shutdown vacates every job and waits for them to be gone, at most the
// kill grace and a little more.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.stopping = true
	for _, st := range s.all() {
		if st.claim != nil {
			s.endClaim(st, "the startd is shutting down", false)
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.jobs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.cfg.KillGrace + 10*time.Second):
		s.log.Warn("jobs still stopping at shutdown")
	}
	s.stopReports()
}

// machineSensors reads this machine's load and idle times.
type machineSensors struct{ idle *resources.Idle }

// LoadAvg reads the one-minute load average.
func (m machineSensors) LoadAvg() float64 {
	l, _ := resources.LoadAvg()
	return l
}

// Idle reads the keyboard and console idle times.
func (m machineSensors) Idle(now time.Time) (int64, int64) { return m.idle.Sample(now) }

var errStopping = errors.New("the startd is shutting down")
