package runas

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Rule maps the identities its expression matches to an account name;
// the name may use the expression's groups ($1, ${name}), as
// HTCondor's map files use \1.
type Rule struct {
	Match   *regexp.Regexp
	Account string
}

// ParseRule reads a rule written as in HTCondor's map files, "REGEXP
// ACCOUNT": the account is the last field, the expression all before it.
func ParseRule(line string) (Rule, error) {
	line = strings.TrimSpace(line)
	i := strings.LastIndexAny(line, " \t")
	if i < 0 {
		return Rule{}, fmt.Errorf("%q: a rule is \"REGEXP ACCOUNT\"", line)
	}
	expr, account := strings.TrimSpace(line[:i]), line[i+1:]
	re, err := regexp.Compile(expr)
	if err != nil {
		return Rule{}, fmt.Errorf("%q: %w", line, err)
	}
	return Rule{Match: re, Account: account}, nil
}

// Map turns a token's identity into the local account a job's files are
// opened as and the job runs as.
//
// A privileged (root) daemon acts as each owner: the identity's account
// must exist on the host, and root's own identity is accepted (its jobs
// still run as a slot user). A daemon that is not root runs every job as
// its own account: it accepts the identity of that account, identities
// holding ADMINISTRATOR (the pool's administrators), and those Accept
// lists ("*" for all); any other is refused, since its jobs would run as
// somebody else.
type Map struct {
	Rules  []Rule
	Accept []string
	// Privileged, Self and Lookup are the host's (New sets them); tests
	// may replace them.
	Privileged bool
	Self       *Account
	Lookup     func(name string) (*Account, error)
	// Now times the cache of looked-up accounts.
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	acct *Account
	err  error
	at   time.Time
}

// cacheFor is how long a looked-up account is trusted: a new or removed
// account is seen within it.
const cacheFor = time.Minute

// New returns the host's map with rules and accepted identities.
func New(rules []Rule, accept []string) (*Map, error) {
	me, err := Self()
	if err != nil {
		return nil, err
	}
	return &Map{Rules: rules, Accept: accept, Privileged: Privileged(), Self: me, Lookup: Lookup, Now: time.Now}, nil
}

// Name returns the account name identity maps to: the first rule that
// matches, else the identity itself.
func (m *Map) Name(identity string) string {
	for _, r := range m.Rules {
		if idx := r.Match.FindStringSubmatchIndex(identity); idx != nil {
			return string(r.Match.ExpandString(nil, r.Account, identity, idx))
		}
	}
	return identity
}

// Submitter returns the account the jobs of identity run as, or why
// identity may not submit here. admin says whether identity holds
// ADMINISTRATOR.
func (m *Map) Submitter(identity string, admin bool) (*Account, error) {
	name := m.Name(identity)
	if !m.Privileged {
		if name == m.Self.Name || admin || slices.Contains(m.Accept, identity) || slices.Contains(m.Accept, "*") {
			return m.Self, nil
		}
		return nil, fmt.Errorf("identity %q may not submit here: this schedd does not run as root, so every job runs as its account %q; to let %q submit, list it in schedd.accept_identities", identity, m.Self.Name, identity)
	}
	a, err := m.Account(name)
	if err != nil {
		how := "the identity's own name"
		if name != identity {
			how = "schedd.identity_map"
		}
		return nil, fmt.Errorf("identity %q maps to the account %q (by %s), which this host does not have: a schedd running as root opens each job's files as its owner (map identities to accounts with schedd.identity_map)", identity, name, how)
	}
	return a, nil
}

// Account returns the local account called name (cached for a minute).
func (m *Map) Account(name string) (*Account, error) {
	now := m.now()
	m.mu.Lock()
	c, ok := m.cache[name]
	m.mu.Unlock()
	if ok && now.Sub(c.at) < cacheFor {
		return c.acct, c.err
	}
	a, err := m.Lookup(name)
	m.mu.Lock()
	if m.cache == nil || len(m.cache) > maxCached {
		m.cache = map[string]cached{}
	}
	m.cache[name] = cached{a, err, now}
	m.mu.Unlock()
	return a, err
}

// maxCached bounds the cache: names come from job ads.
const maxCached = 4096

func (m *Map) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

// Do runs fn as the account called name (see Account.Do). A daemon that
// is not root runs fn as it is, whatever the name.
func (m *Map) Do(name string, fn func() error) error {
	if !m.Privileged {
		return fn()
	}
	a, err := m.Account(name)
	if err != nil {
		return err
	}
	return a.Do(fn)
}
