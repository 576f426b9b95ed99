package eval

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kite-sched/kite/classad/ast"
)

// Attribute names are interned: every ad that defines Memory points at one
// copy of "Memory". Looking an attribute up across many ads (a query over
// the collector's 100 000 slots, a match over a pool) then touches one hot
// copy instead of a cold copy per ad, and usually ends in a pointer
// comparison. The table is bounded: past its size, names are kept as they
// are, which is only slower.
var interned struct {
	sync.RWMutex
	m map[string]*string
}

const maxInterned = 1 << 16

// internCache holds interned names by their FoldHash, the last interned
// with the slot's bits of hash in each slot: a name found there costs
// neither the lock, shared by every goroutine, nor a lookup in the map.
var internCache [1 << 12]atomic.Pointer[string]

func intern(s string) string { return internHashed(s, ast.FoldHash(s)) }

// internHashed interns s, whose FoldHash is h.
func internHashed(s string, h uint32) string {
	slot := &internCache[h&(uint32(len(internCache))-1)]
	if p := slot.Load(); p != nil && *p == s {
		return *p
	}
	p := internSlow(s)
	if p == nil {
		return s
	}
	slot.Store(p)
	return *p
}

// internSlow interns s in the map, returning its one copy, or nil when
// the map is full.
func internSlow(s string) *string {
	interned.RLock()
	p, ok := interned.m[s]
	interned.RUnlock()
	if ok {
		return p
	}
	interned.Lock()
	defer interned.Unlock()
	if p, ok := interned.m[s]; ok {
		return p
	}
	if interned.m == nil {
		interned.m = make(map[string]*string, 1024)
	}
	if len(interned.m) >= maxInterned {
		return nil
	}
	c := strings.Clone(s) // not a slice of some larger text
	interned.m[c] = &c
	return &c
}

// internNames interns the names of attrs, whose hashes they hold.
func internNames(attrs []attr) {
	for i := range attrs {
		attrs[i].name = internHashed(attrs[i].name, attrs[i].hash)
	}
}

// sameName reports whether two attribute names are equal without ASCII
// case, first by pointer: interned names of the same spelling share one.
func sameName(a, b string) bool {
	if len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b) {
		return true
	}
	return ast.EqualFold(a, b)
}
