package eval

import (
	"strings"
	"sync"
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
	m map[string]string
}

const maxInterned = 1 << 16

func intern(s string) string {
	interned.RLock()
	v, ok := interned.m[s]
	interned.RUnlock()
	if ok {
		return v
	}
	interned.Lock()
	defer interned.Unlock()
	if v, ok := interned.m[s]; ok {
		return v
	}
	if interned.m == nil {
		interned.m = make(map[string]string, 1024)
	}
	if len(interned.m) >= maxInterned {
		return s
	}
	s = strings.Clone(s) // not a slice of some larger text
	interned.m[s] = s
	return s
}

// sameName reports whether two attribute names are equal without ASCII
// case, first by pointer: interned names of the same spelling share one.
func sameName(a, b string) bool {
	if len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b) {
		return true
	}
	return ast.EqualFold(a, b)
}
