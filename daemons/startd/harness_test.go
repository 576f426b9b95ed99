package startd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/collector"
	"github.com/kite-sched/kite/daemons/startd/resources"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// clock is the startd's clock in tests: real time moved on by the test.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// sensors are the machine's load and idle times as a test sets them.
type sensors struct {
	mu       sync.Mutex
	load     float64
	keyboard int64
}

func (s *sensors) LoadAvg() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load
}

func (s *sensors) Idle(time.Time) (int64, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keyboard, s.keyboard
}

func (s *sensors) set(load float64, keyboard int64) {
	s.mu.Lock()
	s.load, s.keyboard = load, keyboard
	s.mu.Unlock()
}

// fakeSchedd is the schedd's side of running jobs: it claims and
// activates over the wire like a schedd, serves input files, keeps the
// outputs and the job events.
type fakeSchedd struct {
	t       *testing.T
	addr    string
	startd  *wire.Client
	mu      sync.Mutex
	inputs  map[string]string
	outputs map[string]string
	claims  map[string]bool // claim ids it holds
	events  chan wire.JobUpdate
	down    bool // job updates answer 503, as from a schedd restarting
	// handNext, when set, gives the claim's next job for the answer to a
	// last event of a startd that takes it (JobUpdate.TakesNext).
	handNext func(u wire.JobUpdate) *wire.Activate
	// batches are the sizes of the requests of several job ends
	// (wire.PathJobUpdates), in order.
	batches []int
	// stall, when set, holds the next job event to come until it is
	// closed (the events after it are not held).
	stall chan struct{}
	// refused counts the job events refused while down.
	refused int
}

func (f *fakeSchedd) mux(p *pooltest.Pool) *wire.Mux {
	m := p.Env("schedd").Mux()
	m.Handle("POST "+wire.PathJobUpdate, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var u wire.JobUpdate
		if err := r.Decode(&u); err != nil {
			return nil, err
		}
		return f.take(u)
	})
	m.Handle("POST "+wire.PathJobUpdates, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var us wire.JobUpdates
		if err := r.Decode(&us); err != nil {
			return nil, err
		}
		f.mu.Lock()
		f.batches = append(f.batches, len(us.Updates))
		f.mu.Unlock()
		var res wire.JobUpdatesResult
		for _, u := range us.Updates {
			res.Results = append(res.Results, wire.Outcome(f.take(u)))
		}
		return res, nil
	})
	m.HandleRaw("GET "+wire.PathJobInput, auth.Daemon, f.serveInput)
	m.HandleRaw("PUT "+wire.PathJobOutput, auth.Daemon, f.takeOutput)
	return m
}

// take takes a job event as a schedd does: refused while down or under
// a claim it does not hold, else recorded (events), with the claim's next
// job in the answer when handNext gives one.
func (f *fakeSchedd) take(u wire.JobUpdate) (any, error) {
	f.mu.Lock()
	stall := f.stall
	f.stall = nil
	f.mu.Unlock()
	if stall != nil {
		<-stall
	}
	f.mu.Lock()
	down := f.down
	if down {
		f.refused++
	}
	f.mu.Unlock()
	if down {
		return nil, wire.Unavailable("restarting")
	}
	if !f.holds(u.ClaimID) {
		return nil, wire.NotFound("job %s does not run under that claim here", u.Job)
	}
	f.events <- u
	f.mu.Lock()
	hand := f.handNext
	f.mu.Unlock()
	if hand != nil && u.TakesNext {
		if next := hand(u); next != nil {
			return wire.JobUpdateResult{Next: next}, nil
		}
	}
	return nil, nil
}

func (f *fakeSchedd) holds(claim string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.claims[claim]
}

func (f *fakeSchedd) serveInput(w http.ResponseWriter, r *wire.Request) error {
	if !f.holds(r.HTTP.Header.Get(wire.HeaderClaim)) {
		return wire.Forbidden("not under that claim")
	}
	f.mu.Lock()
	data, ok := f.inputs[r.HTTP.URL.Query().Get("file")]
	f.mu.Unlock()
	if !ok {
		return wire.NotFound("no input %q", r.HTTP.URL.Query().Get("file"))
	}
	w.Header().Set(wire.HeaderSHA256, sha(data))
	io.WriteString(w, data)
	return nil
}

