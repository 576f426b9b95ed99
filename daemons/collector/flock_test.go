package collector

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// A collector of a pool that lists another in pool.flock_from (HTCondor's
// FLOCK_FROM, used in ALLOW_WRITE_COLLECTOR) takes that pool's schedds'
// submitter ads, marked with their pool, and nothing else from them.
func TestFlockingPoolsAds(t *testing.T) {
	other := pooltest.New(t)
	otherKey, err := auth.LoadSigningKey(filepath.Join(other.Dir, "pool.key"))
	if err != nil {
		t.Fatal(err)
	}
	p := pooltest.New(t)
	p.Config.Pool.FlockFrom = []string{"pool-a"}
	p.Config.Pool.Peers = map[string]config.Peer{"pool-a": {PublicKey: filepath.Join(other.Dir, "pool.pub")}}
	s := startCollector(t, p, testConfig(p))
	ctx := context.Background()
	tok, err := auth.NewIssuer(otherKey, "pool-a").IssueFlock("schedd@a", p.Name, time.Hour) // a flock token for this pool
	if err != nil {
		t.Fatal(err)
	}
	flocker := wire.NewConnector(wire.ConnectorOptions{Network: p.Network, Token: wire.StaticToken(tok)}).Client(s.Addr())
	home := p.Client(s.Addr(), "schedd@home", auth.Daemon)
	ads := func(text string) []byte { return []byte(text) }

	// The home schedd's submitter and slot.
	if err := home.CallRaw(ctx, "POST", wire.PathAds, ads(`[{"MyType":"Submitter","Name":"bob@x","ScheddName":"s1"},{"MyType":"Machine","Name":"slot1@m"}]`), nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, body, want string
	}{
		{"a machine ad", wire.PathAds, `[{"MyType":"Machine","Name":"slot9@evil"}]`, `may advertise Submitter ads only, not "Machine"`},
		{"the home schedd's submitter", wire.PathAds, `[{"MyType":"Submitter","Name":"bob@x","ScheddName":"s1"}]`, `Submitter "bob@x" is advertised already by this pool`},
		{"a query", wire.PathQuery, `{"type":"Machine"}`, "needs READ"},
		{"invalidate by name", wire.PathInvalidate, `{"type":"Submitter","names":["bob@x"]}`, "by constraint only"},
		{"invalidate machines", wire.PathInvalidate, `{"type":"Machine","constraint":"true"}`, "by constraint only"},
		{"a constraint that closes the parenthesis", wire.PathInvalidate, `{"type":"Submitter","constraint":"false) || (true"}`, "constraint"},
	}
	for _, tt := range tests {
		err := flocker.CallRaw(ctx, "POST", tt.path, ads(tt.body), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}

	if err := flocker.CallRaw(ctx, "POST", wire.PathAds, ads(`[{"MyType":"Submitter","Name":"alice@a","ScheddName":"sa"}]`), nil); err != nil {
		t.Fatal(err)
	}
	reader := p.Client(s.Addr(), "reader", auth.Read)
	byName := map[string]*classad.Ad{}
	for _, ad := range query(t, reader, wire.Query{}) {
		byName[classad.EvalStringOr(ad, attr.Name, "")] = ad
	}
	if len(byName) != 4 { // bob, alice, slot1 and the collector's own ad
		t.Errorf("the collector holds %d ads, want 4: %v", len(byName), byName)
	}
	if got := classad.EvalStringOr(byName["alice@a"], attr.FlockedFrom, ""); got != "pool-a" {
		t.Errorf("the flocked submitter's %s is %q, want pool-a", attr.FlockedFrom, got)
	}
	if _, marked := byName["bob@x"].Lookup(attr.FlockedFrom); marked {
		t.Error("the home submitter is marked as flocked")
	}

	// Taking its ads back removes only its pool's.
	var res wire.InvalidateResult
	if err := flocker.Call(ctx, "POST", wire.PathInvalidate, wire.Invalidate{Type: attr.TypeSubmitter, Constraint: "true"}, &res); err != nil || res.Removed != 1 {
		t.Errorf("invalidate: %+v, %v; want 1 removed", res, err)
	}
	if n := len(query(t, reader, wire.Query{Type: attr.TypeSubmitter})); n != 1 {
		t.Errorf("%d submitters left, want bob's", n)
	}
}
