package matchmaker

import (
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/fit"
)

// A job sees little of a slot: its Requirements, Rank and resource
// requests read a handful of slot attributes (Arch, OpSys, Memory, ...).
// Slot classes that agree on those — and on whatever those attributes'
// own expressions read of the slot — look the same to the job, even when
// they differ elsewhere (a desktop's START reading its own KeyboardIdle
// makes every slot a class of its own). A view groups classes by what a
// set of job expressions can see, so the job's side of a match is
// evaluated once per group; only the slot's side is evaluated per class.

// jobAttrs are the job attributes evaluated against a slot.
var jobAttrs = []string{attr.Requirements, attr.Rank, attr.RequestCpus, attr.RequestMemory, attr.RequestDisk}

// view is the grouping of slot classes for one set of slot attribute names.
type view struct {
	names   []string // slot attributes the jobs read, lower case
	byKey   map[string]int32
	ofClass []int32    // class id → group, -1 not yet known
	members [][]*class // group → its classes, once grouped by update
	grouped int        // classes grouped into members
	buf     []byte
}

// update groups the classes not grouped yet.
func (v *view) update(classes []*class) {
	for _, c := range classes[v.grouped:] {
		g := v.group(c)
		for int(g) >= len(v.members) {
			v.members = append(v.members, nil)
		}
		v.members[g] = append(v.members[g], c)
	}
	v.grouped = len(classes)
}

// views caches views by the names they cover: requests reading the same
// slot attributes share one.
type views struct {
	byNames map[string]*view
}

// viewOf returns the view for a job ad, or nil when the job reads slot
// attributes by computed names (eval of a string it builds).
func (vs *views) viewOf(job *classad.Ad) *view {
	r := ast.NewRefs()
	r.Follow(job, jobAttrs...)
	if r.Escape {
		return nil
	}
	names := make([]string, 0, len(r.Other))
	for k := range r.Other {
		names = append(names, k)
	}
	slices.Sort(names)
	key := strings.Join(names, "\x00")
	if v := vs.byNames[key]; v != nil {
		return v
	}
	if vs.byNames == nil {
		vs.byNames = map[string]*view{}
	}
	v := &view{names: names, byKey: map[string]int32{}}
	vs.byNames[key] = v
	return v
}

// group returns the group of class c in v.
func (v *view) group(c *class) int32 {
	for len(v.ofClass) <= c.id {
		v.ofClass = append(v.ofClass, -1)
	}
	if g := v.ofClass[c.id]; g >= 0 {
		return g
	}
	v.buf = v.key(c.rep, v.buf[:0])
	g, ok := v.byKey[string(v.buf)]
	if !ok {
		g = int32(len(v.byKey))
		v.byKey[string(v.buf)] = g
	}
	v.ofClass[c.id] = g
	return g
}

// key is what a job reading v.names can see of a slot ad: those
// attributes' expressions and the expressions they read in turn. A slot
// whose expressions read by computed names gets a key of its own.
func (v *view) key(ad *classad.Ad, buf []byte) []byte {
	r := ast.NewRefs()
	for _, n := range v.names {
		r.Attr(ad, n)
	}
	if r.Escape {
		return append(append(buf, "\x00unique\x00"...), stringAttr(ad, attr.Name)...)
	}
	seen := make([]string, 0, len(r.Self))
	for k := range r.Self {
		seen = append(seen, k)
	}
	slices.Sort(seen)
	for _, n := range seen {
		buf = append(buf, n...)
		buf = append(buf, '=')
		buf = ast.AppendExpr(buf, ad.Expr(ad.Index(n)))
		buf = append(buf, 0)
	}
	return buf
}

// jobSide is a request's evaluation against one group of a view: whether
// its Requirements hold, and its Rank and requests there.
type jobSide struct {
	state uint8 // 0 unknown, 1 fails, 2 holds
	rank  float64
	req   fit.Resources // what one job asks of a partitionable slot
	// custom is what it asks of the slot's custom resources (GPUs, ...).
	custom fit.Counts
}
