package matchmaker

import (
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/fit"
)

// A slot class is a set of slots that no job can tell apart: their
// significant attributes (every slot attribute a job's Requirements or
// Rank, the slots' own Requirements and Rank, or the policy can read) have
// the same expressions. Each request is evaluated once per class, not once
// per slot; a pool of a few hardware types is a few classes however many
// slots it has.

// slot is one slot of the cycle.
type slot struct {
	index  int // in the market's slots
	ad     *classad.Ad
	name   string
	order  uint64  // seeded tie-break among equally ranked slots
	weight float64 // SlotWeight, or Cpus
	busy   bool    // claimed and running a job: a candidate only to preempt
	pslot  bool    // partitionable: matched jobs carve dynamic slots from it
	taken  bool    // matched this cycle (a partitionable slot: used up)
	escape bool    // its expressions read attributes by computed names
	cls    *class
	// What a partitionable slot has left.
	cpus, memory, disk float64
	custom             fit.Counts // of its custom resources (GPUs, ...)
}

// class is a set of indistinguishable slots.
type class struct {
	id      int
	rep     *classad.Ad // any member: the one evaluated
	members []*slot     // in tie-break order once sorted; taken ones skipped
	head    int         // members before head are taken or gone
	order   uint64      // the first member's tie-break: orders equal classes
	busy    bool
	pslot   bool
	// What a partitionable class's slots have left.
	cpus, memory, disk float64
	custom             fit.Counts // of their custom resources (GPUs, ...)
}

// first returns the class's first free member, or nil.
func (c *class) first() *slot {
	for c.head < len(c.members) {
		if s := c.members[c.head]; !s.taken && s.cls == c {
			return s
		}
		c.head++
	}
	return nil
}

// Attributes the cycle itself reads from slots, significant whatever the
// expressions say.
var cycleAttrs = []string{
	attr.State, attr.Activity, attr.Cpus, attr.Memory, attr.Disk, attr.SlotWeight,
	attr.PartitionableSlot, attr.SlotType, currentRank, attr.RemoteUser, attr.RemoteOwner,
	machineResources,
}

// machineResources lists a slot's resources, custom ones (GPUs, ...)
// after Cpus, Memory and Disk: HTCondor's MachineResources.
const machineResources = "MachineResources"

// customCounts reads what a partitionable slot has of each custom
// resource its MachineResources names; nil when it has none.
func customCounts(ad *classad.Ad) fit.Counts {
	var out fit.Counts
	for _, n := range strings.Fields(stringAttr(ad, machineResources)) {
		switch strings.ToLower(n) {
		case "cpus", "memory", "disk", "swap":
			continue
		}
		if out == nil {
			out = fit.Counts{}
		}
		out[n] = int64(numberAttr(ad, n, 0))
	}
	return out
}

// currentRank is the slot's Rank of the job it runs.
const currentRank = "CurrentRank"

// significance is the set of significant slot attributes of a cycle.
type significance struct {
	names  []string // sorted, lower case
	escape bool     // some job reads attributes by computed name: no classes
	// slotEscapes marks, by index in the snapshot, the slots whose own
	// expressions read attributes by computed name: each is a class alone.
	slotEscapes []bool
}

// significantAttrs finds the significant slot attributes: what the
// requests read of slots, what slots read of themselves, and what the
// policy reads.
func significantAttrs(snap *Snapshot, pol *Policy) significance {
	set := map[string]bool{}
	for _, a := range cycleAttrs {
		set[ast.Lower(a)] = true
	}
	var escape bool
	for _, s := range snap.Submitters {
		for _, r := range s.Requests {
			rr := ast.NewRefs()
			rr.Follow(r.Ad, attr.Requirements, attr.Rank, attr.ConcurrencyLimit)
			escape = escape || rr.Escape
			for k := range rr.Other {
				set[k] = true
			}
		}
	}
	rr := ast.NewRefs()
	slotEscapes := make([]bool, len(snap.Slots))
	for k, sl := range snap.Slots {
		rr.Reset()
		rr.Follow(sl, attr.Requirements, attr.Rank, attr.Start)
		for k := range rr.Self {
			set[k] = true
		}
		slotEscapes[k] = rr.Escape
	}
	for k := range pol.refs().Other {
		set[k] = true
	}
	out := significance{escape: escape, slotEscapes: slotEscapes}
	for k := range set {
		out.names = append(out.names, k)
	}
	sort.Strings(out.names)
	return out
}

// signature is a slot's class key: its significant attributes' texts. A
// slot whose own expressions read by computed names gets a key of its own.
func (sig significance) signature(s *slot, buf []byte) []byte {
	buf = buf[:0]
	ad := s.ad
	if sig.escape || s.escape {
		return append(append(buf, "\x00unique\x00"...), s.name...)
	}
	for _, n := range sig.names {
		buf = append(buf, n...)
		buf = append(buf, '=')
		if i := ad.Index(n); i >= 0 {
			buf = ast.AppendExpr(buf, ad.Expr(i))
		}
		buf = append(buf, 0)
	}
	return buf
}

