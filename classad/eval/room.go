package eval

import "sync/atomic"

// Ads made with room, and scratch ads: a daemon that builds an ad of known
// size (a slot's, a job's merged from its cluster's and its own) makes it
// at once rather than growing it attribute by attribute, and one that
// rebuilds an ad for every job builds it in the same storage each time.

// NewAdRoom returns an empty ad with room for n attributes: setting n
// attributes grows neither its attribute list nor its index.
func NewAdRoom(n int) *Ad {
	a := &Ad{attrs: make([]attr, 0, max(n, 0))}
	a.self.ad = a
	if n > smallAd {
		a.index = make([]int32, indexSize(n))
	}
	return a
}

// Reset removes every attribute and keeps the ad's storage for the next
// ones: a scratch ad rebuilt for each use allocates once. Nothing else
// may hold the ad (an ad to keep is a Clone).
func (a *Ad) Reset() {
	a.forgetSpecialized()
	clear(a.attrs) // the expressions go with the ad's next use
	a.attrs = a.attrs[:0]
	clear(a.index)
	a.special = 0
}

// CloneRoom returns a copy of the ad, as Clone does, with room for n more
// attributes: setting n new ones grows neither its attribute list nor its
// index (an ad merged from two, an ad received and added to).
func (a *Ad) CloneRoom(n int) *Ad {
	size := len(a.attrs) + max(n, 0)
	b := &Ad{attrs: make([]attr, len(a.attrs), size), special: a.special}
	b.self.ad = b
	// Field by field: an evaluation elsewhere may be storing code.
	for i := range a.attrs {
		at := &a.attrs[i]
		b.attrs[i] = attr{name: at.name, hash: at.hash, expr: at.expr, code: atomic.LoadPointer(&at.code)}
	}
	switch {
	case a.index != nil && len(a.index) >= indexSize(size):
		b.index = append([]int32(nil), a.index...)
	case a.index != nil || size > smallAd:
		b.index = make([]int32, indexSize(size))
		for i := range b.attrs {
			b.insertIndex(i) // the names are a's: all different
		}
	}
	return b
}

// indexSize is the size of the hash index for n attributes: a power of
// two, at most half full.
func indexSize(n int) int {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return size
}
