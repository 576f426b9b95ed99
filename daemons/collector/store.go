package collector

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/internal/attr"
)

// Store holds the pool's ads, keyed by (MyType, Name) without case. It is
// soft state, rebuilt from updates after a restart. Stored ads are never
// changed; an update replaces the ad, so readers use ads without locks.
type Store struct {
	mu sync.RWMutex
	// ads holds the entries by lower-case type, then lower-case name, so a
	// query visits only the ads of its type.
	ads      map[string]map[string]*entry
	lifetime time.Duration
	updates  int64
	// queries counts under the read lock: atomic.
	queries atomic.Int64
}

type entry struct {
	ad      *classad.Ad
	json    []byte // the ad in JSON form, as queries send it
	public  []byte // the JSON without secrets (ClaimId), when it has any
	typ     string // as the ad spells it
	name    string
	expires time.Time
	start   int64 // DaemonStartTime
	seq     int64 // UpdateSequenceNumber
	member  string
	// incarnation is the start of the member that sent the ad ("" from
	// daemons that do not say).
	incarnation string
	absent      time.Time // when its member was reported dead; zero while alive
	count       int64     // updates received
}

// NewStore returns an empty store in which ads live lifetime without an
// update, unless they say otherwise (ClassAdLifetime).
func NewStore(lifetime time.Duration) *Store {
	return &Store{ads: map[string]map[string]*entry{}, lifetime: lifetime}
}

// get returns the entry of a type and name, or nil.
func (s *Store) get(typ, name string) *entry { return s.ads[ast.Lower(typ)][ast.Lower(name)] }

// set stores an entry under its type and name.
func (s *Store) set(e *entry) {
	t := ast.Lower(e.typ)
	m := s.ads[t]
	if m == nil {
		m = map[string]*entry{}
		s.ads[t] = m
	}
	m[ast.Lower(e.name)] = e
}

// remove deletes the entry of a type and name and reports whether it was there.
func (s *Store) remove(typ, name string) bool {
	m := s.ads[ast.Lower(typ)]
	k := ast.Lower(name)
	if _, ok := m[k]; !ok {
		return false
	}
	delete(m, k)
	return true
}

// each calls f for every entry of a type ("" for all) until f returns false.
func (s *Store) each(typ string, f func(*entry) bool) {
	if typ != "" {
		for _, e := range s.ads[ast.Lower(typ)] {
			if !f(e) {
				return
			}
		}
		return
	}
	for _, m := range s.ads {
		for _, e := range m {
			if !f(e) {
				return
			}
		}
	}
}

// adString returns a string attribute of an ad, if it is a string literal.
func adString(ad *classad.Ad, name string) (string, bool) {
	e, ok := ad.Lookup(name)
	if !ok {
		return "", false
	}
	l, ok := e.(*ast.Literal)
	if !ok || l.Kind != ast.StringLit {
		return "", false
	}
	return l.Str, true
}

// adInt returns an integer attribute of an ad, if it is an integer literal.
func adInt(ad *classad.Ad, name string) (int64, bool) {
	e, ok := ad.Lookup(name)
	if !ok {
		return 0, false
	}
	if l, ok := e.(*ast.Literal); ok && l.Kind == ast.IntLit {
		return l.Int, true
	}
	return 0, false
}

// check returns what is wrong with an ad as an update, if anything.
func check(ad *classad.Ad) (typ, name string, err error) {
	typ, ok := adString(ad, attr.MyType)
	if !ok || typ == "" {
		return "", "", fmt.Errorf("no %s string attribute", attr.MyType)
	}
	name, ok = adString(ad, attr.Name)
	if !ok || name == "" {
		return "", "", fmt.Errorf("no %s string attribute", attr.Name)
	}
	if e, ok := ad.Lookup(attr.ClassAdLifetime); ok {
		if l, isLit := e.(*ast.Literal); !isLit || l.Kind != ast.IntLit || l.Int <= 0 {
			return "", "", fmt.Errorf("%s must be a positive integer (seconds)", attr.ClassAdLifetime)
		}
	}
	return typ, storeKey(ad, typ, name), nil
}

// storeKey is the name an ad is stored under. Submitter ads are one per
// user and schedd, so two schedds' ads for the same user both stay: their
// key adds the ScheddName (as HTCondor's collector does).
func storeKey(ad *classad.Ad, typ, name string) string {
	if strings.EqualFold(typ, attr.TypeSubmitter) {
		if schedd, ok := adString(ad, attr.ScheddName); ok && schedd != "" {
			return name + "\x00" + schedd
		}
	}
	return name
}

