// Package auth is how requests in a Kite pool prove who sent them.
//
// A pool has an Ed25519 key pair. The private (signing) key stays where
// tokens are issued, the central manager or a personal pool; every host
// holds the public key and verifies tokens with it, so an execute host
// that is taken over cannot mint tokens. A token is a JWT (EdDSA) naming an
// identity and the authorization levels it grants, with an expiry.
//
// Levels follow HTCondor: READ (look), WRITE (submit and change one's own
// jobs; implies READ), ADMINISTRATOR (change anyone's jobs, priorities,
// daemons; implies READ and WRITE) and DAEMON (what daemons do to each
// other; implies READ and WRITE).
package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Level is a set of authorization levels.
type Level uint8

// The levels.
const (
	Read Level = 1 << iota
	Write
	Administrator
	Daemon
	// Flock is what the daemons of another pool trusted for flocking may
	// do here (flock.go): advertise submitters, negotiate, claim, report.
	// DAEMON implies it. A Trust gives it to another pool's token that
	// holds exactly FLOCK and names this pool as its audience (Issuer's
	// IssueFlock); no other token grants it.
	Flock
)

var levelNames = []struct {
	l    Level
	name string
}{{Read, "READ"}, {Write, "WRITE"}, {Administrator, "ADMINISTRATOR"}, {Daemon, "DAEMON"}}

// effective adds the levels a set implies.
func (l Level) effective() Level {
	if l&(Administrator|Daemon) != 0 {
		l |= Read | Write
	}
	if l&Daemon != 0 {
		l |= Flock
	}
	if l&Write != 0 {
		l |= Read
	}
	return l
}

// Allows reports whether l grants the level need, counting implied levels.
func (l Level) Allows(need Level) bool { return l.effective()&need == need }

// String returns the levels as "READ,WRITE".
func (l Level) String() string {
	var names []string
	for _, n := range levelNames {
		if l&n.l != 0 {
			names = append(names, n.name)
		}
	}
	if l&Flock != 0 {
		names = append(names, "FLOCK")
	}
	return strings.Join(names, ",")
}

// ParseLevels reads levels separated by commas or spaces, in any case.
func ParseLevels(s string) (Level, error) { return parseLevels(s, false) }

// parseLevels reads levels; FLOCK only when flock is true (a token's
// scope with an audience).
func parseLevels(s string, flock bool) (Level, error) {
	var l Level
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if flock && strings.EqualFold(f, "FLOCK") {
			l |= Flock
			continue
		}
		found := false
		for _, n := range levelNames {
			if strings.EqualFold(f, n.name) {
				l |= n.l
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown level %q (levels are READ, WRITE, ADMINISTRATOR, DAEMON)", f)
		}
	}
	if l == 0 {
		return 0, errors.New("no levels given")
	}
	return l, nil
}

// Identity is who a verified token says its bearer is.
type Identity struct {
	Name    string    // e.g. "alice"
	Levels  Level     // the levels the token grants
	Expires time.Time // zero for a token that does not expire
	ID      string    // the token's unique id
	// Pool is the pool that issued the token when it is another pool
	// trusted for flocking (its levels are then FLOCK only); empty for
	// this pool's own tokens.
	Pool string
	// Audience is the pool the token was issued for (its aud): set on the
	// FLOCK tokens a pool issues for the daemons of another (IssueFlock),
	// empty on every other token.
	Audience string
}

// Allows reports whether the identity holds the level need.
func (id Identity) Allows(need Level) bool { return id.Levels.Allows(need) }

// claims is a token's content.
type claims struct {
	jwt.RegisteredClaims
	Scope string `json:"scope"`
}

// Issuer signs tokens with the pool's private key.
type Issuer struct {
	key  ed25519.PrivateKey
	pool string
	now  func() time.Time
}

// NewIssuer returns an issuer for the pool named pool.
func NewIssuer(key ed25519.PrivateKey, pool string) *Issuer {
	return &Issuer{key: key, pool: pool, now: time.Now}
}

// Issue returns a token for identity with the given levels, valid for ttl
// (0: no expiry). FLOCK is for flock tokens only (IssueFlock).
func (i *Issuer) Issue(identity string, levels Level, ttl time.Duration) (string, error) {
	if levels&Flock != 0 {
		return "", errors.New("FLOCK goes in flock tokens only, issued for another pool")
	}
	return i.issue(identity, levels, "", ttl)
}

// IssueFlock returns a token for identity, a daemon of this pool, to
// present to the daemons of the pool named audience, which this pool
// flocks with: it grants FLOCK only, and only there. The daemons of this
// pool, and of any third pool, refuse it, so that the pool it is given to
// cannot replay it anywhere else.
func (i *Issuer) IssueFlock(identity, audience string, ttl time.Duration) (string, error) {
	if audience == "" || audience == i.pool {
		return "", fmt.Errorf("a flock token is for another pool than %q; got %q", i.pool, audience)
	}
	return i.issue(identity, Flock, audience, ttl)
}

