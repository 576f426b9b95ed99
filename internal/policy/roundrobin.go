package policy

import (
	"cmp"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// RoundRobin hands out slots in turn: each job gets the first free slot it
// matches whose key comes after the key of the last slot handed out,
// wrapping around past the end — the "round-robin" task assignment of the
// literature (Harchol-Balter et al. 1998; paper 003). Keys are compared
// as strings; slots with equal keys are one stop of the turn. The turn
// carries over from cycle to cycle, so one instance must serve a whole
// negotiator or simulation run (policy.New makes a fresh one). Requests
// are served oldest first; ranks are ignored.
//
// Parameters:
//
//	key  the slot attribute that orders the turn: "Name" (the default:
//	     every slot in turn) or "Machine" (every host in turn, whatever
//	     its number of slots).
type RoundRobin struct {
	key  string
	last string // key of the last slot handed out
}

func init() { Register("round-robin", func() Strategy { return &RoundRobin{} }) }

// Name implements Strategy.
func (*RoundRobin) Name() string { return "round-robin" }

// Configure implements Configurable.
func (r *RoundRobin) Configure(p Params) error {
	if err := p.only("key"); err != nil {
		return err
	}
	key, err := p.String("key", attr.Name)
	if err != nil {
		return err
	}
	if key == "" {
		return errEmpty("key")
	}
	r.key = key
	return nil
}

// Distribute implements Strategy.
func (r *RoundRobin) Distribute(m Market) {
	key := cmp.Or(r.key, attr.Name)
	slots := m.Slots()
	keys := make(map[int]string)
	keyOf := func(i int) string {
		k, ok := keys[i]
		if !ok {
			k = classad.EvalStringOr(slots[i].Ad, key, "")
			keys[i] = k
		}
		return k
	}
	var cands []int
	for _, j := range requestsByAge(m) {
		cands = m.Candidates(j, cands[:0])
		slices.SortStableFunc(cands, func(a, b int) int { return cmp.Compare(keyOf(a), keyOf(b)) })
		for m.Remaining(j) > 0 {
			i := r.next(m, j, cands, keyOf)
			if i < 0 {
				noSlot(m, j)
				break
			}
			if _, why := m.Assign(j, i); why != OK {
				m.Reject(j, why)
				break
			}
			r.last = keyOf(i)
		}
	}
}

// next returns the first free candidate after the last key, wrapping
// around, or -1.
func (r *RoundRobin) next(m Market, j int, cands []int, keyOf func(int) string) int {
	start, _ := slices.BinarySearchFunc(cands, r.last, func(i int, k string) int { return cmp.Compare(keyOf(i), k) })
	for start < len(cands) && keyOf(cands[start]) == r.last {
		start++
	}
	for n := range len(cands) {
		i := cands[(start+n)%len(cands)]
		if m.Free(i) && m.Matches(j, i) {
			return i
		}
	}
	return -1
}
