package eval

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/kite-sched/kite/classad/ast"
)

// Interning gives one copy of each spelling, whichever copy of the text
// asks, through the cache or the table, names sharing a cache slot
// included; spellings that differ in case are different names to it.
func TestIntern(t *testing.T) {
	// Two names in the same slot of the cache.
	mask := uint32(len(internCache) - 1)
	first := "InternTestName0"
	var second string
	for i := 1; second == ""; i++ {
		if n := fmt.Sprintf("InternTestName%d", i); ast.FoldHash(n)&mask == ast.FoldHash(first)&mask {
			second = n
		}
	}
	names := []string{first, second, strings.ToLower(first), "Memory", "MEMORY"}
	canon := map[string]string{}
	for round := range 3 {
		for _, n := range names {
			copyOf := strings.Clone(n)
			got := intern(copyOf)
			if got != n {
				t.Fatalf("intern(%q) = %q", n, got)
			}
			if c, ok := canon[n]; ok && unsafe.StringData(c) != unsafe.StringData(got) {
				t.Errorf("round %d: %q interned to a second copy", round, n)
			}
			canon[n] = got
			if unsafe.StringData(got) == unsafe.StringData(copyOf) {
				t.Errorf("%q: the caller's copy was kept, not one of its own", n)
			}
		}
	}
	if unsafe.StringData(canon["Memory"]) == unsafe.StringData(canon["MEMORY"]) {
		t.Error("two spellings share one copy")
	}
}
