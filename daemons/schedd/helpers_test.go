package schedd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// testConfig is a schedd configuration for tests: a spool in a temporary
// directory, quick updates, no periodic policy unless a test asks.
func testConfig(t testing.TB) Config {
	return Config{
		Listen: "schedd:0", Name: "schedd@test", Spool: t.TempDir(), UIDDomain: "test.org",
		PeriodicInterval: time.Hour, UpdateInterval: time.Hour, UpdateDelay: 5 * time.Millisecond,
		ClaimLease: time.Minute, MaxBodyBytes: 64 << 20, IdentityMap: pooltest.IdentityMap(t),
	}
}

// harness is a schedd running in a test pool.
type harness struct {
	t      testing.TB
	pool   *pooltest.Pool
	s      *Server
	cancel context.CancelFunc
	done   chan error
}

func startSchedd(t testing.TB, p *pooltest.Pool, cfg Config) *harness {
	t.Helper()
	s, err := New(p.Env("schedd"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, pool: p, s: s, cancel: cancel, done: make(chan error, 1)}
	go func() { h.done <- s.Run(ctx) }()
	t.Cleanup(h.stop)
	select {
	case <-s.Ready():
	case err := <-h.done:
		h.cancel() // stopped: its cleanup has nothing to wait for
		h.cancel = nil
		t.Fatal(err)
	}
	return h
}

func (h *harness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	if err := <-h.done; err != nil && err != context.Canceled {
		h.t.Errorf("schedd: %v", err)
	}
	h.cancel = nil
}

// client is a tool's client as identity with levels.
func (h *harness) client(identity string, levels auth.Level) *wire.Client {
	return h.pool.Client(h.s.Addr(), identity, levels)
}

// submitText submits a submit description as identity, from dir.
func (h *harness) submitText(identity, dir, text string) (wire.SubmitResult, error) {
	h.t.Helper()
	c := h.client(identity, auth.Write)
	d, _, err := submit.Parse("job.sub", []byte(text))
	if err != nil {
		h.t.Fatal(err)
	}
	var nc wire.NewCluster
	if err := c.Call(context.Background(), "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return wire.SubmitResult{}, err
	}
	env := submit.Env{Cluster: int(nc.Cluster), Owner: nc.Owner, Dir: dir,
		Host: submit.HostInfo{Arch: "X86_64", OpSys: "LINUX", OpSysAndVer: "Debian12", FileSystemDomain: "test.org"}}
	cl, _, err := d.Expand(env)
	if err != nil {
		h.t.Fatal(err)
	}
	body := classad.AppendJSONArray(nil, append([]*classad.Ad{cl.Ad}, cl.Procs...))
	var res wire.SubmitResult
	err = c.CallRaw(context.Background(), "POST", wire.PathSubmit+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res)
	return res, err
}

func (h *harness) mustSubmit(identity, dir, text string) int64 {
	h.t.Helper()
	res, err := h.submitText(identity, dir, text)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.Cluster
}

// query returns the job ads a query streams.
func (h *harness) query(identity string, q wire.JobQuery) []*classad.Ad {
	h.t.Helper()
	return streamQuery(h.t, h.client(identity, auth.Read), wire.PathQueue, q)
}

func streamQuery(t testing.TB, c *wire.Client, path string, q any) []*classad.Ad {
	t.Helper()
	var ads []*classad.Ad
	err := c.Stream(context.Background(), "POST", path, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		ads = append(ads, ad)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ads
}

// summary prints chosen attributes of ads, one ad per line.
func summary(ads []*classad.Ad, names ...string) string {
	var lines []string
	for _, ad := range ads {
		var parts []string
		for _, n := range names {
			v, _ := classad.EvalAttr(ad, n, nil)
			if r, ok := v.RealValue(); ok {
				parts = append(parts, strconv.FormatFloat(r, 'g', -1, 64))
				continue
			}
			parts = append(parts, v.String())
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	return strings.Join(lines, "\n")
}

// eventually waits for cond, failing after a few seconds.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// readLog returns the event codes of a user log, as "005 1.0" lines.
func readLog(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if len(l) > 4 && l[3] == ' ' && l[4] == '(' {
			var code, c, p int
			fmt.Sscanf(l, "%03d (%d.%d.", &code, &c, &p)
			out = append(out, fmt.Sprintf("%03d %d.%d", code, c, p))
		}
	}
	return strings.Join(out, "\n")
}

// fakeCollector records ads and answers queries for Negotiator ads.
type fakeCollector struct {
	mu         sync.Mutex
	ads        map[string]*classad.Ad // by type/name
	negotiator string
	slot       *classad.Ad // the answer to queries for slot ads
}

func newFakeCollector(t testing.TB, p *pooltest.Pool) *fakeCollector {
	f := &fakeCollector{ads: map[string]*classad.Ad{}}
	m := wire.NewMux(auth.NewVerifier(p.Issuer.Public(), p.Name), nil)
	m.Handle("POST "+wire.PathAds, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		body, _ := r.Body()
		ads, _, err := classad.ParseJSONArray(body)
		if err != nil {
			return nil, wire.BadRequest("%v", err)
		}
		f.mu.Lock()
		for _, ad := range ads {
			f.ads[str(ad, "MyType")+"/"+str(ad, "Name")] = ad
		}
		f.mu.Unlock()
		return wire.UpdateAdsResult{Stored: len(ads)}, nil
	})
	m.Handle("POST "+wire.PathInvalidate, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var inv wire.Invalidate
		r.Decode(&inv)
		f.mu.Lock()
		for _, n := range inv.Names {
			delete(f.ads, inv.Type+"/"+n)
		}
		f.mu.Unlock()
		return wire.InvalidateResult{}, nil
	})
	m.HandleStream("POST "+wire.PathQuery, auth.Read, func(ctx context.Context, r *wire.Request, s *wire.Stream) error {
		var q wire.Query
		r.Decode(&q)
		f.mu.Lock()
		addr, slot := f.negotiator, f.slot
		f.mu.Unlock()
		if q.Type == attr.TypeSlot {
			if slot != nil {
				return s.SendJSON(classad.AppendJSON(nil, slot, false))
			}
			return nil
		}
		if addr != "" {
			return s.SendJSON([]byte(`{"MyAddress":"` + addr + `"}`))
		}
		return nil
	})
	serve(t, p, "collector:9618", m)
	return f
}

func (f *fakeCollector) ad(typ, name string) *classad.Ad {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ads[typ+"/"+name]
}

func str(ad *classad.Ad, name string) string {
	v, _ := classad.EvalAttr(ad, name, nil)
	s, _ := v.StringValue()
	return s
}

// serve serves a mux on the pool's network until the test ends.
func serve(t testing.TB, p *pooltest.Pool, addr string, m *wire.Mux) string {
	l, err := p.Network.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { wire.Serve(ctx, l, m, nil, time.Second, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return wire.HostPort(l)
}

func writeFile(t testing.TB, dir, name, data string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type adT = classad.Ad

// viewOf makes a job view of an ad (as a cluster ad with an empty own ad).
func viewOf(t testing.TB, src string) queue.View {
	return queue.View{Cluster: mustParse(src), Own: mustParse("[]")}
}