// issue signs a token; audience is empty but for flock tokens.
func (i *Issuer) issue(identity string, levels Level, audience string, ttl time.Duration) (string, error) {
	if identity == "" {
		return "", errors.New("a token needs an identity")
	}
	if levels == 0 {
		return "", errors.New("a token needs at least one level")
	}
	now := i.now()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:   i.pool,
			Subject:  identity,
			IssuedAt: jwt.NewNumericDate(now),
			ID:       randomID(),
		},
		Scope: strings.ReplaceAll(levels.String(), ",", " "),
	}
	if audience != "" {
		c.Audience = jwt.ClaimStrings{audience}
	}
	if ttl > 0 {
		c.ExpiresAt = jwt.NewNumericDate(now.Add(ttl))
	}
	return jwt.NewWithClaims(jwt.SigningMethodEdDSA, c).SignedString(i.key)
}

// Public returns the public key that verifies this issuer's tokens.
func (i *Issuer) Public() ed25519.PublicKey { return i.key.Public().(ed25519.PublicKey) }

func randomID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("auth: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// Verifier checks tokens with the pool's public key.
type Verifier struct {
	key  ed25519.PublicKey
	pool string
	// audience is the pool whose daemons verify here: a token issued for
	// another pool (its aud) is refused. It is pool but in a Trust, whose
	// verifiers of other pools' tokens take those issued for its own.
	audience string
	now      func() time.Time

	// Daemons present the same token on every request until they renew
	// it: a token verified once is remembered (its identity and expiry),
	// which saves an Ed25519 verification per request.
	mu    sync.Mutex
	known map[string]Identity
}

// verifiedCache bounds the remembered tokens; when full it starts over.
const verifiedCache = 4096

// NewVerifier returns a verifier for tokens of the pool named pool.
func NewVerifier(key ed25519.PublicKey, pool string) *Verifier {
	return &Verifier{key: key, pool: pool, audience: pool, now: time.Now, known: map[string]Identity{}}
}

// Errors of Verify.
var (
	ErrNoToken  = errors.New("no token: present one with --token, KITE_TOKEN or the token file the configuration names")
	ErrBadToken = errors.New("invalid token")
)

// Verify checks a token's signature, pool and expiry and returns the
// identity it carries.
func (v *Verifier) Verify(token string) (Identity, error) {
	if token == "" {
		return Identity{}, ErrNoToken
	}
	v.mu.Lock()
	id, ok := v.known[token]
	v.mu.Unlock()
	if ok && (id.Expires.IsZero() || v.now().Before(id.Expires)) {
		return id, nil
	}
	id, err := v.verify(token)
	if err != nil {
		return id, err
	}
	v.mu.Lock()
	if len(v.known) >= verifiedCache {
		clear(v.known)
	}
	v.known[token] = id
	v.mu.Unlock()
	return id, nil
}

// ClockSkew is how far the clocks of the host that issued a token and the
// host that verifies it may disagree. It is allowed on each of a token's
// times: a token issued (iat) or valid from (nbf) more than ClockSkew in
// the future is refused, as is one more than ClockSkew past its expiry.
const ClockSkew = time.Minute

// verify checks a token's signature, issuer, times and claims.
func (v *Verifier) verify(token string) (Identity, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) { return v.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
		jwt.WithIssuer(v.pool),
		jwt.WithTimeFunc(v.now),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(ClockSkew),
	)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %s", ErrBadToken, reason(err))
	}
	aud, err := v.checkAudience(c.Audience)
	if err != nil {
		return Identity{}, err
	}
	levels, err := parseLevels(c.Scope, aud != "")
	if err != nil || c.Subject == "" {
		return Identity{}, fmt.Errorf("%w: no identity or levels", ErrBadToken)
	}
	id := Identity{Name: c.Subject, Levels: levels, ID: c.ID, Audience: aud}
	if c.ExpiresAt != nil {
		id.Expires = c.ExpiresAt.Time
	}
	return id, nil
}

// checkAudience returns a token's audience: none, or this verifier's.
// A token issued for another pool is refused: a pool that flocks with
// this one cannot replay here, or at a third pool, the tokens this
// pool's daemons present to it.
func (v *Verifier) checkAudience(aud jwt.ClaimStrings) (string, error) {
	switch {
	case len(aud) == 0:
		return "", nil
	case len(aud) == 1 && aud[0] == v.audience:
		return aud[0], nil
	}
	return "", fmt.Errorf("%w: it was issued for pool %q, not for this pool (%q): a flock token is taken only by the daemons of the pool it names",
		ErrBadToken, strings.Join(aud, ","), v.audience)
}

// reason explains a JWT validation error in a few words.
func reason(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "it has expired"
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return fmt.Sprintf("it was issued in the future (more than the allowed clock skew of %v ahead); check the clocks of the issuing host and this one", ClockSkew)
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return fmt.Sprintf("it is not valid yet (its nbf is more than the allowed clock skew of %v ahead)", ClockSkew)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "its signature does not match this pool's key"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "it was issued for another pool"
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "it is malformed"
	}
	return err.Error()
}
