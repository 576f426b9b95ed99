package runas

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// HTCondor's security chapter, "The Authentication Map File": the first
// rule that matches names the account, and groups carry over.
func TestMapName(t *testing.T) {
	m := &Map{Rules: []Rule{
		{regexp.MustCompile(`^([a-z]+)@example\.org$`), "$1"},
		{regexp.MustCompile(`^robot-.*$`), "robots"},
		{regexp.MustCompile(`^(?P<u>.*)@lab$`), "lab_${u}"},
	}}
	for _, tc := range []struct{ identity, want string }{
		{"alice@example.org", "alice"},
		{"Alice@example.org", "Alice@example.org"}, // no rule: the name itself
		{"robot-7", "robots"},
		{"bob@lab", "lab_bob"},
		{"carol", "carol"},
	} {
		if got := m.Name(tc.identity); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.identity, got, tc.want)
		}
	}
}

func fakeLookup(names ...string) func(string) (*Account, error) {
	return func(name string) (*Account, error) {
		for i, n := range names {
			if n == name {
				return &Account{Name: n, UID: uint32(i), GID: uint32(i)}, nil
			}
		}
		return nil, errors.New("unknown user")
	}
}

func TestSubmitterPrivileged(t *testing.T) {
	m := &Map{Privileged: true, Self: &Account{Name: "root"}, Lookup: fakeLookup("root", "alice"),
		Rules: []Rule{{regexp.MustCompile(`^(.*)@example\.org$`), "$1"}}}
	for _, tc := range []struct {
		identity string
		want     string // account, or a piece of the error
		ok       bool
	}{
		{"alice", "alice", true},
		{"alice@example.org", "alice", true},
		{"root", "root", true}, // the personal pool started by root
		{"mallory", `identity "mallory" maps to the account "mallory" (by the identity's own name), which this host does not have`, false},
		{"mallory@example.org", `(by schedd.identity_map)`, false},
	} {
		a, err := m.Submitter(tc.identity, false)
		switch {
		case tc.ok && (err != nil || a.Name != tc.want):
			t.Errorf("Submitter(%q) = %v, %v; want account %s", tc.identity, a, err, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Submitter(%q) error = %v; want it to say %q", tc.identity, err, tc.want)
		}
	}
}

// A schedd that is not root runs every job as its own account: other
// identities are accepted only where the configuration says so.
func TestSubmitterUnprivileged(t *testing.T) {
	self := &Account{Name: "kite", UID: 1000}
	for _, tc := range []struct {
		identity string
		admin    bool
		accept   []string
		ok       bool
	}{
		{"kite", false, nil, true},
		{"alice", false, nil, false},
		{"alice", true, nil, true},
		{"alice", false, []string{"alice"}, true},
		{"bob", false, []string{"alice"}, false},
		{"bob", false, []string{"*"}, true},
	} {
		m := &Map{Self: self, Accept: tc.accept, Lookup: fakeLookup()}
		a, err := m.Submitter(tc.identity, tc.admin)
		if tc.ok != (err == nil) {
			t.Errorf("Submitter(%q, admin %v, accept %v) = %v, %v", tc.identity, tc.admin, tc.accept, a, err)
			continue
		}
		if err == nil && a != self {
			t.Errorf("Submitter(%q) = %v, want the schedd's own account", tc.identity, a)
		}
		if err != nil && !strings.Contains(err.Error(), "schedd.accept_identities") {
			t.Errorf("the refusal does not say how to allow it: %v", err)
		}
	}
}

// Rules are written as the lines of HTCondor's map files: the expression,
// then the account.
func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		line, identity, want, err string
	}{
		{line: `^(.+)@example\.org$ $1`, identity: "ann@example.org", want: "ann"},
		{line: `  ^robot .*   robots `, identity: "robot 7", want: "robots"},
		{line: `alice`, err: `a rule is "REGEXP ACCOUNT"`},
		{line: `^(alice x`, err: "missing closing )"},
	} {
		r, err := ParseRule(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRule(%q) error = %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", tc.line, err)
		}
		if got := (&Map{Rules: []Rule{r}}).Name(tc.identity); got != tc.want {
			t.Errorf("rule %q maps %q to %q, want %q", tc.line, tc.identity, got, tc.want)
		}
	}
}
