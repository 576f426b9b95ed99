package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"
	"time"
)

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

// A Trust takes this pool's tokens as they are and, from the pools it
// trusts for flocking, only the flock tokens they issued for this pool
// (FLOCK, audience this pool) (HTCondor's FLOCK_FROM, "Connecting
// HTCondor Pools with Flocking"); any other pool is refused by name. A
// flock token is bound to the pool it names: the pool that receives one
// cannot replay it at the pool that issued it, nor at a third pool.
func TestTrust(t *testing.T) {
	keys := map[string]ed25519.PrivateKey{"pool-a": newKey(t), "pool-b": newKey(t), "pool-c": newKey(t)}
	// A and B flock with each other; C trusts A (and not B).
	trusts := map[string]*Trust{}
	for home, peers := range map[string][]string{"pool-a": {"pool-b"}, "pool-b": {"pool-a"}, "pool-c": {"pool-a"}} {
		pub := map[string]ed25519.PublicKey{}
		for _, p := range peers {
			pub[p] = keys[p].Public().(ed25519.PublicKey)
		}
		tr, err := NewTrust(NewVerifier(keys[home].Public().(ed25519.PublicKey), home), home, pub, "pool.flock_from")
		if err != nil {
			t.Fatal(err)
		}
		trusts[home] = tr
	}
	issue := func(key ed25519.PrivateKey, pool string, levels Level) string {
		tok, err := NewIssuer(key, pool).Issue("schedd@h", levels, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	flock := func(pool, audience string) string {
		tok, err := NewIssuer(keys[pool], pool).IssueFlock("schedd@h", audience, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	tests := []struct {
		name   string
		at     string // the pool whose daemon verifies
		token  string
		levels Level
		pool   string
		err    string
	}{
		{"this pool's daemon", "pool-a", issue(keys["pool-a"], "pool-a", Daemon), Daemon, "", ""},
		{"this pool's user", "pool-a", issue(keys["pool-a"], "pool-a", Read|Write), Read | Write, "", ""},
		{"a trusted pool's flock token for this pool", "pool-a", flock("pool-b", "pool-a"), Flock, "pool-b", ""},
		{"the other way", "pool-b", flock("pool-a", "pool-b"), Flock, "pool-a", ""},
		{"a trusted pool's DAEMON token", "pool-b", issue(keys["pool-a"], "pool-a", Daemon), 0, "",
			`schedd@h of pool "pool-a" holds DAEMON for any daemon of its pool; a pool trusted for flocking must send a flock token for this pool (FLOCK only, audience "pool-b")`},
		{"a trusted pool's administrator", "pool-a", issue(keys["pool-b"], "pool-b", Administrator), 0, "", `holds ADMINISTRATOR for any daemon of its pool; a pool trusted`},
		{"FLOCK without an audience", "pool-a", flockWithoutAudience(t, keys["pool-b"], "pool-b"), 0, "", "no identity or levels"},
		{"a trusted pool's flock token for a third pool", "pool-a", flock("pool-b", "pool-c"), 0, "", `it was issued for pool "pool-c", not for this pool ("pool-a")`},
		// B replays at A's schedd the token A's schedd gave B's collector.
		{"replayed at the pool that issued it", "pool-a", flock("pool-a", "pool-b"), 0, "", `it was issued for pool "pool-b", not for this pool ("pool-a")`},
		// ... and at pool C, which trusts A.
		{"replayed at a third pool", "pool-c", flock("pool-a", "pool-b"), 0, "", `it was issued for pool "pool-b", not for this pool ("pool-c")`},
		{"a trusted pool's name, another key", "pool-b", signedAs(t, keys["pool-c"], "pool-a", "pool-b"), 0, "",
			`signature does not match this pool's key (a token of pool "pool-a", trusted for flocking by pool.flock_from)`},
		{"a pool not trusted", "pool-b", flock("pool-c", "pool-b"), 0, "", `issued by pool "pool-c", which this pool does not trust (pool.flock_from lists pool-a)`},
		{"home's name, a trusted pool's key", "pool-a", issue(keys["pool-b"], "pool-a", Daemon), 0, "", "signature does not match"},
		{"no token", "pool-a", "", 0, "", "no token"},
	}
	for _, tt := range tests {
		id, err := trusts[tt.at].Verify(tt.token)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %+v, %v; want an error with %q", tt.name, id, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case id.Levels != tt.levels || id.Pool != tt.pool:
			t.Errorf("%s: levels %s of pool %q, want %s of %q", tt.name, id.Levels, id.Pool, tt.levels, tt.pool)
		}
	}
}

// flockWithoutAudience is a token of pool with FLOCK and no audience,
// which Issue does not make.
func flockWithoutAudience(t *testing.T, key ed25519.PrivateKey, pool string) string {
	t.Helper()
	if _, err := NewIssuer(key, pool).Issue("schedd@h", Flock, time.Hour); err == nil {
		t.Error("Issue made a token with FLOCK")
	}
	tok, err := NewIssuer(key, pool).issue("schedd@h", Flock, "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// signedAs is a flock token for audience that names pool as its issuer,
// signed with key.
func signedAs(t *testing.T, key ed25519.PrivateKey, pool, audience string) string {
	t.Helper()
	tok, err := NewIssuer(key, pool).IssueFlock("schedd@h", audience, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// A plain Verifier (a pool that flocks with no one) refuses a token
// issued for another pool, and IssueFlock issues for other pools only.
func TestFlockTokenAudience(t *testing.T) {
	key := newKey(t)
	iss := NewIssuer(key, "pool-a")
	tok, err := iss.IssueFlock("schedd@h", "pool-b", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := NewVerifier(iss.Public(), "pool-a").Verify(tok); err == nil || !strings.Contains(err.Error(), `issued for pool "pool-b"`) {
		t.Errorf("a flock token for pool-b at pool-a: %+v, %v", id, err)
	}
	for _, aud := range []string{"", "pool-a"} {
		if _, err := iss.IssueFlock("schedd@h", aud, time.Hour); err == nil {
			t.Errorf("IssueFlock for %q: no error", aud)
		}
	}
}

// FLOCK is implied by DAEMON only, and grants nothing else.
func TestFlockLevel(t *testing.T) {
	for _, tt := range []struct {
		have, need Level
		ok         bool
	}{
		{Daemon, Flock, true},
		{Flock, Flock, true},
		{Flock, Read, false},
		{Flock, Daemon, false},
		{Administrator, Flock, false},
		{Read | Write, Flock, false},
	} {
		if got := tt.have.Allows(tt.need); got != tt.ok {
			t.Errorf("%s allows %s: %v, want %v", tt.have, tt.need, got, tt.ok)
		}
	}
	if _, err := ParseLevels("FLOCK"); err == nil {
		t.Error("a token may be issued with FLOCK; only a Trust grants it")
	}
}

func TestNewTrustRefusesItsOwnName(t *testing.T) {
	k := newKey(t).Public().(ed25519.PublicKey)
	if _, err := NewTrust(NewVerifier(k, "kite"), "kite", map[string]ed25519.PublicKey{"kite": k}, "pool.flock_from"); err == nil ||
		!strings.Contains(err.Error(), `pool "kite" is this pool's own name`) {
		t.Errorf("a peer named as this pool: %v", err)
	}
}