// Update stores ads, checked beforehand: all or nothing. It returns how
// many were stored and how many ignored as stale. raws, when not nil,
// holds each ad's JSON as it was received; the store keeps a copy and
// sends it to queries for whole ads instead of encoding the ad again.
func (s *Store) Update(ads []*classad.Ad, raws [][]byte, now time.Time) (stored, stale int, err error) {
	stored, stale, err = s.update(ads, raws, now)
	if err == nil {
		s.mu.Lock()
		s.updates += int64(len(ads))
		s.mu.Unlock()
	}
	return stored, stale, err
}

// update stores ads without counting them as updates received.
func (s *Store) update(ads []*classad.Ad, raws [][]byte, now time.Time) (stored, stale int, err error) {
	entries, err := s.entries(ads, raws, now)
	if err != nil {
		return 0, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, stale = s.putAll(entries, now)
	return stored, stale, nil
}

// entries checks ads as an update and makes their entries.
func (s *Store) entries(ads []*classad.Ad, raws [][]byte, now time.Time) ([]*entry, error) {
	entries := make([]*entry, len(ads))
	for i, ad := range ads {
		typ, name, err := check(ad)
		if err != nil {
			return nil, fmt.Errorf("ad %d: %w", i+1, err)
		}
		e := &entry{ad: ad, typ: typ, name: name, expires: now.Add(s.lifetime)}
		if raws != nil {
			e.json = raws[i]
		}
		e.start, _ = adInt(ad, attr.DaemonStartTime)
		e.seq, _ = adInt(ad, attr.UpdateSequence)
		e.member, _ = adString(ad, attr.Member)
		e.incarnation, _ = adString(ad, attr.Incarnation)
		if life, ok := adInt(ad, attr.ClassAdLifetime); ok {
			e.expires = now.Add(time.Duration(life) * time.Second)
		}
		entries[i] = e
	}
	return entries, nil
}

// putAll stores entries (under the lock), counting those stored and those
// ignored as stale.
func (s *Store) putAll(entries []*entry, now time.Time) (stored, stale int) {
	for _, e := range entries {
		if s.put(e, now) {
			stored++
		} else {
			stale++
		}
	}
	return stored, stale
}

// put stores e unless the stored ad of its key is newer.
func (s *Store) put(e *entry, now time.Time) bool {
	old := s.get(e.typ, e.name)
	if old != nil && (e.start < old.start || e.start == old.start && e.seq < old.seq) {
		return false
	}
	e.count = 1
	if old != nil {
		e.count = old.count + 1
	}
	e.json = stamp(e.ad, e.json, now.Unix(), e.count)
	if e.ad.Index(attr.ClaimID) >= 0 {
		e.public = classad.AppendJSON(nil, withoutSecrets(e.ad), false)
	}
	s.set(e)
	return true
}

// stamp sets the collector's own attributes (LastHeardFrom, UpdatesTotal)
// on an ad and returns its JSON form: the received JSON with the two
// attributes added before the closing brace, or, when the ad already had
// them or came without JSON, a fresh encoding.
func stamp(ad *classad.Ad, raw []byte, heard, count int64) []byte {
	fresh := raw == nil || ad.Index(attr.LastHeardFrom) >= 0 || ad.Index(attr.UpdatesTotal) >= 0
	ad.Set(attr.LastHeardFrom, ast.Int(heard))
	ad.Set(attr.UpdatesTotal, ast.Int(count))
	if fresh {
		return classad.AppendJSON(nil, ad, false)
	}
	raw = bytes.TrimRight(raw, " \t\r\n")
	out := make([]byte, 0, len(raw)+64)
	out = append(out, raw[:len(raw)-1]...)
	if ad.Len() > 2 {
		out = append(out, ',')
	}
	out = fmt.Appendf(out, `"%s": %d,"%s": %d}`, attr.LastHeardFrom, heard, attr.UpdatesTotal, count)
	return out
}

// Invalidate removes ads of a type by name and, with a constraint, those
// matching it.
func (s *Store) Invalidate(typ string, names []string, constraint *classad.Program) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := 0
	for _, n := range names {
		if s.remove(typ, n) {
			removed++
		}
	}
	if len(names) > 0 && strings.EqualFold(typ, attr.TypeSubmitter) {
		// A submitter's name stands for its ads from every schedd.
		var doomed []*entry
		s.each(typ, func(e *entry) bool {
			if i := strings.IndexByte(e.name, 0); i >= 0 && slices.ContainsFunc(names, func(n string) bool { return ast.EqualFold(n, e.name[:i]) }) {
				doomed = append(doomed, e)
			}
			return true
		})
		for _, e := range doomed {
			s.remove(e.typ, e.name)
		}
		removed += len(doomed)
	}
	if constraint == nil {
		return removed
	}
	var st eval.State
	var doomed []*entry
	s.each(typ, func(e *entry) bool {
		if matches(&st, constraint, e.ad) {
			doomed = append(doomed, e)
		}
		return true
	})
	for _, e := range doomed {
		s.remove(e.typ, e.name)
	}
	return removed + len(doomed)
}

