package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// Flocking between pools, HTCondor's "Connecting HTCondor Pools with
// Flocking" (docs/grid-computing/connecting-pools-with-flocking.rst):
// three pools with their own keys on one network, each daemon with its
// own pool's tokens. Pool A has no machine and flocks to B (FLOCK_TO);
// B trusts A (FLOCK_FROM) but not C, which flocks to B too. The network
// records the bearer tokens each daemon is sent: every token that crosses
// from one pool to another is a flock token for the pool it goes to.

// flockPool makes a test pool named name whose collector serves at
// collector, on the network net (nil: a network of its own).
func flockPool(t *testing.T, name, collector string, net wire.Network) *pooltest.Pool {
	t.Helper()
	p := pooltest.New(t)
	key, err := auth.LoadSigningKey(filepath.Join(p.Dir, "pool.key"))
	if err != nil {
		t.Fatal(err)
	}
	p.Name, p.Issuer = name, auth.NewIssuer(key, name)
	p.Config.Pool.Name = name
	p.Config.Pool.Collector, p.Config.Collector.Listen = collector, collector
	if net != nil {
		p.Network = net
	}
	return p
}

// peer is pool p as another pool's configuration describes it.
func peer(p *pooltest.Pool) config.Peer {
	return config.Peer{Collectors: []string{p.Config.Pool.Collector}, PublicKey: filepath.Join(p.Dir, "pool.pub")}
}

// flocksTo makes p's schedds flock to the pools to, at once.
func flocksTo(p *pooltest.Pool, to ...*pooltest.Pool) {
	p.Config.Pool.Peers = map[string]config.Peer{}
	for _, o := range to {
		p.Config.Pool.Peers[o.Name] = peer(o)
		p.Config.Schedd.FlockTo = append(p.Config.Schedd.FlockTo, o.Name)
	}
	p.Config.Schedd.FlockAfter = config.Seconds(0.02)
}

// submitterPool starts a pool with a collector, a negotiator and a
// schedd, and no machine.
func submitterPool(t *testing.T, p *pooltest.Pool, schedd string) (*pool, *schedd.Server) {
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator-"+p.Name+":1", 5*time.Millisecond, time.Second
	})
	s := start.Schedd(t, p, schedd, nil)
	return &pool{t: t, p: p, user: p.Client(schedd, "alice", auth.Write),
		admin: p.Client(schedd, "root", auth.Administrator), startd: map[string]*startd.Server{}}, s
}

