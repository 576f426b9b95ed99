package daemon

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/wire"
)

// NewVerifier returns the verifier of a daemon of the kind given: the
// pool's own tokens, checked with home (the pool's public key), and the
// DAEMON tokens of the pools it trusts for flocking, which then hold FLOCK
// only. A collector and a startd trust the pools of pool.flock_from (their
// schedds advertise and claim here); a schedd those of schedd.flock_to
// (their negotiators and startds call it). Without such pools it is the
// plain verifier of the pool's tokens.
func NewVerifier(cfg *config.Config, kind string, home ed25519.PublicKey) (wire.Verifier, error) {
	v := auth.NewVerifier(home, cfg.Pool.Name)
	names, what := trustedPools(cfg, kind)
	if len(names) == 0 {
		return v, nil
	}
	keys := map[string]ed25519.PublicKey{}
	for _, name := range names {
		peer, ok := cfg.Pool.Peers[name]
		if !ok {
			return nil, fmt.Errorf("%s: pool %q has no [pool.peers.%s] table", what, name, name)
		}
		key, err := auth.LoadPublicKey(cfg.Path(peer.PublicKey))
		if err != nil {
			return nil, fmt.Errorf("pool.peers.%s.public_key: %w", name, err)
		}
		keys[name] = key
	}
	return auth.NewTrust(v, cfg.Pool.Name, keys, what)
}

// trustedPools names the pools a daemon of kind takes FLOCK requests
// from, and the key that lists them.
func trustedPools(cfg *config.Config, kind string) ([]string, string) {
	switch kind {
	case "collector", "startd":
		return cfg.Pool.FlockFrom, "pool.flock_from"
	case "schedd":
		return cfg.Schedd.FlockTo, "schedd.flock_to"
	}
	return nil, ""
}

// Tokens are bearer tokens: a pool that received one could present it
// again. So a daemon presents its DAEMON token (Token) to its own pool's
// daemons only, and to another pool's a flock token for that pool: FLOCK
// only, taken by that pool's daemons alone (auth.Issuer.IssueFlock). Each
// call to another pool's daemon chooses its connector by the pool it
// calls (ConnectorFor); the caller knows it: the pool of schedd.flock_to
// it advertises to, the pool whose negotiator matched a slot, the pool a
// claiming schedd or a submitter ad comes from.

// flockTokenTTL is how long a flock token a daemon issues itself lives;
// it is reissued at half that.
const flockTokenTTL = time.Hour

// peerCalls is how a daemon calls the daemons of another pool.
type peerCalls struct {
	token     func() (string, error)
	connector *wire.Connector
}

// ConnectorFor returns the connector for calls to the daemons of pool:
// Connector, presenting the daemon's own token, for this pool ("" or its
// name); for another pool one that presents the flock token for that pool
// (TokenFor), on the same connections.
func (e *Env) ConnectorFor(pool string) *wire.Connector {
	if e.home(pool) {
		return e.Connector()
	}
	return e.peer(pool).connector
}

// TokenFor returns the token source for calls to the daemons of pool:
// Token for this pool ("" or its name), the flock tokens for another.
func (e *Env) TokenFor(pool string) func() (string, error) {
	if e.home(pool) {
		return e.Token
	}
	return e.peer(pool).token
}

// home says whether pool names this daemon's own pool.
func (e *Env) home(pool string) bool {
	return pool == "" || e.Config == nil || pool == e.Config.Pool.Name
}

// peer returns how to call the daemons of another pool, made once.
func (e *Env) peer(pool string) peerCalls {
	e.peersMu.Lock()
	defer e.peersMu.Unlock()
	if p, ok := e.peers[pool]; ok {
		return p
	}
	if e.peers == nil {
		e.peers = map[string]peerCalls{}
	}
	tok := e.flockTokens(pool)
	p := peerCalls{token: tok, connector: e.Connector().WithToken(tok)}
	e.peers[pool] = p
	return p
}

// flockTokens returns the source of the flock tokens this daemon presents
// to the daemons of pool, another pool of pool.peers: issued here, for
// this daemon's identity, where the signing key is; else read from the
// peer's token_file, and checked to be a flock token for that pool. It
// never gives this pool's DAEMON token: without a flock token for pool
// every call fails, saying how to make one.
func (e *Env) flockTokens(pool string) func() (string, error) {
	home := e.Config.Pool.Name
	peer, ok := e.Config.Pool.Peers[pool]
	switch {
	case !ok:
		return failing(fmt.Errorf("no token for pool %q: it is not a peer of this pool (no [pool.peers.%s] table)", pool, pool))
	case e.Issuer != nil:
		return renewing(flockTokenTTL, func() (string, error) {
			name, err := e.identity()
			if err != nil {
				return "", err
			}
			return e.Issuer.IssueFlock(name, pool, flockTokenTTL)
		})
	case peer.TokenFile != "":
		return flockTokenFile(e.Config.Path(peer.TokenFile), home, pool)
	}
	return failing(fmt.Errorf("no flock token for pool %q: this host has no signing key; set pool.peers.%s.token_file to a token made on the central manager (kite token create --identity DAEMON@HOST --flock-for %s)", pool, pool, pool))
}

// identity is the name this daemon's own token gives it.
func (e *Env) identity() (string, error) {
	tok, err := e.Token()
	if err != nil {
		return "", err
	}
	id, err := e.Verifier.Verify(tok)
	if err != nil {
		return "", fmt.Errorf("this daemon's own token: %w", err)
	}
	return id.Name, nil
}

// renewing returns a token source that issues a token with issue and
// issues another at half of ttl.
func renewing(ttl time.Duration, issue func() (string, error)) func() (string, error) {
	var mu sync.Mutex
	var tok string
	var renew time.Time
	return func() (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if tok != "" && time.Now().Before(renew) {
			return tok, nil
		}
		t, err := issue()
		if err != nil {
			return "", err
		}
		tok, renew = t, time.Now().Add(ttl/2)
		return tok, nil
	}
}

// flockTokenFile returns a token source that reads the flock token for
// pool from path, again whenever the file changes, and presents it only
// while it is one: issued by home, for pool, FLOCK only, unexpired.
func flockTokenFile(path, home, pool string) func() (string, error) {
	var mu sync.Mutex
	var tok string
	var mod time.Time
	return func() (string, error) {
		mu.Lock()
		defer mu.Unlock()
		fi, err := os.Stat(path)
		if err != nil {
			return "", fmt.Errorf("flock token for pool %q (pool.peers.%s.token_file): %w", pool, pool, err)
		}
		if tok == "" || !fi.ModTime().Equal(mod) {
			if tok, err = auth.ReadToken(path); err != nil {
				return "", fmt.Errorf("flock token for pool %q (pool.peers.%s.token_file): %w", pool, pool, err)
			}
			mod = fi.ModTime()
		}
		if err := auth.CheckFlockToken(tok, home, pool, time.Now()); err != nil {
			return "", fmt.Errorf("%s (pool.peers.%s.token_file): %w", path, pool, err)
		}
		return tok, nil
	}
}

// failing is a token source that always fails with err.
func failing(err error) func() (string, error) {
	return func() (string, error) { return "", err }
}
