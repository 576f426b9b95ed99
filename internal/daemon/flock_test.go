package daemon

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/wire"
)

// A daemon presents its DAEMON token to its own pool only; to another
// pool's daemons a flock token for that pool (HTCondor's flocking,
// "Connecting HTCondor Pools with Flocking"): issued here with the
// signing key, else read from the peer's token_file and checked, and
// never, failing both, its DAEMON token.
func TestTokenFor(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	iss := auth.NewIssuer(key, "pool-a")
	dir := t.TempDir()
	write := func(name, tok string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return name
	}
	mint := func(tok string, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	daemonTok := mint(iss.Issue("startd@h", auth.Daemon, time.Hour))
	peers := map[string]config.Peer{
		"pool-b": {TokenFile: write("b.token", mint(iss.IssueFlock("startd@h", "pool-b", time.Hour)))},
		"pool-c": {TokenFile: write("c.token", daemonTok)}, // the DAEMON token by mistake
		"pool-d": {TokenFile: write("d.token", mint(iss.IssueFlock("startd@h", "pool-b", time.Hour)))},
		// Expired already: a token's times are whole seconds, truncated.
		"pool-e": {TokenFile: write("e.token", mint(iss.IssueFlock("startd@h", "pool-e", time.Nanosecond)))},
		"pool-f": {},
		"pool-g": {TokenFile: "missing.token"},
	}
	env := func(signing bool) *Env {
		cfg := &config.Config{Dir: dir}
		cfg.Pool.Name, cfg.Pool.Peers = "pool-a", peers
		e := &Env{Config: cfg, Token: wire.StaticToken(daemonTok), Verifier: auth.NewVerifier(iss.Public(), "pool-a")}
		if signing {
			e.Issuer = iss
		}
		return e
	}
	tests := []struct {
		name    string
		signing bool
		pool    string
		aud     string // the audience of the token presented; "" for the DAEMON token
		err     string
	}{
		{"this pool", false, "", "", ""},
		{"this pool by name", false, "pool-a", "", ""},
		{"issued here", true, "pool-b", "pool-b", ""},
		{"issued here, no table", true, "pool-x", "", `no token for pool "pool-x": it is not a peer of this pool`},
		{"a token file", false, "pool-b", "pool-b", ""},
		{"a DAEMON token in the file", false, "pool-c", "", `it is not a flock token for pool "pool-c"`},
		{"a flock token for another pool in the file", false, "pool-d", "", `it is not a flock token for pool "pool-d" (its audience is "pool-b")`},
		{"an expired flock token", false, "pool-e", "", "it expired at"},
		{"no key, no file", false, "pool-f", "", "set pool.peers.pool-f.token_file"},
		{"no file", false, "pool-g", "", "pool.peers.pool-g.token_file"},
	}
	for _, tt := range tests {
		tok, err := env(tt.signing).TokenFor(tt.pool)()
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var c struct {
			jwt.RegisteredClaims
			Scope string `json:"scope"`
		}
		if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var aud string
		if len(c.Audience) == 1 {
			aud = c.Audience[0]
		}
		if tt.aud == "" && tok != daemonTok || tt.aud != "" && (aud != tt.aud || c.Scope != "FLOCK" || c.Subject != "startd@h") {
			t.Errorf("%s: a token of %s for %q with %q, want audience %q", tt.name, c.Subject, aud, c.Scope, tt.aud)
		}
	}
}