func TestFlockingRunsJobsInAnotherPool(t *testing.T) {
	a := flockPool(t, "pool-a", "collector-a:9618", nil)
	tokens := &sniffer{Network: a.Network}
	a.Network = tokens
	b := flockPool(t, "pool-b", "collector-b:9618", a.Network)
	c := flockPool(t, "pool-c", "collector-c:9618", a.Network)
	flocksTo(a, b)
	flocksTo(c, b)
	// C trusts A (its startds would take A's claims), so that a token of
	// A's replayed at C is refused for what it is, not for its issuer.
	c.Config.Pool.Peers["pool-a"] = peer(a)
	c.Config.Pool.FlockFrom = []string{"pool-a"}
	b.Config.Pool.FlockFrom = []string{"pool-a"}
	b.Config.Pool.Peers = map[string]config.Peer{"pool-a": peer(a)}
	b.Config.Startd.Slots, b.Config.Startd.Cpus, b.Config.Startd.Partitionable = 2, 2, false
	b.Config.Startd.Memory = 1024
	// B lends its machines to pool A's jobs only: the request ads and the
	// claims of A's schedd carry the mark, its own jobs would not.
	b.Config.Startd.Start = `TARGET.KiteFlockedFrom == "pool-a"`

	// Pool B: machines, and no schedd of its own.
	start.Collector(t, b)
	start.Negotiator(t, b, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator-b:1", 5*time.Millisecond, 100*time.Millisecond
	})
	start.Startd(t, b, "startd-b:1", "machine-b", nil)
	// Pools A and C: a schedd each, no machine.
	pa, sa := submitterPool(t, a, "schedd-a:1")
	pc, sc := submitterPool(t, c, "schedd-c:1")

	dir := t.TempDir()
	writeWordCountJob(dir)
	id := fmt.Sprintf("%d.0", pa.submit(dir, wordCountJob))
	ad := pa.waitStatus(id, attr.Completed)
	checkWordCountJob(t, ad, dir)
	if got, pool := str(ad, attr.LastRemoteHost), str(ad, "RemotePool"); !strings.Contains(got, "machine-b") || pool != "pool-b" {
		t.Errorf("the job ran on %q of pool %q, want a slot of machine-b in pool-b", got, pool)
	}
	if h := history(t, pa, id); h == nil || str(h, attr.ExitCode) != "3" {
		t.Errorf("the history's ad of %s: %v", id, h)
	}
	checkFlockTokens(t, a, tokens.seen())

	// No idle job left: A's schedd takes its ads back from B, whose
	// negotiator it then refuses, as it refuses any other pool's daemons
	// and B's users.
	waitFor(t, "pool A's submitters to leave pool B", func() (string, bool) {
		level, _ := sa.FlockLevel()
		return fmt.Sprintf("level %d, %d submitters", level, len(submitters(t, b))), level == 0 && len(submitters(t, b)) == 0
	})
	ctx := context.Background()
	q := wire.RequestsQuery{Submitter: "alice@test"}
	for _, tt := range []struct {
		name string
		cl   *wire.Client
		want string
	}{
		{"pool B's negotiator", flockClient(t, b, "schedd-a:1", "pool-a"), `negotiator@test of pool "pool-b": this schedd does not flock to that pool now`},
		{"pool B's negotiator with its DAEMON token", b.Client("schedd-a:1", "negotiator@test", auth.Daemon),
			`negotiator@test of pool "pool-b" holds DAEMON for any daemon of its pool; a pool trusted for flocking must send a flock token for this pool (FLOCK only, audience "pool-a")`},
		{"pool C's negotiator", c.Client("schedd-a:1", "negotiator@test", auth.Daemon), `issued by pool "pool-c", which this pool does not trust (schedd.flock_to lists pool-b)`},
		{"pool B's user", b.Client("schedd-a:1", "alice", auth.Write), "a pool trusted for flocking must send a flock token for this pool"},
	} {
		if err := tt.cl.Call(ctx, "POST", wire.PathResourceRequests, q, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}

	// Pool C is not in B's flock_from: its schedd's ads are refused, with
	// the reason in its log and its ad, and its job stays idle.
	cdir := t.TempDir()
	os.WriteFile(filepath.Join(cdir, "in.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(cdir, "job.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	cid := fmt.Sprintf("%d.0", pc.submit(cdir, wordCountJob))
	const why = `issued by pool "pool-c", which this pool does not trust (pool.flock_from lists pool-a)`
	reason := waitFor(t, "pool C's schedd to be refused by pool B", func() (string, bool) {
		_, errs := sc.FlockLevel()
		return errs["pool-b"], strings.Contains(errs["pool-b"], why)
	})
	t.Logf("pool C refused: %s", reason)
	waitFor(t, "pool C's schedd ad to show the refusal", func() (string, bool) {
		s := str(scheddAd(t, c, "schedd-c:1"), "KiteFlockErrors")
		return s, strings.Contains(s, "pool-b: ") && strings.Contains(s, why)
	})
	if st := status(pc.job(cid)); st != attr.Idle {
		t.Errorf("pool C's job has status %d, want idle", st)
	}
	for _, s := range submitters(t, b) {
		if str(s, attr.ScheddName) == "schedd-c:1" {
			t.Errorf("pool B's collector holds a submitter ad of pool C: %v", s)
		}
	}
}

// waitFor polls cond (bounded) until it holds and returns what it saw.
func waitFor(t *testing.T, what string, cond func() (string, bool)) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, ok := cond()
		if ok {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: last saw %q", what, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// history returns a job's ad from the schedd's history.
func history(t *testing.T, pl *pool, id string) *classad.Ad {
	t.Helper()
	var found *classad.Ad
	err := pl.user.Stream(context.Background(), "POST", wire.PathHistory, wire.HistoryQuery{IDs: []string{id}}, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		found = ad
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// collectorAds returns the ads of a type in pool p's collector.
func collectorAds(t *testing.T, p *pooltest.Pool, q wire.Query) []*classad.Ad {
	t.Helper()
	var out []*classad.Ad
	cl := p.Client(p.Config.Pool.Collector, "reader", auth.Read)
	err := cl.Stream(context.Background(), "POST", wire.PathQuery, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		out = append(out, ad)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func submitters(t *testing.T, p *pooltest.Pool) []*classad.Ad {
	return collectorAds(t, p, wire.Query{Type: attr.TypeSubmitter})
}

// scheddAd returns the ad of the schedd name in pool p's collector.
func scheddAd(t *testing.T, p *pooltest.Pool, name string) *classad.Ad {
	t.Helper()
	for _, ad := range collectorAds(t, p, wire.Query{Type: attr.TypeScheduler}) {
		if str(ad, attr.Name) == name {
			return ad
		}
	}
	return nil
}

// flockClient is a client for the daemon at addr presenting a flock token
// that pool p issued for the pool audience.
func flockClient(t *testing.T, p *pooltest.Pool, addr, audience string) *wire.Client {
	t.Helper()
	tok, err := p.Issuer.IssueFlock("negotiator@test", audience, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return wire.NewConnector(wire.ConnectorOptions{Network: p.Network, Token: wire.StaticToken(tok)}).Client(addr)
}

// tokenClaims is what the test reads of a token.
type tokenClaims struct {
	jwt.RegisteredClaims
	Scope string `json:"scope"`
}

// checkFlockTokens checks the bearer tokens the daemons of the three
// pools were sent (seen: by address called): a token that goes to another
// pool's daemon is a flock token for that pool (FLOCK only, aud that
// pool), never its issuer's DAEMON token; pool B's collector and startd
// and pool A's schedd each got some. Such a token, replayed at the pool
// that issued it or at a third pool, is refused (a pool cannot reuse the
// tokens it receives).
func checkFlockTokens(t *testing.T, a *pooltest.Pool, seen map[string][]string) {
	t.Helper()
	crossed := map[string]string{} // address → a token of another pool it got
	for addr, toks := range seen {
		host, _, _ := strings.Cut(addr, ":")
		to := "pool-" + host[strings.LastIndexByte(host, '-')+1:] // collector-b, negotiator-pool-b, startd-b: pool-b
		for _, tok := range toks {
			var c tokenClaims
			if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil {
				t.Errorf("%s got a bearer token that is not a JWT: %v", addr, err)
				continue
			}
			if c.Issuer == to {
				continue
			}
			crossed[addr] = tok
			if len(c.Audience) != 1 || c.Audience[0] != to || c.Scope != "FLOCK" {
				t.Errorf("%s (%s) got a token of %s for %v with %q, want a flock token for %s (FLOCK only)", addr, to, c.Issuer, c.Audience, c.Scope, to)
			}
		}
	}
	for _, addr := range []string{"collector-b:9618", "startd-b:1", "schedd-a:1"} {
		if crossed[addr] == "" {
			t.Errorf("%s got no token of another pool; seen: %v", addr, seen)
		}
	}
	ctx := context.Background()
	call := func(tok, addr, method, path string, in any) error {
		cl := wire.NewConnector(wire.ConnectorOptions{Network: a.Network, Token: wire.StaticToken(tok)}).Client(addr)
		return cl.Call(ctx, method, path, in, nil)
	}
	ads := []map[string]any{{"MyType": "Submitter", "Name": "mallory@test"}}
	for _, tt := range []struct {
		name, tok, addr, method, path string
		in                            any
		want                          string
	}{
		// Pool B replays what pool A's schedd sent its collector.
		{"A's token for B at A's schedd", crossed["collector-b:9618"], "schedd-a:1", "POST", wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test"},
			`it was issued for pool "pool-b", not for this pool ("pool-a")`},
		{"A's token for B at pool C's collector", crossed["collector-b:9618"], "collector-c:9618", "POST", wire.PathAds, ads,
			`it was issued for pool "pool-b", not for this pool ("pool-c")`},
		// Pool A replays what pool B's daemons sent its schedd.
		{"B's token for A at B's collector", crossed["schedd-a:1"], "collector-b:9618", "POST", wire.PathAds, ads,
			`it was issued for pool "pool-a", not for this pool ("pool-b")`},
		{"B's token for A at B's startd", crossed["schedd-a:1"], "startd-b:1", "POST", wire.PathAlive, wire.ClaimRef{ClaimID: "x"},
			`it was issued for pool "pool-a", not for this pool ("pool-b")`},
	} {
		if tt.tok == "" {
			continue // reported above
		}
		if err := call(tt.tok, tt.addr, tt.method, tt.path, tt.in); err == nil || !strings.Contains(err.Error(), tt.want) || !wire.IsCode(err, wire.CodeUnauthenticated) {
			t.Errorf("%s: %v, want a 401 with %q", tt.name, err, tt.want)
		}
	}
}

// sniffer is a network that records the bearer tokens written on the
// connections to each address.
type sniffer struct {
	wire.Network
	mu     sync.Mutex
	tokens map[string]map[string]bool
}

func (n *sniffer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := n.Network.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &sniffConn{Conn: c, n: n, addr: addr}, nil
}

func (n *sniffer) record(addr, tok string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.tokens == nil {
		n.tokens = map[string]map[string]bool{}
	}
	if n.tokens[addr] == nil {
		n.tokens[addr] = map[string]bool{}
	}
	n.tokens[addr][tok] = true
}

// seen returns the tokens recorded so far, by address.
func (n *sniffer) seen() map[string][]string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[string][]string{}
	for addr, toks := range n.tokens {
		for tok := range toks {
			out[addr] = append(out[addr], tok)
		}
	}
	return out
}

// sniffConn finds the Authorization headers in what is written.
type sniffConn struct {
	net.Conn
	n    *sniffer
	addr string
	buf  []byte
}

func (c *sniffConn) Write(p []byte) (int, error) {
	const header = "\r\nAuthorization: Bearer "
	c.buf = append(c.buf, p...)
	for {
		i := bytes.Index(c.buf, []byte(header))
		if i < 0 {
			break
		}
		end := bytes.Index(c.buf[i+len(header):], []byte("\r\n"))
		if end < 0 {
			break
		}
		c.n.record(c.addr, string(c.buf[i+len(header):i+len(header)+end]))
		c.buf = c.buf[i+len(header)+end:]
	}
	if keep := 8 << 10; len(c.buf) > 2*keep { // a body: keep its end, where a header may begin
		c.buf = append(c.buf[:0], c.buf[len(c.buf)-keep:]...)
	}
	return c.Conn.Write(p)
}
