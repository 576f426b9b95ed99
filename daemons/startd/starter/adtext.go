package starter

import (
	"strings"
	"sync"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// AdText is the text of the machine ad last written to a slot's sandbox,
// attribute by attribute. A slot's ad changes little from one job to the
// next, and what did not change keeps its expression (the startd's
// activation ad): the next job's .machine.ad prints only the attributes
// whose expressions are new and copies the rest. Expressions are never
// changed in place, so the same expression prints the same. The zero
// value is empty; a slot's starters share one, one job at a time or not.
type AdText struct {
	mu    sync.Mutex
	names []string
	exprs []ast.Expr
	ends  []int  // where each attribute's line ends in text
	text  []byte // the lines, as last written
}

// appendMachineAd appends the machine ad (nil: none) in the old syntax,
// without its claim id: a secret the job must not learn. The lines of
// attributes unchanged since the ad t last wrote (t nil: none) are copied
// from it.
func appendMachineAd(buf []byte, ad *classad.Ad, t *AdText) []byte {
	if ad == nil {
		return buf
	}
	if t == nil {
		for name, e := range ad.All() {
			if !strings.EqualFold(name, attr.ClaimID) {
				buf = append(ast.AppendOldAttr(buf, name, e), '\n')
			}
		}
		return buf
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	start, j, oldStart := len(buf), 0, 0
	for name, e := range ad.All() {
		if strings.EqualFold(name, attr.ClaimID) {
			continue
		}
		if j < len(t.names) && t.names[j] == name && t.exprs[j] == e {
			buf = append(buf, t.text[oldStart:t.ends[j]]...)
		} else {
			buf = append(ast.AppendOldAttr(buf, name, e), '\n')
		}
		if j < len(t.names) {
			oldStart = t.ends[j] // read before it is overwritten
			t.names[j], t.exprs[j], t.ends[j] = name, e, len(buf)-start
		} else {
			t.names, t.exprs, t.ends = append(t.names, name), append(t.exprs, e), append(t.ends, len(buf)-start)
		}
		j++
	}
	clear(t.names[j:]) // let go of what is no longer in the ad
	clear(t.exprs[j:])
	t.names, t.exprs, t.ends = t.names[:j], t.exprs[:j], t.ends[:j]
	t.text = append(t.text[:0], buf[start:]...)
	return buf
}
