// Package daemon is what every Kite daemon shares: its environment built
// from the host's configuration (logger, network, credentials, TLS), its
// membership in the pool's gossip, and the lifecycle that runs it until a
// signal stops it.
//
// A daemon package provides New(env, ...) that validates and allocates,
// and Run(ctx) that serves until ctx is done, then stops in order. Run
// here wires that to the process: SIGINT or SIGTERM stops it gracefully, a
// second signal or the grace period stops it at once.
package daemon

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/openapi"
	"github.com/kite-sched/kite/internal/wire"
)

// Env is a daemon's environment.
type Env struct {
	Config  *config.Config
	Log     *slog.Logger
	Network wire.Network
	// Verifier checks the tokens of requests to this daemon.
	Verifier wire.Verifier
	// Issuer signs tokens; nil on hosts without the signing key.
	Issuer *auth.Issuer
	// Token returns this daemon's own token (DAEMON level), for this
	// pool's daemons only: calls to another pool's present a flock token
	// for that pool (TokenFor, ConnectorFor).
	Token func() (string, error)
	// ServerTLS and ClientTLS are nil unless TLS is configured.
	ServerTLS, ClientTLS *tls.Config
	// Host is this host's name, for naming daemons and members.
	Host string

	connOnce  sync.Once
	connector *wire.Connector

	peersMu sync.Mutex
	peers   map[string]peerCalls // other pools' (flock.go)

	collOnce   sync.Once
	collectors *wire.Collectors

	incOnce     sync.Once
	incarnation string
}

// Incarnation returns the random id of this start of the daemon. It goes
// in the daemon's gossip metadata and in every ad it sends, so that the
// collector, told by gossip that a member is dead, removes only the ads of
// that start and not those of a successor that took its name.
func (e *Env) Incarnation() string {
	e.incOnce.Do(func() { e.incarnation = rand.Text()[:16] })
	return e.incarnation
}

// NewEnv builds the environment of the daemon kind from a validated
// configuration.
func NewEnv(cfg *config.Config, kind string) (*Env, error) {
	e := &Env{Config: cfg, Network: wire.TCP, Log: NewLogger(cfg.Log, os.Stderr).With("daemon", kind)}
	e.Host, _ = os.Hostname()
	pub, err := auth.LoadPublicKey(cfg.Path(cfg.Pool.PublicKey))
	if err != nil {
		return nil, fmt.Errorf("pool public key: %w", err)
	}
	if e.Verifier, err = NewVerifier(cfg, kind, pub); err != nil {
		return nil, err
	}
	if err := e.loadDaemonToken(kind); err != nil {
		return nil, err
	}
	if e.ServerTLS, e.ClientTLS, err = tlsConfigs(cfg); err != nil {
		return nil, err
	}
	return e, nil
}

// daemonTokenTTL is how long a self-issued daemon token lives; it is
// reissued well before that.
const daemonTokenTTL = 24 * time.Hour

// loadDaemonToken sets Token: self-issued when the signing key is here,
// else read from the daemon token file.
func (e *Env) loadDaemonToken(kind string) error {
	cfg := e.Config
	if cfg.Pool.SigningKey != "" {
		key, err := auth.LoadSigningKey(cfg.Path(cfg.Pool.SigningKey))
		if err != nil {
			return fmt.Errorf("pool signing key: %w", err)
		}
		e.Issuer = auth.NewIssuer(key, cfg.Pool.Name)
		e.Token = selfIssued(e.Issuer, kind+"@"+e.Host)
		return nil
	}
	tok, err := auth.ReadToken(cfg.Path(cfg.Pool.DaemonTokenFile))
	if err != nil {
		return fmt.Errorf("daemon token: %w (without the pool's signing key a daemon needs a DAEMON token: kite token create --identity %s@%s --levels DAEMON)", err, kind, e.Host)
	}
	e.Token = wire.StaticToken(tok)
	return nil
}

// selfIssued returns a token source that issues DAEMON tokens and renews
// them at half their life.
func selfIssued(iss *auth.Issuer, identity string) func() (string, error) {
	return renewing(daemonTokenTTL, func() (string, error) { return iss.Issue(identity, auth.Daemon, daemonTokenTTL) })
}

func tlsConfigs(cfg *config.Config) (server, client *tls.Config, err error) {
	if cfg.TLS.Cert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.Path(cfg.TLS.Cert), cfg.Path(cfg.TLS.Key))
		if err != nil {
			return nil, nil, fmt.Errorf("tls: %w", err)
		}
		server = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		client = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if cfg.TLS.CA != "" {
		pem, err := os.ReadFile(cfg.Path(cfg.TLS.CA))
		if err != nil {
			return nil, nil, fmt.Errorf("tls ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, nil, fmt.Errorf("tls ca %s: no certificates", cfg.TLS.CA)
		}
		if client == nil {
			client = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		client.RootCAs = pool
	}
	return server, client, nil
}

// Connector returns the daemon's connector to other daemons, presenting
// its own token.
func (e *Env) Connector() *wire.Connector {
	e.connOnce.Do(func() {
		e.connector = wire.NewConnector(wire.ConnectorOptions{Network: e.Network, TLS: e.ClientTLS, Token: e.Token})
	})
	return e.connector
}

// Collector returns a client for the pool's collectors (one, or those of
// pool.collectors): updates go to each, queries to one that answers.
func (e *Env) Collector() *wire.Collectors {
	e.collOnce.Do(func() {
		e.collectors = e.Connector().Collectors(e.Config.Pool.CollectorAddrs())
		e.collectors.OnDown = e.collectorDown()
	})
	return e.collectors
}

// collectorDown logs, at most once a minute per collector, that one of
// several collectors missed an update.
func (e *Env) collectorDown() func(addr string, err error) {
	var mu sync.Mutex
	down := map[string]time.Time{}
	return func(addr string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if t, ok := down[addr]; ok && time.Since(t) < time.Minute {
			return
		}
		down[addr] = time.Now()
		e.Log.Warn("a collector misses updates; the others have them", "collector", addr, "err", err)
	}
}

// Listen listens on addr on the daemon's network.
func (e *Env) Listen(addr string) (net.Listener, error) { return e.Network.Listen(addr) }

// Mux returns a mux that verifies tokens with the pool's key, serving
// the protocol's OpenAPI document (openapi.PathDocument) already.
func (e *Env) Mux() *wire.Mux {
	m := wire.NewMux(e.Verifier, e.Log)
	openapi.Serve(m)
	return m
}

// NewLogger returns a logger as the [log] section says.
func NewLogger(c config.Log, w *os.File) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(strings.ToUpper(c.Level)))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