func (f *fakeSchedd) takeOutput(w http.ResponseWriter, r *wire.Request) error {
	if !f.holds(r.HTTP.Header.Get(wire.HeaderClaim)) {
		return wire.Forbidden("not under that claim")
	}
	name := r.HTTP.URL.Query().Get("file")
	if strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return wire.Forbidden("output %q would leave the job's directory", name)
	}
	b, err := io.ReadAll(r.HTTP.Body)
	if err != nil {
		return err
	}
	if sha(string(b)) != r.HTTP.Header.Get(wire.HeaderSHA256) {
		return wire.BadRequest("checksum")
	}
	f.mu.Lock()
	f.outputs[name] = string(b)
	f.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func sha(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// next waits for the next job event.
func (f *fakeSchedd) next() wire.JobUpdate {
	f.t.Helper()
	select {
	case u := <-f.events:
		return u
	case <-time.After(20 * time.Second):
		f.t.Fatal("no job event")
	}
	return wire.JobUpdate{}
}

// lastEvent waits for a job's last event and checks that its start was
// reported: by a started event first, or, for a job that ended at once,
// in the last event itself.
func (f *fakeSchedd) lastEvent() wire.JobUpdate {
	f.t.Helper()
	u := f.next()
	if u.Event == wire.EventStarted {
		started := u
		if u = f.next(); u.Job != started.Job || u.StartedAt != 0 {
			f.t.Fatalf("after started %+v came %+v", started, u)
		}
		return u
	}
	if u.StartedAt == 0 {
		f.t.Fatalf("a last event without a start: %+v", u)
	}
	return u
}

// claim claims a slot by its ad, as a schedd does after a match.
func (f *fakeSchedd) claim(slot *classad.Ad, job *classad.Ad, lease int) (wire.ClaimResult, error) {
	var res wire.ClaimResult
	req := wire.ClaimRequest{ClaimID: str(slot, "ClaimId"), Slot: str(slot, "Name"), Job: job,
		Schedd: f.addr, ScheddName: "schedd@test", Lease: lease}
	err := f.startd.Call(context.Background(), "POST", wire.PathClaim, req, &res)
	if err == nil {
		f.mu.Lock()
		f.claims[res.ClaimID] = true
		f.mu.Unlock()
	}
	return res, err
}

// setDown makes job updates answer 503, as a schedd restarting does, or
// be taken again.
func (f *fakeSchedd) setDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

// alive sends a claim's keep-alive and returns the job the startd says it
// runs.
func (h *harness) alive(claim string) (string, error) {
	var r wire.AliveResult
	err := h.schedd.startd.Call(context.Background(), "POST", wire.PathAlive, wire.ClaimRef{ClaimID: claim}, &r)
	return r.Job, err
}

func (f *fakeSchedd) call(path string, in any) error {
	return f.startd.Call(context.Background(), "POST", path, in, nil)
}

func str(ad *classad.Ad, name string) string {
	v, _ := classad.EvalAttr(ad, name, nil)
	s, _ := v.StringValue()
	return s
}

func num(ad *classad.Ad, name string) int64 {
	v, _ := classad.EvalAttr(ad, name, nil)
	n, _ := v.IntValue()
	return n
}

// harness is a pool on the in-memory network: a real collector, a
// startd and a fake schedd.
type harness struct {
	t       *testing.T
	pool    *pooltest.Pool
	coll    *collector.Server
	sd      *Server
	schedd  *fakeSchedd
	clock   *clock
	sensors *sensors
	stop    func()
	cfg     Config // the startd's configuration
}

// testMachine is the machine the tests' startds describe.
var testMachine = resources.Machine{Cpus: 4, MemoryMiB: 4096, DiskKiB: 10 << 20, Arch: "X86_64", OpSys: "LINUX",
	OpSysName: "Debian", OpSysMajorVer: 12, OpSysAndVer: "Debian12", KernelVersion: "6.1.0"}

func newHarness(t *testing.T, edit func(*Config)) *harness {
	t.Helper()
	p := pooltest.New(t)
	h := &harness{t: t, pool: p, clock: &clock{}, sensors: &sensors{load: 0.1, keyboard: 100000}}
	h.coll = startCollector(t, p)
	h.schedd = &fakeSchedd{t: t, addr: "schedd:9700", inputs: map[string]string{}, outputs: map[string]string{},
		claims: map[string]bool{}, events: make(chan wire.JobUpdate, 32)}
	serve(t, p, h.schedd.addr, h.schedd.mux(p))
	cfg := ConfigFrom(p.Config)
	cfg.Listen, cfg.Name, cfg.ExecuteDir = "startd:9800", "host1", reachableDir(t)
	cfg.Machine, cfg.Now, cfg.Sensors = &testMachine, h.clock.now, h.sensors
	cfg.PolicyInterval, cfg.UpdateInterval, cfg.UpdateDelay = time.Hour, time.Hour, 5*time.Millisecond
	cfg.KillGrace, cfg.SampleInterval = 500*time.Millisecond, 20*time.Millisecond
	if edit != nil {
		edit(&cfg)
	}
	h.cfg = cfg
	sd, err := New(p.Env("startd"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.sd = sd
	t.Cleanup(func() { // after the startd stopped
		if sd.cgroups != nil {
			if _, err := os.Stat(sd.cgroups.Parent()); !os.IsNotExist(err) {
				t.Errorf("the startd's cgroup %s is left: %v", sd.cgroups.Parent(), err)
			}
		}
	})
	h.stop = runDaemon(t, "startd", sd.Run, sd.Ready())
	h.schedd.startd = p.Client(sd.Addr(), "schedd@test", auth.Daemon)
	return h
}

// inBubble runs a test of the harness in a synctest bubble, its daemons
// on the bubble's fake clock. The machine's benchmark, which measures the
// wall clock, runs before (once per process).
func inBubble(t *testing.T, f func(t *testing.T)) {
	resources.Benchmark()
	synctest.Test(t, f)
}

// reachableDir is an execute directory the slot user can reach: the
// test's temporary directories are private.
func reachableDir(t testing.TB) string {
	dir := t.TempDir()
	for p := dir; p != os.TempDir() && p != "/"; p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	return filepath.Join(dir, "execute")
}

func startCollector(t *testing.T, p *pooltest.Pool) *collector.Server {
	c, err := collector.New(p.Env("collector"), collector.ConfigFrom(p.Config))
	if err != nil {
		t.Fatal(err)
	}
	runDaemon(t, "collector", c.Run, c.Ready())
	return c
}

// runDaemon runs a daemon until the test ends; the function returned
// stops it earlier (once).
func runDaemon(t *testing.T, name string, run func(context.Context) error, ready <-chan struct{}) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("%s: %v", name, err)
			}
		})
	}
	t.Cleanup(stop)
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("%s did not start: %v", name, err)
	}
	return stop
}

