// Package pooltest starts Kite daemons inside a test: a pool's credentials,
// daemon environments on an in-memory network (or loopback TCP), and
// clients for the tools' side. Tests of single daemons and of whole pools
// build on it.
package pooltest

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/openapi"
	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/wire"
)

// Pool is a test pool's shared state: its key pair, its network and its
// configuration directory.
type Pool struct {
	T       testing.TB
	Name    string
	Dir     string
	Network wire.Network
	Issuer  *auth.Issuer
	Config  *config.Config
}

// New returns a pool on an in-memory network with a fresh key pair and a
// configuration file in a temporary directory. Gossip is off unless the
// test turns it on (it needs real sockets).
func New(t testing.TB) *Pool {
	t.Helper()
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "pool.key"), filepath.Join(dir, "pool.pub")
	if err := auth.GenerateKeys(priv, pub); err != nil {
		t.Fatal(err)
	}
	key, err := auth.LoadSigningKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "kite.toml")
	text := "[pool]\nname = \"test\"\ncollector = \"collector:9618\"\nsigning_key = \"pool.key\"\npublic_key = \"pool.pub\"\n" +
		"[collector]\nlisten = \"collector:9618\"\n[membership]\nenabled = false\n" +
		fmt.Sprintf("[schedd]\nidentity_map = [%q]\n", ".* "+SelfAccount(t))
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(conf)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Startd.Java = ""                 // no JVM probe at each startd's start; java tests name one
	cfg.Startd.GPUs = "off"              // the same on a host with GPUs; GPU tests declare theirs
	cfg.Startd.ContainerRuntime = "none" // no runtime check either; container tests name one
	return &Pool{T: t, Name: "test", Dir: dir, Network: wire.NewMemNetwork(), Issuer: auth.NewIssuer(key, "test"), Config: cfg}
}

// SelfAccount is the test's own account: the pools of tests map every
// identity to it (schedd.identity_map), so that a test's jobs of
// "alice" and "bob" are the test's own files, as root and as a user.
func SelfAccount(t testing.TB) string {
	a, err := runas.Self()
	if err != nil {
		t.Fatal(err)
	}
	return a.Name
}

// IdentityMap is the map of every identity to the test's own account,
// for tests that build a schedd's configuration by hand.
func IdentityMap(t testing.TB) []string {
	return []string{".* " + SelfAccount(t)}
}

// Env returns a daemon environment of the given kind in the pool. Logs go
// to the test's output when KITE_TEST_LOG is set.
func (p *Pool) Env(kind string) *daemon.Env {
	p.T.Helper()
	var w io.Writer = io.Discard
	if os.Getenv("KITE_TEST_LOG") != "" {
		w = os.Stderr
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})).With("daemon", kind)
	verifier, err := daemon.NewVerifier(p.Config, kind, p.Issuer.Public())
	if err != nil {
		p.T.Fatal(err)
	}
	return &daemon.Env{
		Config:   p.Config,
		Log:      log,
		Network:  p.Network,
		Verifier: verifier,
		Issuer:   p.Issuer,
		Token:    p.TokenSource(kind+"@test", auth.Daemon),
		Host:     "test",
	}
}

// Token issues a token in the pool.
func (p *Pool) Token(identity string, levels auth.Level) string {
	p.T.Helper()
	tok, err := p.Issuer.Issue(identity, levels, time.Hour)
	if err != nil {
		p.T.Fatal(err)
	}
	return tok
}

// TokenSource is a token source presenting a fresh token.
func (p *Pool) TokenSource(identity string, levels auth.Level) func() (string, error) {
	return wire.StaticToken(p.Token(identity, levels))
}

// Client returns a client for the daemon at addr, presenting a token for
// identity with the levels given.
func (p *Pool) Client(addr, identity string, levels auth.Level) *wire.Client {
	c := wire.NewConnector(wire.ConnectorOptions{Network: p.Network, Token: p.TokenSource(identity, levels)})
	return c.Client(addr)
}

// ForeignToken returns a token signed by another pool's key.
func ForeignToken(t testing.TB) string {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := auth.NewIssuer(priv, "test").Issue("mallory", auth.Daemon, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// CheckDocumented fails the test unless the protocol documentation
// (docs/protocol.md and docs/protocol/*.md) lists every route of the mux
// as `METHOD /path`, and the OpenAPI document (internal/openapi) has an
// operation of the same level for each.
func CheckDocumented(t testing.TB, routes []wire.Route) {
	t.Helper()
	if err := openapi.Check(routes); err != nil {
		t.Error(err)
	}
	root := moduleRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "protocol", "*.md"))
	var doc []byte
	for _, f := range append([]string{filepath.Join(root, "docs", "protocol.md")}, files...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc = append(doc, b...)
	}
	for _, r := range routes {
		if !strings.Contains(string(doc), "`"+r.Pattern+"`") {
			t.Errorf("docs/protocol.md does not document `%s`", r.Pattern)
		}
	}
}

// moduleRoot finds the directory holding go.mod above the test's.
func moduleRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}
