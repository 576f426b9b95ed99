package eval

import (
	"fmt"
	"sync"
	"time"
)

// Evaluation limits, HTCondor's own (MAX_CLASSAD_RECURSION and
// MAX_CLASSAD_EVAL_STEPS): the depth bounds nesting, the step budget bounds
// total work, since `A = B + B; B = C + C; ...` is shallow but exponential.
const (
	MaxDepth = 400
	MaxSteps = 10_000_000
)

// State is the working state of one evaluation: the match pair that
// unscoped names fall back on, the depth and step budget, and the
// attributes being evaluated (a reference back to one of them is a cycle and
// yields UNDEFINED). A State is reused across evaluations with Reset, which
// keeps evaluation free of allocation; it is not safe for concurrent use.
type State struct {
	my, target *Ad
	depth      int
	steps      int
	active     []activeAttr
	args       []Value // argument stack for builtin calls
	failure    string
	// Now returns the current time for time() and related functions;
	// nil means time.Now. The simulator sets it to its virtual clock.
	Now func() time.Time
}

type activeAttr struct {
	ad *Ad
	i  int
}

// NewState returns a state for evaluating in my, with target as the other
// ad of a match (nil when there is none).
func NewState(my, target *Ad) *State {
	st := &State{}
	st.Reset(my, target)
	return st
}

// Reset prepares st for a new evaluation in my against target.
func (st *State) Reset(my, target *Ad) {
	st.my, st.target = my, target
	st.depth, st.steps = 0, 0
	st.active = st.active[:0]
	st.args = st.args[:0]
	st.failure = ""
}

// Failure returns why the last evaluation failed outright (a depth or step
// limit), or "" if it did not. A failed evaluation yields ERROR.
func (st *State) Failure() string { return st.failure }

func (st *State) fail(format string, args ...any) Value {
	if st.failure == "" {
		st.failure = fmt.Sprintf(format, args...)
	}
	return Error()
}

func (st *State) now() time.Time {
	if st.Now != nil {
		return st.Now()
	}
	return time.Now()
}

var statePool = sync.Pool{New: func() any { return &State{} }}

// getState takes a state from the pool, reset for my and target.
func getState(my, target *Ad) *State {
	st := statePool.Get().(*State)
	st.Reset(my, target)
	st.Now = nil
	return st
}

func putState(st *State) {
	st.my, st.target = nil, nil
	statePool.Put(st)
}

// evalAttr evaluates attribute i of scope s's ad in scope s.
func (st *State) evalAttr(s *Scope, i int) Value {
	c := s.ad.compiled(i)
	if c.lit {
		return c.val
	}
	return st.enter(s, i, c)
}

// enter evaluates c as attribute i of scope s's ad: counted against the
// limits and, while it runs, marked active so that a reference back to it
// is seen as a cycle.
func (st *State) enter(s *Scope, i int, c *compiled) Value {
	if st.failure != "" {
		return Error()
	}
	for _, a := range st.active {
		if a.ad == s.ad && a.i == i {
			return Undefined() // a reference cycle
		}
	}
	st.steps++
	st.depth += int(c.depth)
	if st.steps > MaxSteps {
		return st.fail("evaluation took more than %d steps", MaxSteps)
	}
	if st.depth > MaxDepth {
		return st.fail("evaluation nested more than %d levels deep", MaxDepth)
	}
	st.active = append(st.active, activeAttr{s.ad, i})
	v := c.n.eval(st, s)
	st.active = st.active[:len(st.active)-1]
	st.depth -= int(c.depth)
	return v
}

// lookup resolves an unscoped attribute name from scope sc: in sc and the
// records it is nested in, then in the other ad of the match pair.
func (st *State) lookup(sc *Scope, name string, h uint32) Value {
	if v, ok := st.lookupChain(sc, name, h); ok {
		return v
	}
	if alt := st.alternate(sc); alt != nil {
		if v, ok := st.lookupChain(alt, name, h); ok {
			return v
		}
	}
	return Undefined()
}

// lookupChain looks name up in sc and its enclosing records.
func (st *State) lookupChain(sc *Scope, name string, h uint32) (Value, bool) {
	for s := sc; s != nil; s = s.parent {
		if i := s.ad.find(name, h); i >= 0 {
			return st.evalAttr(s, i), true
		}
	}
	return Value{}, false
}

// alternate returns the scope unscoped names fall back on from sc: when sc's
// outermost record is one ad of the match pair, the other one.
func (st *State) alternate(sc *Scope) *Scope {
	top := sc.top()
	switch {
	case st.target != nil && top.ad == st.my:
		return st.target.Scope()
	case st.my != nil && top.ad == st.target:
		return st.my.Scope()
	}
	return nil
}

func (s *Scope) top() *Scope {
	for s.parent != nil {
		s = s.parent
	}
	return s
}

// scopeKind is a name the evaluator resolves specially.
type scopeKind uint8

const (
	scopeNone   scopeKind = iota
	scopeMy               // MY, SELF: the current record
	scopeTarget           // TARGET, OTHER: the other ad of the match
	scopeParent           // PARENT: the enclosing record
	scopeRoot             // ROOT, TOPLEVEL: the outermost record
)

func scopeKindOf(name string) scopeKind {
	switch {
	case !isScopeName(name):
		return scopeNone
	case len(name) == 2 || len(name) == 4 && name[0]|0x20 == 's':
		return scopeMy
	case len(name) == 5 || len(name) == 6 && name[0]|0x20 == 't':
		return scopeTarget
	case len(name) == 6:
		return scopeParent
	}
	return scopeRoot
}

// resolveScope returns the record a scope keyword names from sc, or nil.
// Callers first check that no attribute shadows the keyword (shadowed).
func (st *State) resolveScope(sc *Scope, k scopeKind) *Scope {
	switch k {
	case scopeMy:
		return sc
	case scopeParent:
		return sc.parent
	case scopeRoot:
		return sc.top()
	case scopeTarget:
		return st.alternate(sc)
	}
	return nil
}

// shadowed reports whether an attribute named like a scope keyword is
// visible from sc, so the keyword must be looked up as an attribute.
func shadowed(sc *Scope, k scopeKind, name string, h uint32) bool {
	if k != scopeTarget {
		return sc.ad.special > 0 && sc.ad.find(name, h) >= 0
	}
	for s := sc; s != nil; s = s.parent {
		if s.ad.special > 0 && s.ad.find(name, h) >= 0 {
			return true
		}
	}
	return false
}
