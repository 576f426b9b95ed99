package fairshare

import (
	"errors"
	"time"
)

// What a replicated accountant needs (internal/fairshare/replicated): the
// whole state to snapshot, and a snapshot laid back in place.

// State returns a copy of every account, by name, for a snapshot.
func (a *Accountant) State() []Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Usage, 0, len(a.users))
	for _, u := range a.users {
		out = append(out, *u)
	}
	return out
}

// Replace sets the accounts of an accountant in memory (NewAccountant:
// a replica's, whose store is the Raft log) to users, a restored
// snapshot, dropping any others.
func (a *Accountant) Replace(users []Usage) error {
	if a.db != nil {
		return errors.New("accountant: a snapshot replaces only an accountant kept in memory")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	next := make(map[string]*Usage, len(users))
	var last time.Time
	for _, u := range users {
		u := u
		next[u.Name] = &u
		last = later(last, u.LastUpdate)
	}
	a.users, a.last = next, last
	clear(a.dirty)
	return nil
}
