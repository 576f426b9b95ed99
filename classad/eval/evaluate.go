package eval

import "errors"

// Eval evaluates p with MY bound to the state's ad and TARGET to its
// target (see NewState and Reset).
func (st *State) Eval(p *Program) Value {
	sc := emptyScope
	if st.my != nil {
		sc = st.my.Scope()
	}
	st.depth += int(p.depth)
	defer func() { st.depth -= int(p.depth) }()
	if st.depth > MaxDepth {
		return st.fail("evaluation nested more than %d levels deep", MaxDepth)
	}
	return p.n.eval(st, sc)
}

// EvalAttr evaluates the attribute called name of the state's ad, as a
// reference to it would: UNDEFINED when there is none.
func (st *State) EvalAttr(name string) Value {
	if st.my == nil {
		return Undefined()
	}
	i := st.my.Index(name)
	if i < 0 {
		return Undefined()
	}
	return st.evalAttr(st.my.Scope(), i)
}

// ErrEvalFailed is returned when an evaluation exceeds a limit (depth or
// steps); the value is then ERROR.
var ErrEvalFailed = errors.New("classad evaluation failed")

// Evaluate evaluates p in my against target (either may be nil) with a
// pooled state. The error is non-nil only when evaluation itself failed.
func Evaluate(p *Program, my, target *Ad) (Value, error) {
	st := getState(my, target)
	defer putState(st)
	v := st.Eval(p)
	if f := st.Failure(); f != "" {
		return v, errors.Join(ErrEvalFailed, errors.New(f))
	}
	return v, nil
}

// EvaluateAttr evaluates the attribute called name of my against target.
func EvaluateAttr(my *Ad, name string, target *Ad) (Value, error) {
	st := getState(my, target)
	defer putState(st)
	v := st.EvalAttr(name)
	if f := st.Failure(); f != "" {
		return v, errors.Join(ErrEvalFailed, errors.New(f))
	}
	return v, nil
}
