package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kite-sched/kite/internal/auth"
)

// gen makes text too large or too odd to write in a script: PREFIX, then
// PIECE COUNT times, then SUFFIX, each a Go string literal's content (so
// "\xff" is a byte that is not UTF-8). It sets an environment variable or
// writes a file:
//
//	gen env NAME PREFIX PIECE COUNT SUFFIX
//	gen file NAME PREFIX PIECE COUNT SUFFIX
func gen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 6 || (args[0] != "env" && args[0] != "file") {
		ts.Fatalf("usage: gen env|file NAME PREFIX PIECE COUNT SUFFIX")
	}
	var parts [3]string
	for i, a := range []string{args[2], args[3], args[5]} {
		s, err := strconv.Unquote(`"` + a + `"`)
		ts.Check(err)
		parts[i] = s
	}
	count, err := strconv.Atoi(args[4])
	ts.Check(err)
	text := parts[0] + strings.Repeat(parts[1], count) + parts[2]
	if args[0] == "env" {
		ts.Setenv(args[1], text)
		return
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(text), 0o644))
}

// tokenAt sets the environment variable NAME to a token of the pool like
// the administrator's ($KITE_HOME/kite.token), but for IDENTITY with
// READ,WRITE and issued OFFSET (a duration) from now: kite token create
// issues tokens only as of now, and prints them where a script cannot
// take them from.
//
//	tokenat NAME IDENTITY OFFSET
func tokenAt(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: tokenat NAME IDENTITY OFFSET")
	}
	offset, err := time.ParseDuration(args[2])
	ts.Check(err)
	home := ts.Getenv("KITE_HOME")
	key, err := auth.LoadSigningKey(filepath.Join(home, "pool.key"))
	ts.Check(err)
	admin, err := os.ReadFile(filepath.Join(home, "kite.token"))
	ts.Check(err)
	var c jwt.RegisteredClaims
	_, _, err = jwt.NewParser().ParseUnverified(strings.TrimSpace(string(admin)), &c)
	ts.Check(err)
	c.Subject, c.ID = args[1], "tokenat-"+args[2]
	c.IssuedAt = jwt.NewNumericDate(time.Now().Add(offset))
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, struct {
		jwt.RegisteredClaims
		Scope string `json:"scope"`
	}{c, "READ WRITE"}).SignedString(key)
	ts.Check(err)
	ts.Setenv(args[0], tok)
}