func matches(st *eval.State, p *classad.Program, ad *classad.Ad) bool {
	st.Reset(ad, nil)
	return st.Eval(p).IsTrue()
}

// Found is an ad a query found, with its JSON form.
type Found struct {
	Ad   *classad.Ad
	JSON []byte
	// Public is the JSON without secrets, nil when the ad has none.
	Public []byte
}

// withoutSecrets returns ad without the attributes only daemons may see
// (the slot's ClaimId), sharing its expressions.
func withoutSecrets(ad *classad.Ad) *classad.Ad {
	c := ad.Clone()
	c.Delete(attr.ClaimID)
	return c
}

// Query returns the ads of a type ("" for all) that make the constraint
// true (nil for all), sorted by type and name, at most limit of them (0:
// no limit). Absent ads are left out unless absent is set.
func (s *Store) Query(typ string, constraint *classad.Program, limit int, absent bool) []Found {
	s.mu.RLock()
	var candidates []*entry
	s.each(typ, func(e *entry) bool {
		if absent || e.absent.IsZero() {
			candidates = append(candidates, e)
		}
		return true
	})
	s.queries.Add(1)
	s.mu.RUnlock()
	if constraint != nil {
		var st eval.State
		kept := candidates[:0]
		for _, e := range candidates {
			if matches(&st, constraint, e.ad) {
				kept = append(kept, e)
			}
		}
		candidates = kept
	}
	slices.SortFunc(candidates, func(a, b *entry) int {
		if c := strings.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	if limit > 0 && len(candidates) > limit {
		candidates = candidates[:limit]
	}
	out := make([]Found, len(candidates))
	for i, e := range candidates {
		out[i] = Found{e.ad, e.json, e.public}
	}
	return out
}

// Expire removes ads past their lifetime and ads absent for longer than
// grace, and returns how many it removed.
func (s *Store) Expire(now time.Time, grace time.Duration) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var doomed []*entry
	s.each("", func(e *entry) bool {
		if now.After(e.expires) || !e.absent.IsZero() && now.Sub(e.absent) > grace {
			doomed = append(doomed, e)
		}
		return true
	})
	for _, e := range doomed {
		s.remove(e.typ, e.name)
	}
	return len(doomed)
}

// MarkAbsent marks the ads advertised by an incarnation of a member that
// gossip reports dead: they leave query answers and are dropped after the
// grace period. Ads of another incarnation (a successor that took the
// name before gossip declared this one dead) stay; an empty incarnation,
// on either side, matches any.
func (s *Store) MarkAbsent(member, incarnation string, now time.Time) int {
	return s.remark(member, incarnation, func(e *entry) bool { return e.absent.IsZero() }, func(e *entry) {
		e.ad.Set(attr.Absent, ast.Bool(true))
		e.absent = now
	})
}

// Revive brings back the absent ads of an incarnation of a member that
// gossip finds alive again (it was declared dead by mistake, say across a
// partition): the daemon would otherwise stay out of query answers until
// its next update. It returns how many it brought back.
func (s *Store) Revive(member, incarnation string) int {
	if incarnation == "" {
		return 0 // without an incarnation the ads may be a dead start's
	}
	return s.remark(member, incarnation, func(e *entry) bool { return !e.absent.IsZero() && e.incarnation != "" }, func(e *entry) {
		e.ad.Delete(attr.Absent)
		e.absent = time.Time{}
	})
}

// remark replaces each ad of an incarnation of a member for which pick
// holds by a copy changed by change, and returns how many it replaced.
// Stored ads are not changed in place: readers hold them.
func (s *Store) remark(member, incarnation string, pick func(*entry) bool, change func(*entry)) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var picked []*entry
	s.each("", func(e *entry) bool {
		if e.member == member && sameIncarnation(e.incarnation, incarnation) && pick(e) {
			picked = append(picked, e)
		}
		return true
	})
	for _, e := range picked {
		c := *e
		c.ad = e.ad.Clone()
		change(&c)
		c.json = classad.AppendJSON(nil, c.ad, false)
		if c.public != nil {
			c.public = classad.AppendJSON(nil, withoutSecrets(c.ad), false)
		}
		s.set(&c)
	}
	return len(picked)
}

// sameIncarnation reports whether two incarnations may be the same start:
// an empty one (a daemon that does not say) matches any.
func sameIncarnation(a, b string) bool { return a == "" || b == "" || a == b }

// Stats returns counters: ads by type, updates and queries received.
func (s *Store) Stats() (byType map[string]int, updates, queries int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	byType = map[string]int{}
	s.each("", func(e *entry) bool {
		byType[e.typ]++
		return true
	})
	return byType, s.updates, s.queries.Load()
}
