package eval

import "github.com/kite-sched/kite/classad/ast"

// litNode is a constant.
type litNode struct{ v Value }

func (n *litNode) eval(*State, *Scope) Value { return n.v }

// refNode is an unscoped attribute reference: looked up in the current
// record, the records enclosing it, then the other ad of the match.
type refNode struct {
	name string
	hash uint32
}

func (n *refNode) eval(st *State, sc *Scope) Value { return st.lookup(sc, n.name, n.hash) }

// absRefNode is `.name`: looked up from the outermost record.
type absRefNode struct {
	name string
	hash uint32
}

func (n *absRefNode) eval(st *State, sc *Scope) Value {
	v, _ := st.lookupChain(sc.top(), n.name, n.hash)
	return v
}

// scopeNode is a scope keyword used as a value: MY, TARGET, PARENT, ...
type scopeNode struct {
	kind scopeKind
	name string
	hash uint32
}

func (n *scopeNode) eval(st *State, sc *Scope) Value {
	if shadowed(sc, n.kind, n.name, n.hash) {
		return st.lookup(sc, n.name, n.hash)
	}
	if s := st.resolveScope(sc, n.kind); s != nil {
		return recordOf(s)
	}
	return Undefined()
}

// scopedRefNode is `MY.name`, `TARGET.name` and the like, resolved without
// building the intermediate record value.
type scopedRefNode struct {
	kind      scopeKind
	scopeName string
	scopeHash uint32
	name      string
	hash      uint32
}

func (n *scopedRefNode) eval(st *State, sc *Scope) Value {
	if shadowed(sc, n.kind, n.scopeName, n.scopeHash) {
		return st.selectAttr(st.lookup(sc, n.scopeName, n.scopeHash), n.name, n.hash)
	}
	s := st.resolveScope(sc, n.kind)
	if s == nil {
		return Undefined()
	}
	v, _ := st.lookupChain(s, n.name, n.hash)
	return v
}

// selectNode is `X.name`.
type selectNode struct {
	x    node
	name string
	hash uint32
}

func (n *selectNode) eval(st *State, sc *Scope) Value {
	return st.selectAttr(n.x.eval(st, sc), n.name, n.hash)
}

// selectAttr picks attribute name out of v: a record's attribute (looked up
// in the record and the records enclosing it), or, for a list, the list of
// that attribute of each element.
func (st *State) selectAttr(v Value, name string, h uint32) Value {
	switch v.kind {
	case RecordKind:
		s := v.scope()
		r, _ := st.lookupChain(s, name, h)
		return r
	case ListKind:
		l := v.list()
		out := make([]Value, l.Len())
		for i := range out {
			out[i] = st.selectAttr(l.elem(st, i), name, h)
		}
		return ListOf(out...)
	case UndefinedKind:
		return Undefined()
	}
	return Error()
}

// indexNode is `X[I]`: a list element by position or a record attribute by name.
type indexNode struct{ x, i node }

func (n *indexNode) eval(st *State, sc *Scope) Value {
	x := n.x.eval(st, sc)
	i := n.i.eval(st, sc)
	switch {
	case x.kind == ErrorKind || i.kind == ErrorKind:
		return Error()
	case x.kind == UndefinedKind || i.kind == UndefinedKind:
		return Undefined()
	}
	switch x.kind {
	case ListKind:
		l := x.list()
		if i.kind != IntKind {
			return Error()
		}
		// HTCondor reads the index as a C int.
		if k := int32(i.i()); k >= 0 && int(k) < l.Len() {
			return l.elem(st, int(k))
		}
		return Error()
	case RecordKind:
		if i.kind != StringKind {
			return Error()
		}
		// Unlike r.name, r["name"] looks only in r itself.
		s := x.scope()
		if k := s.ad.find(i.str(), ast.FoldHash(i.str())); k >= 0 {
			return st.evalAttr(s, k)
		}
		return Undefined()
	}
	return Error()
}

// unaryNode is a prefix operator.
type unaryNode struct {
	op ast.Op
	x  node
}

func (n *unaryNode) eval(st *State, sc *Scope) Value { return unary(n.op, n.x.eval(st, sc)) }

// binaryNode is a strict infix operator: arithmetic, comparison, bitwise.
type binaryNode struct {
	op   ast.Op
	x, y node
}

func (n *binaryNode) eval(st *State, sc *Scope) Value {
	return binary(n.op, n.x.eval(st, sc), n.y.eval(st, sc))
}

