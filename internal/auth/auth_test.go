package auth

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestLevels(t *testing.T) {
	tests := []struct {
		have, need Level
		ok         bool
	}{
		{Read, Read, true},
		{Read, Write, false},
		{Write, Read, true},
		{Administrator, Write, true},
		{Administrator, Daemon, false},
		{Daemon, Write, true},
		{Daemon, Administrator, false},
		{Read | Write, Read | Write, true},
	}
	for _, tt := range tests {
		if got := tt.have.Allows(tt.need); got != tt.ok {
			t.Errorf("%s allows %s: %v", tt.have, tt.need, got)
		}
	}
	l, err := ParseLevels("read, WRITE")
	if err != nil || l != Read|Write || l.String() != "READ,WRITE" {
		t.Errorf("ParseLevels: %v %v", l, err)
	}
	if _, err := ParseLevels("READ,ROOT"); err == nil || !strings.Contains(err.Error(), `"ROOT"`) {
		t.Errorf("unknown level: %v", err)
	}
}

func keys(t *testing.T) (string, string) {
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "pool.key"), filepath.Join(dir, "pool.pub")
	if err := GenerateKeys(priv, pub); err != nil {
		t.Fatal(err)
	}
	return priv, pub
}

func TestKeyFiles(t *testing.T) {
	priv, pub := keys(t)
	info, _ := os.Stat(priv)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("signing key mode %v", info.Mode().Perm())
	}
	if err := GenerateKeys(priv, pub); err == nil {
		t.Error("a key was overwritten")
	}
	k, err := LoadSigningKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadPublicKey(pub)
	if err != nil || !p.Equal(k.Public()) {
		t.Fatalf("public key %v", err)
	}
	os.Chmod(priv, 0o644)
	if _, err := LoadSigningKey(priv); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("loose key: %v", err)
	}
	if _, err := LoadPublicKey(priv); err == nil {
		t.Error("a private key read as a public one")
	}
}

func TestTokens(t *testing.T) {
	priv, pub := keys(t)
	k, _ := LoadSigningKey(priv)
	p, _ := LoadPublicKey(pub)
	iss := NewIssuer(k, "lab")
	ver := NewVerifier(p, "lab")
	tok, err := iss.Issue("alice", Read|Write, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	id, err := ver.Verify(tok)
	if err != nil || id.Name != "alice" || id.Levels != Read|Write || id.Expires.IsZero() || id.ID == "" {
		t.Fatalf("verify: %+v %v", id, err)
	}
	// Expired.
	iss.now = func() time.Time { return time.Now().Add(-2 * time.Hour) }
	old, _ := iss.Issue("alice", Read, time.Hour)
	if _, err := ver.Verify(old); !errors.Is(err, ErrBadToken) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired token: %v", err)
	}
	// Another pool, another key, tampering, nothing.
	if _, err := NewVerifier(p, "other").Verify(tok); err == nil || !strings.Contains(err.Error(), "another pool") {
		t.Errorf("other pool: %v", err)
	}
	otherPub, _, _ := ed25519.GenerateKey(nil)
	if _, err := NewVerifier(otherPub, "lab").Verify(tok); err == nil || !strings.Contains(err.Error(), "signature") {
		t.Errorf("other key: %v", err)
	}
	parts := strings.Split(tok, ".")
	forged := parts[0] + "." + parts[1] + "x." + parts[2]
	if _, err := ver.Verify(forged); err == nil {
		t.Error("a tampered token verified")
	}
	if _, err := ver.Verify(""); !errors.Is(err, ErrNoToken) {
		t.Errorf("no token: %v", err)
	}
	if _, err := iss.Issue("", Read, 0); err == nil {
		t.Error("a token without identity")
	}
}

func TestToolToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "kite.token")
	noEnv := func(string) (string, bool) { return "", false }
	if _, err := ToolToken("", noEnv, file); !errors.Is(err, ErrNoToken) {
		t.Errorf("missing file: %v", err)
	}
	WriteToken(file, "from-file")
	env := func(k string) (string, bool) { return "from-env", k == "KITE_TOKEN" }
	for _, tt := range []struct {
		flag string
		env  func(string) (string, bool)
		want string
	}{{"from-flag", env, "from-flag"}, {"", env, "from-env"}, {"", noEnv, "from-file"}} {
		if got, err := ToolToken(tt.flag, tt.env, file); err != nil || got != tt.want {
			t.Errorf("got %q %v, want %q", got, err, tt.want)
		}
	}
}

// A token verified once is remembered, but not past its expiry.
func TestRememberedTokensStillExpire(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewIssuer(priv, "p").Issue("daemon", Daemon, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	v := NewVerifier(pub, "p")
	for range 3 {
		if id, err := v.Verify(tok); err != nil || id.Name != "daemon" {
			t.Fatalf("Verify = %+v, %v", id, err)
		}
	}
	v.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if _, err := v.Verify(tok); !errors.Is(err, ErrBadToken) {
		t.Errorf("an expired, remembered token: %v", err)
	}
	other := NewVerifier(pub, "other-pool")
	if _, err := other.Verify(tok); err == nil {
		t.Error("a token of another pool verified")
	}
}

// TestTokenTimesAndForgeries checks each way a token is refused: times
// beyond the clock skew (issue 14: a token issued 116 days ahead was
// accepted), expiry, and the forgeries a JWT verifier must refuse.
func TestTokenTimesAndForgeries(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *jwt.NumericDate { return jwt.NewNumericDate(now.Add(d)) }
	base := func() claims {
		return claims{RegisteredClaims: jwt.RegisteredClaims{Issuer: "lab", Subject: "alice", IssuedAt: at(0), ID: "x"}, Scope: "READ WRITE"}
	}
	signed := func(c claims) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c).SignedString(priv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	with := func(f func(*claims)) string { c := base(); f(&c); return signed(c) }
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, base()).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs256, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, base()).SignedString([]byte(pub))
	tests := []struct {
		name  string
		token string
		want  string // "" accepted, else part of the error
	}{
		{"now", signed(base()), ""},
		{"iat within the skew", with(func(c *claims) { c.IssuedAt = at(ClockSkew - time.Second) }), ""},
		{"iat 116 days ahead", with(func(c *claims) { c.IssuedAt = at(116 * 24 * time.Hour) }), "issued in the future"},
		{"iat just past the skew", with(func(c *claims) { c.IssuedAt = at(ClockSkew + 2*time.Second) }), "issued in the future"},
		{"nbf ahead", with(func(c *claims) { c.NotBefore = at(10 * time.Minute) }), "not valid yet"},
		{"nbf within the skew", with(func(c *claims) { c.NotBefore = at(30 * time.Second) }), ""},
		{"expired", with(func(c *claims) { c.IssuedAt = at(-2 * time.Hour); c.ExpiresAt = at(-time.Hour) }), "expired"},
		{"another pool", with(func(c *claims) { c.Issuer = "other" }), "another pool"},
		{"no subject", with(func(c *claims) { c.Subject = "" }), "no identity"},
		{"alg none", none, "invalid token"},
		{"HS256 keyed with the public key", hs256, "invalid token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewVerifier(pub, "lab")
			v.now = func() time.Time { return now }
			id, err := v.Verify(tt.token)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "" && id.Name != "alice":
				t.Fatalf("identity %+v", id)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrBadToken) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %+v, %v; want an error with %q", id, err, tt.want)
			}
		})
	}
}
