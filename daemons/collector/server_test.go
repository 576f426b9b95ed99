package collector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// startCollector runs a collector in the pool until the test ends.
func startCollector(t *testing.T, p *pooltest.Pool, cfg Config) *Server {
	t.Helper()
	s, err := New(p.Env("collector"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("collector: %v", err)
		}
	})
	select {
	case <-s.Ready():
	case err := <-done:
		t.Fatal(err)
	}
	return s
}

func testConfig(p *pooltest.Pool) Config {
	c := ConfigFrom(p.Config)
	c.MaxBodyBytes = 64 << 10
	return c
}

func query(t *testing.T, c *wire.Client, q wire.Query) []*classad.Ad {
	t.Helper()
	var out []*classad.Ad
	err := c.Stream(context.Background(), "POST", wire.PathQuery, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		out = append(out, ad)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAdvertiseAndQuery(t *testing.T) {
	p := pooltest.New(t)
	s := startCollector(t, p, testConfig(p))
	ctx := context.Background()
	startd := p.Client(s.Addr(), "startd@h1", auth.Daemon)
	var res wire.UpdateAdsResult
	err := startd.Call(ctx, "POST", wire.PathAds, ads(t,
		`[ MyType = "Machine"; Name = "slot1@h1"; Memory = 4096; State = "Unclaimed"; Start = TARGET.RequestMemory <= Memory ]`,
		`[ MyType = "Machine"; Name = "slot2@h1"; Memory = 1024; State = "Claimed" ]`,
	), &res)
	if err != nil || res.Stored != 2 {
		t.Fatalf("update: %+v %v", res, err)
	}
	reader := p.Client(s.Addr(), "alice", auth.Read)
	got := query(t, reader, wire.Query{Type: "Machine", Constraint: `State == "unclaimed"`, Projection: []string{"Name", "Start"}})
	if len(got) != 1 || got[0].Len() != 2 || got[0].String() != `[ Name = "slot1@h1"; Start = TARGET.RequestMemory <= Memory ]` {
		t.Fatalf("query: %v", got)
	}
	collectors := query(t, reader, wire.Query{Type: "Collector"})
	if len(collectors) != 1 {
		t.Fatalf("the collector's own ad: %v", collectors)
	}
	var removed wire.InvalidateResult
	startd.Call(ctx, "POST", wire.PathInvalidate, wire.Invalidate{Type: "Machine", Names: []string{"slot2@h1"}}, &removed)
	if removed.Removed != 1 || len(query(t, reader, wire.Query{Type: "Machine"})) != 1 {
		t.Errorf("invalidate removed %d", removed.Removed)
	}
}

// Requests that must be refused change nothing.
func TestRefusedRequests(t *testing.T) {
	p := pooltest.New(t)
	s := startCollector(t, p, testConfig(p))
	ctx := context.Background()
	good := ads(t, `[ MyType = "Machine"; Name = "slot1@h" ]`)
	foreign := wire.NewConnector(wire.ConnectorOptions{Network: p.Network, Token: wire.StaticToken(pooltest.ForeignToken(t))}).Client(s.Addr())
	anonymous := wire.NewConnector(wire.ConnectorOptions{Network: p.Network}).Client(s.Addr())
	tests := []struct {
		name   string
		client *wire.Client
		code   string
		msg    string
	}{
		{"no token", anonymous, wire.CodeUnauthenticated, "no token"},
		{"another pool's key", foreign, wire.CodeUnauthenticated, "signature does not match"},
		{"a user may not advertise", p.Client(s.Addr(), "alice", auth.Read|auth.Write), wire.CodeForbidden, "alice holds READ,WRITE; POST /v1/ads needs FLOCK"},
	}
	for _, tt := range tests {
		err := tt.client.Call(ctx, "POST", wire.PathAds, good, nil)
		if !wire.IsCode(err, tt.code) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	reader := p.Client(s.Addr(), "alice", auth.Read)
	if n := len(query(t, reader, wire.Query{Type: "Machine"})); n != 0 {
		t.Errorf("%d ads stored by refused requests", n)
	}
}

// A malformed ad is refused with its position and nothing is stored; so is
// an oversized body.
func TestMalformedAndOversized(t *testing.T) {
	p := pooltest.New(t)
	s := startCollector(t, p, testConfig(p))
	daemonToken := p.Token("startd@h", auth.Daemon)
	post := func(body string) (int, string) {
		req, _ := http.NewRequest("POST", "http://"+s.Addr()+wire.PathAds, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+daemonToken)
		hc := &http.Client{Transport: &http.Transport{DialContext: p.Network.DialContext}}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	tests := []struct {
		body   string
		status int
		msg    string
	}{
		{`[{"MyType": "Machine", "Name": "a", "Start": "\/Expr(Memory >)\/"}]`, 400, `expression \"Memory \u003e\": 1:9: expected an expression`},
		{`[{"MyType": "Machine", "Name": "a", "Memory": 1,}]`, 400, "json ad: line 1, offset 48: expected an attribute name in quotes, found '}'"},
		{`[{"MyType": "Machine"}]`, 400, "ad 1: no Name string attribute"},
		{`{"ads": []}`, 400, "expected '[', found '{'"},
		{`[{"MyType": "Machine", "Name": "` + strings.Repeat("x", 70<<10) + `"}]`, 413, "larger than 65536 bytes (the limit is collector.max_body_bytes)"},
		// Issue 14 item 8: text that is not UTF-8 was stored and echoed raw.
		{"[{\"MyType\": \"Machine\", \"Name\": \"a\xffb\"}]", 400, "json ad: line 1, offset 33: byte 0xff is not valid UTF-8"},
		{"[{\"MyType\": \"Machine\", \"Name\": \"a\", \"Os\xc3\": 1}]", 400, "offset 39: byte 0xc3 is not valid UTF-8"},
		{`[{"MyType": "Machine", "Name": "a\udc80"}]`, 400, `\\udc80 is half of a UTF-16 surrogate pair`},
	}
	for _, tt := range tests {
		status, body := post(tt.body)
		if status != tt.status || !strings.Contains(body, tt.msg) || !json.Valid([]byte(body)) {
			t.Errorf("%.60q: %d %s, want %d %q", tt.body, status, body, tt.status, tt.msg)
		}
	}
	if n := len(query(t, p.Client(s.Addr(), "alice", auth.Read), wire.Query{Type: "Machine"})); n != 0 {
		t.Errorf("%d ads stored from refused bodies", n)
	}
}

// A member that dies without a word is found dead by gossip and its ads
// leave the query answers.
func TestDeadMembersAdsLeave(t *testing.T) {
	p := pooltest.New(t)
	p.Config.Membership.Enabled = true
	p.Config.Membership.Bind = "127.0.0.1:0"
	p.Config.Membership.ProbeInterval.Duration = 50 * time.Millisecond
	p.Config.Membership.ProbeTimeout.Duration = 25 * time.Millisecond
	p.Config.Membership.SuspicionMult = 2
	s := startCollector(t, p, testConfig(p))
	ctx := context.Background()
	var gossip wire.GossipInfo
	if err := p.Client(s.Addr(), "alice", auth.Read).Call(ctx, "GET", wire.PathGossip, nil, &gossip); err != nil || gossip.Addr == "" {
		t.Fatalf("gossip address: %+v %v", gossip, err)
	}
	var members []*membership.Node
	for i := range 3 {
		name := fmt.Sprintf("startd@h%d", i)
		n, err := membership.Start(membership.Config{Name: name, Bind: "127.0.0.1:0", Join: []string{gossip.Addr},
			Meta: membership.Meta{Kind: "startd"}, ProbeInterval: 50 * time.Millisecond, ProbeTimeout: 25 * time.Millisecond, SuspicionMult: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer n.Shutdown()
		members = append(members, n)
		ad := fmt.Sprintf(`[ MyType = "Machine"; Name = "slot1@h%d"; KiteMember = %q ]`, i, name)
		if err := p.Client(s.Addr(), name, auth.Daemon).Call(ctx, "POST", wire.PathAds, ads(t, ad), nil); err != nil {
			t.Fatal(err)
		}
	}
	reader := p.Client(s.Addr(), "alice", auth.Read)
	machines := func() string {
		var found []Found
		for _, ad := range query(t, reader, wire.Query{Type: "Machine"}) {
			found = append(found, Found{Ad: ad})
		}
		return names(found)
	}
	killed := time.Now()
	members[1].Shutdown()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if got := machines(); got == "slot1@h0,slot1@h2" {
			t.Logf("ads left %v after the member died", time.Since(killed))
			var m wire.Members
			reader.Call(ctx, "GET", wire.PathMembers, nil, &m)
			for _, mem := range m.Members {
				if mem.Name == "startd@h1" && mem.State != "dead" {
					t.Errorf("members: %+v", mem)
				}
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the dead member's ad is still served: %s", machines())
}

func TestUnreachableWhenStopped(t *testing.T) {
	p := pooltest.New(t)
	s, _ := New(p.Env("collector"), testConfig(p))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	<-s.Ready()
	cancel()
	<-done
	err := p.Client(s.Addr(), "alice", auth.Read).Call(context.Background(), "GET", wire.PathMembers, nil, nil)
	if !errors.Is(err, wire.ErrUnreachable) {
		t.Errorf("after stop: %v", err)
	}
}

func TestEndpointsDocumented(t *testing.T) {
	p := pooltest.New(t)
	s, _ := New(p.Env("collector"), testConfig(p))
	pooltest.CheckDocumented(t, s.mux().Routes())
}

// A slot's claim id is a secret: only daemons (the negotiator) see it.
func TestClaimIDIsPrivate(t *testing.T) {
	p := pooltest.New(t)
	s := startCollector(t, p, testConfig(p))
	ctx := context.Background()
	slot := ads(t, `[ MyType = "Machine"; Name = "slot1@h"; ClaimId = "secret-123"; Memory = 1 ]`)
	if err := p.Client(s.Addr(), "startd@h", auth.Daemon).Call(ctx, "POST", wire.PathAds, slot, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []wire.Query{{Type: "Machine"}, {Type: "Machine", Projection: []string{"Name", "ClaimId"}}} {
		user := query(t, p.Client(s.Addr(), "alice", auth.Read|auth.Write|auth.Administrator), q)
		if len(user) != 1 || user[0].Index("ClaimId") >= 0 {
			t.Errorf("a user saw the claim id: %v", user)
		}
		neg := query(t, p.Client(s.Addr(), "negotiator@h", auth.Daemon), q)
		if len(neg) != 1 || !strings.Contains(neg[0].String(), `ClaimId = "secret-123"`) {
			t.Errorf("the negotiator did not get the claim id: %v", neg)
		}
	}
}

// A startd killed and restarted under the same name before gossip
// declares the old one dead: the late failure notice names the dead
// incarnation and removes only its ads, and the new startd's slots stay
// (the finding: they vanished until the next update, 5 minutes).
// A member declared dead by mistake that gossip then finds alive gets its
// ads back at once. Events are given explicitly, in the order gossip
// delivers them in the race.
func TestMemberEventsKnowIncarnations(t *testing.T) {
	p := pooltest.New(t)
	s, err := New(p.Env("collector"), testConfig(p))
	if err != nil {
		t.Fatal(err)
	}
	member := func(inc string) membership.Member {
		return membership.Member{Name: "startd@h1:9618", Meta: membership.Meta{Kind: "startd", Incarnation: inc}}
	}
	slots := func(inc string, start int) []*classad.Ad {
		return ads(t,
			fmt.Sprintf(`[ MyType = "Machine"; Name = "slot1@h1"; KiteMember = "startd@h1:9618"; KiteIncarnation = %q; DaemonStartTime = %d ]`, inc, start),
			fmt.Sprintf(`[ MyType = "Machine"; Name = "slot2@h1"; KiteMember = "startd@h1:9618"; KiteIncarnation = %q; DaemonStartTime = %d ]`, inc, start))
	}
	live := func() string { return names(s.store.Query("Machine", nil, 0, false)) }
	for _, step := range []struct {
		what string
		ads  []*classad.Ad
		ev   *membership.Event
		want string
	}{
		{what: "the first startd advertises", ads: slots("old", 100), want: "slot1@h1,slot2@h1"},
		{what: "its successor advertises before the old one is declared dead", ads: slots("new", 105), want: "slot1@h1,slot2@h1"},
		{what: "the late failure of the old incarnation", ev: &membership.Event{Kind: membership.Failed, Member: member("old")}, want: "slot1@h1,slot2@h1"},
		{what: "gossip accepts the successor", ev: &membership.Event{Kind: membership.Joined, Member: member("new")}, want: "slot1@h1,slot2@h1"},
		{what: "the successor declared dead by mistake", ev: &membership.Event{Kind: membership.Failed, Member: member("new")}, want: ""},
		{what: "and found alive again", ev: &membership.Event{Kind: membership.Joined, Member: member("new")}, want: "slot1@h1,slot2@h1"},
		{what: "it leaves", ev: &membership.Event{Kind: membership.Departed, Member: member("new")}, want: ""},
	} {
		if step.ads != nil {
			if _, _, err := s.store.Update(step.ads, nil, t0); err != nil {
				t.Fatal(err)
			}
		}
		if step.ev != nil {
			s.memberEvent(*step.ev)
		}
		if got := live(); got != step.want {
			t.Errorf("%s: slots %q, want %q", step.what, got, step.want)
		}
	}
}

// A query's constraint and projection are bounded; a refusal names the
// bound and its key (issue 14 item 7).
func TestQueryBounds(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(p)
	cfg.Expr.Bytes, cfg.Expr.Tokens, cfg.Expr.Depth = 4096, 200, 20
	s := startCollector(t, p, cfg)
	reader := p.Client(s.Addr(), "alice", auth.Read)
	names := make([]string, 201)
	for i := range names {
		names[i] = "A"
	}
	tests := []struct {
		name string
		q    wire.Query
		want string
	}{
		{"bytes", wire.Query{Constraint: strings.Repeat("a && ", 1000) + "a"}, "constraint:1:4097: expression is longer than 4096 bytes (the limit is collector.max_expression_bytes)"},
		{"tokens", wire.Query{Constraint: strings.Repeat("a && ", 100) + "a"}, "more than 200 tokens (the limit is collector.max_expression_tokens)"},
		{"depth", wire.Query{Constraint: strings.Repeat("(", 21) + "a" + strings.Repeat(")", 21)}, "nested more than 20 levels deep (the limit is collector.max_expression_depth)"},
		{"projection", wire.Query{Projection: names}, "projection: 201 attributes, more than 200 (the limit is collector.max_expression_tokens)"},
		{"body", wire.Query{Constraint: strings.Repeat("x", 2<<20)}, "(the limit is 4 × collector.max_expression_bytes + 1 MiB)"},
		{"not UTF-8", wire.Query{Constraint: "Name == \"\\377\""}, "constraint:1:9: its escapes make the string's text invalid UTF-8"},
	}
	for _, tt := range tests {
		err := reader.Stream(context.Background(), "POST", wire.PathQuery, tt.q, func(json.RawMessage) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
