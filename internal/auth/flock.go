package auth

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Flocking (HTCondor's FLOCK_TO and FLOCK_FROM) lets the daemons of two
// pools, each with its own key pair, act on each other: a schedd of pool
// A advertises its submitters to pool B's collector and claims B's
// startds; B's negotiator asks A's schedd for its idle jobs and B's
// startds report to it. Each side trusts the other by the other pool's
// public key in its configuration. A Trust verifies the tokens of this
// pool as a Verifier does, and those of each trusted pool with that pool's
// key: such a token proves a daemon of the other pool and grants it FLOCK
// only, so that it reaches only the endpoints that flocking needs (each
// marked FLOCK) and never reads, writes or administers anything else here.
//
// Tokens are bearer tokens: whoever receives one may present it again.
// So a daemon never presents its pool's DAEMON token to another pool but
// a flock token (Issuer.IssueFlock): FLOCK only, for that pool alone (its
// aud). A Trust takes from another pool only such tokens issued for this
// pool, and every Verifier refuses a token issued for another pool: the
// pool that receives a flock token cannot replay it at the pool that
// issued it, nor at a third pool.

// Trust checks tokens of this pool and of the pools it trusts for
// flocking.
type Trust struct {
	home     *Verifier
	homeName string
	peers    map[string]*Verifier // by pool name
	names    []string             // the trusted pools, sorted, for errors
	// what names where this daemon's configuration lists the trusted
	// pools, for the error that refuses another pool.
	what string
}

// NewTrust returns a verifier of the tokens of the pool home verifies
// (named homeName) and of the pools peers names, each by its public key.
// what names the configuration that lists the peers ("pool.flock_from"),
// for errors.
func NewTrust(home *Verifier, homeName string, peers map[string]ed25519.PublicKey, what string) (*Trust, error) {
	t := &Trust{home: home, homeName: homeName, peers: map[string]*Verifier{}, what: what}
	for name, key := range peers {
		if name == homeName {
			return nil, fmt.Errorf("%s: pool %q is this pool's own name; pools that flock need different names", what, name)
		}
		if len(key) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("%s: pool %q: not an Ed25519 public key", what, name)
		}
		v := NewVerifier(key, name)
		v.audience = homeName // the flock tokens that pool issues for this one
		t.peers[name] = v
		t.names = append(t.names, name)
	}
	slices.Sort(t.names)
	return t, nil
}

// Verify checks a token: one of this pool as Verifier does; one of a
// trusted pool with that pool's key, a flock token issued for this pool,
// whose identity holds FLOCK only and names its pool. A token of any
// other pool is refused naming that pool and the pools trusted.
func (t *Trust) Verify(token string) (Identity, error) {
	iss := TokenPool(token)
	if v := t.peers[iss]; v != nil {
		id, err := v.Verify(token)
		if err != nil {
			return Identity{}, fmt.Errorf("%w (a token of pool %q, trusted for flocking by %s)", err, iss, t.what)
		}
		if id.Audience != t.homeName || id.Levels != Flock {
			return Identity{}, fmt.Errorf("%w: %s of pool %q holds %s%s; a pool trusted for flocking must send a flock token for this pool (FLOCK only, audience %q)",
				ErrBadToken, id.Name, iss, id.Levels, audienceOf(id), t.homeName)
		}
		id.Pool = iss
		return id, nil
	}
	id, err := t.home.Verify(token)
	if err != nil && iss != "" && iss != t.homeName && errors.Is(err, ErrBadToken) {
		return Identity{}, fmt.Errorf("%w: it was issued by pool %q, which this pool does not trust (%s lists %s)",
			ErrBadToken, iss, t.what, t.trusted())
	}
	return id, err
}

// audienceOf describes a token's audience for an error.
func audienceOf(id Identity) string {
	if id.Audience == "" {
		return " for any daemon of its pool"
	}
	return fmt.Sprintf(" for pool %q", id.Audience)
}

// trusted lists the trusted pools for an error.
func (t *Trust) trusted() string {
	if len(t.names) == 0 {
		return "none"
	}
	return strings.Join(t.names, ", ")
}

// TokenPool returns the pool a token says issued it (its iss), without
// verifying anything: it only chooses the key to verify the token with.
// It is empty for text that is not a token.
func TokenPool(token string) string {
	var c claims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &c); err != nil {
		return ""
	}
	return c.Issuer
}

// CheckFlockToken checks, without verifying its signature, that token is
// a flock token that pool issued for audience and that it has not
// expired at now: what a daemon checks of a flock token file before it
// presents the token to another pool, so that no other token (its pool's
// DAEMON token, a user's) ever goes there by mistake.
func CheckFlockToken(token, pool, audience string, now time.Time) error {
	var c claims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &c); err != nil {
		return fmt.Errorf("not a token: %w", err)
	}
	levels, err := parseLevels(c.Scope, true)
	switch {
	case c.Issuer != pool:
		return fmt.Errorf("it was issued by pool %q, not by this pool (%q)", c.Issuer, pool)
	case len(c.Audience) != 1 || c.Audience[0] != audience:
		return fmt.Errorf("it is not a flock token for pool %q (its audience is %q): make one with kite token create --flock-for %s",
			audience, strings.Join(c.Audience, ","), audience)
	case err != nil || levels != Flock:
		return fmt.Errorf("it grants %q, not FLOCK only", c.Scope)
	case c.ExpiresAt != nil && !now.Before(c.ExpiresAt.Time):
		return fmt.Errorf("it expired at %s", c.ExpiresAt.Time.UTC().Format(time.RFC3339))
	}
	return nil
}