// serve serves a mux on the pool's network until the test ends.
func serve(t *testing.T, p *pooltest.Pool, addr string, h http.Handler) {
	l, err := p.Network.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { wire.Serve(ctx, l, h, nil, time.Second, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// ads returns the collector's slot ads, as the negotiator sees them
// (claim ids included).
func (h *harness) ads() map[string]*classad.Ad {
	h.t.Helper()
	out := map[string]*classad.Ad{}
	c := h.pool.Client(h.coll.Addr(), "negotiator@test", auth.Daemon)
	err := c.Stream(context.Background(), "POST", wire.PathQuery, wire.Query{Type: "Machine"}, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err == nil {
			out[str(ad, "Name")] = ad
		}
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// waitAds waits until the collector's ads satisfy cond.
func (h *harness) waitAds(what string, cond func(map[string]*classad.Ad) bool) map[string]*classad.Ad {
	h.t.Helper()
	var ads map[string]*classad.Ad
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ads = h.ads(); cond(ads) {
			return ads
		}
	}
	h.t.Fatalf("timed out waiting for %s; the collector has %s", what, describe(ads))
	return nil
}

// describe lists ads as name state/activity.
func describe(ads map[string]*classad.Ad) string {
	var parts []string
	for name, ad := range ads {
		parts = append(parts, fmt.Sprintf("%s %s/%s", name, str(ad, "State"), str(ad, "Activity")))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// status is a slot's state and activity as the collector shows it.
func status(ads map[string]*classad.Ad, name string) string {
	ad, ok := ads[name]
	if !ok {
		return "absent"
	}
	return str(ad, "State") + "/" + str(ad, "Activity")
}

// slotStatus is a slot's state and activity inside the startd.
func (h *harness) slotStatus(name string) slots.Status {
	h.sd.mu.Lock()
	defer h.sd.mu.Unlock()
	for _, st := range h.sd.all() {
		if st.name == name {
			return st.Status()
		}
	}
	return slots.Status{}
}

func jobAd(t *testing.T, text string) *classad.Ad {
	t.Helper()
	ad, err := classad.ParseOld("ClusterId = 12\nProcId = 0\nOwner = \"alice\"\nUser = \"alice@test\"\nRequestCpus = 1\nRequestMemory = 256\nRequestDisk = 1024\n" + text)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}