// andNode is `&&`, evaluated left to right with short circuit.
type andNode struct{ a, b node }

func (n *andNode) eval(st *State, sc *Scope) Value {
	a := n.a.eval(st, sc)
	l, ok := logical(a)
	switch {
	case !ok || a.kind == ErrorKind:
		return Error()
	case !l && a.kind != UndefinedKind:
		return Bool(false)
	}
	b := n.b.eval(st, sc)
	r, ok := logical(b)
	switch {
	case !ok || b.kind == ErrorKind:
		return Error()
	case b.kind == UndefinedKind:
		return Undefined()
	case a.kind == UndefinedKind:
		if !r {
			return Bool(false)
		}
		return Undefined()
	}
	return Bool(r)
}

// orNode is `||`, evaluated left to right with short circuit.
type orNode struct{ a, b node }

func (n *orNode) eval(st *State, sc *Scope) Value {
	a := n.a.eval(st, sc)
	l, ok := logical(a)
	switch {
	case !ok || a.kind == ErrorKind:
		return Error()
	case l:
		return Bool(true)
	}
	b := n.b.eval(st, sc)
	r, ok := logical(b)
	switch {
	case !ok || b.kind == ErrorKind:
		return Error()
	case a.kind == UndefinedKind:
		if r {
			return Bool(true)
		}
		return Undefined()
	case b.kind == UndefinedKind:
		return Undefined()
	}
	return Bool(r)
}

// logical converts an operand of && || ! ?: to a boolean: booleans as they
// are, numbers true when non-zero. UNDEFINED and ERROR pass (ok, with their
// kind left for the caller to check); any other type is not a boolean.
func logical(v Value) (b, ok bool) {
	switch v.kind {
	case BoolKind, IntKind:
		return v.n != 0, true
	case RealKind:
		return v.r() != 0, true
	case UndefinedKind, ErrorKind:
		return false, true
	}
	return false, false
}

// condNode is `c ? a : b`: only the chosen branch is evaluated.
type condNode struct{ c, a, b node }

func (n *condNode) eval(st *State, sc *Scope) Value {
	c := n.c.eval(st, sc)
	b, ok := logical(c)
	switch {
	case !ok || c.kind == ErrorKind:
		return Error()
	case c.kind == UndefinedKind:
		return Undefined()
	case b:
		return n.a.eval(st, sc)
	}
	return n.b.eval(st, sc)
}

// elvisNode is `a ?: b`: a unless a is UNDEFINED.
type elvisNode struct{ a, b node }

func (n *elvisNode) eval(st *State, sc *Scope) Value {
	if a := n.a.eval(st, sc); a.kind != UndefinedKind {
		return a
	}
	return n.b.eval(st, sc)
}

// isNode is `=?=` (or `=!=` when not): identity without type promotion;
// never UNDEFINED, and ERROR only when comparing two lists or two records.
type isNode struct {
	a, b node
	not  bool
}

func (n *isNode) eval(st *State, sc *Scope) Value {
	a, b := n.a.eval(st, sc), n.b.eval(st, sc)
	if n.not {
		return notIdentical(a, b)
	}
	return identical(a, b)
}

// callNode is a function call.
type callNode struct {
	src  *ast.Call
	fn   *Builtin
	args []node
}

func (n *callNode) eval(st *State, sc *Scope) Value {
	fn := n.fn
	if fn == nil || len(n.args) < fn.MinArgs || (fn.MaxArgs >= 0 && len(n.args) > fn.MaxArgs) {
		return Error()
	}
	if fn.Lazy != nil {
		return fn.Lazy(st, sc, n.args)
	}
	base := len(st.args)
	for _, a := range n.args {
		st.args = append(st.args, a.eval(st, sc))
	}
	v := fn.Fn(&Call{st: st, sc: sc}, st.args[base:])
	clear(st.args[base:])
	st.args = st.args[:base]
	return v
}

// listNode is a list literal. It evaluates to a list bound to the current
// scope; a list of constants is built once.
type listNode struct {
	src      *ast.List
	elems    []node
	constant *List
}

func (n *listNode) eval(st *State, sc *Scope) Value {
	if n.constant != nil {
		return listOf(n.constant)
	}
	return listOf(&List{src: n.src, elems: n.elems, scope: sc})
}

// recordNode is a record literal. It evaluates to the record nested in the
// current scope.
type recordNode struct{ ad *Ad }

func (n *recordNode) eval(st *State, sc *Scope) Value {
	return recordOf(&Scope{ad: n.ad, parent: sc})
}