// classifier sorts slots into classes and keeps classes for slots that
// change during the cycle (partitionable slots shrinking).
type classifier struct {
	sig     significance
	classes []*class
	byKey   map[string]*class
	buf     []byte
}

func newClassifier(sig significance) *classifier {
	return &classifier{sig: sig, byKey: map[string]*class{}}
}

// add puts a slot into its class, creating the class if new. It reports
// whether an existing class that had no free member got one back.
func (c *classifier) add(s *slot) (refilled bool) {
	c.buf = c.sig.signature(s, c.buf)
	cl := c.byKey[string(c.buf)]
	if cl == nil {
		cl = &class{id: len(c.classes), rep: s.ad, busy: s.busy, pslot: s.pslot, order: s.order,
			cpus: s.cpus, memory: s.memory, disk: s.disk, custom: s.custom}
		c.classes = append(c.classes, cl)
		c.byKey[string(c.buf)] = cl
	} else {
		refilled = cl.first() == nil
	}
	cl.members = append(cl.members, s)
	s.cls = cl
	return refilled
}

// sortMembers orders every class's slots by their tie-break order.
func (c *classifier) sortMembers() {
	for _, cl := range c.classes {
		sort.Slice(cl.members, func(i, j int) bool { return cl.members[i].order < cl.members[j].order })
		cl.order = cl.members[0].order
	}
}

// newSlot reads what the cycle needs of a slot ad; nil for slots that
// cannot take a job now (owner, matched, draining, claimed and idle).
func newSlot(ad *classad.Ad, seed uint64, considerPreemption bool) *slot {
	state, activity := stringAttr(ad, attr.State), stringAttr(ad, attr.Activity)
	s := &slot{ad: ad, name: stringAttr(ad, attr.Name)}
	switch {
	case strings.EqualFold(state, "Unclaimed"):
	case strings.EqualFold(state, "Claimed") && strings.EqualFold(activity, "Busy") && considerPreemption:
		s.busy = true
	default:
		return nil
	}
	s.pslot = boolAttr(ad, attr.PartitionableSlot) || strings.EqualFold(stringAttr(ad, attr.SlotType), "Partitionable")
	s.weight = slotWeight(ad)
	if s.pslot {
		s.cpus = numberAttr(ad, attr.Cpus, 0)
		s.memory = numberAttr(ad, attr.Memory, 0)
		s.disk = numberAttr(ad, attr.Disk, 0)
		s.custom = customCounts(ad)
	}
	s.order = tieBreak(seed, s.name)
	return s
}

// tieBreak orders slots of equal rank: a hash of the name and the seed,
// so that matches spread over machines yet repeat with the same seed.
func tieBreak(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatUint(seed, 10)))
	h.Write([]byte(name))
	return h.Sum64()
}

// literal returns the attribute's expression when it is a literal: most
// attributes the cycle reads are, and need no evaluation.
func literal(ad *classad.Ad, name string) (l *ast.Literal, found bool) {
	i := ad.Index(name)
	if i < 0 {
		return nil, false
	}
	l, _ = ad.Expr(i).(*ast.Literal)
	return l, true
}

func stringAttr(ad *classad.Ad, name string) string {
	l, found := literal(ad, name)
	switch {
	case !found:
		return ""
	case l != nil:
		return l.Str // "" unless a string
	}
	v, _ := classad.EvalAttr(ad, name, nil)
	s, _ := v.StringValue()
	return s
}

func boolAttr(ad *classad.Ad, name string) bool {
	l, found := literal(ad, name)
	switch {
	case !found:
		return false
	case l != nil:
		return l.Kind == ast.BoolLit && l.Bool
	}
	v, _ := classad.EvalAttr(ad, name, nil)
	b, ok := v.BoolValue()
	return ok && b
}

func numberAttr(ad *classad.Ad, name string, def float64) float64 {
	l, found := literal(ad, name)
	switch {
	case !found:
		return def
	case l != nil && l.Kind == ast.IntLit:
		return float64(l.Int)
	case l != nil && l.Kind == ast.RealLit:
		return l.Real
	case l != nil:
		return def
	}
	v, _ := classad.EvalAttr(ad, name, nil)
	if f, ok := v.NumberValue(); ok {
		return f
	}
	return def
}

// slotWeight is HTCondor's SLOT_WEIGHT: the SlotWeight attribute, else Cpus.
func slotWeight(ad *classad.Ad) float64 {
	if w := numberAttr(ad, attr.SlotWeight, -1); w >= 0 {
		return w
	}
	return numberAttr(ad, attr.Cpus, 1)
}
