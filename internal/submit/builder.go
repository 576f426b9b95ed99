package submit

import (
	"fmt"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// A step turns one command (or a few related ones) into job attributes. It
// reads commands and earlier attributes only through the builder, so the
// builder knows whether the step depends on the proc being made.
type step struct {
	name string
	run  func(b *builder) error
}

// attrVal is one attribute a step sets.
type attrVal struct {
	name string
	expr ast.Expr
}

// builder runs steps for one queue statement. The first proc of the
// statement is built in tracking mode: every step runs, and a step that
// read a per-proc value (such as $(Process)) is marked dynamic; the
// attributes of the other steps are the statement's static ad. Every
// further proc runs only the dynamic steps, writing into its own ad.
type builder struct {
	x      *expander
	stmt   *stmt // the queue statement, for errors not tied to a command
	exp    expansion
	cache  map[string]cached // expanded command values that are not per-proc
	static *classad.Ad       // attributes of static steps
	dyn    attrList          // attributes of dynamic steps (the proc's own)
	// tracking is set while building the statement's first proc.
	tracking bool
	// dynamic holds the indexes of the dynamic steps.
	dynamic []int
	pending []attrVal // attributes the current step set
	errM    *macro    // the command whose expansion failed
	nprocs  int       // how many procs the statement makes
	live    bool      // the current step read a per-proc value
}

// cached is a command value expanded once for the whole statement.
type cached struct {
	value string
	live  bool
}

// runStep runs one step and files its attributes.
func (b *builder) runStep(i int, s step) error {
	b.live, b.pending = false, b.pending[:0]
	if err := s.run(b); err != nil {
		return err
	}
	if b.exp.err != nil {
		return b.x.expansionError(b.exp.err, b.errM, b.stmt.sp.where())
	}
	if b.x.slow {
		b.live = true
	}
	if b.tracking && !b.live {
		for _, a := range b.pending {
			if _, ok := b.dyn.lookup(a.name); ok {
				b.live = true // a dynamic step set it before: later writes must stay per proc
			}
		}
	}
	for _, a := range b.pending {
		if b.tracking && !b.live {
			b.static.Set(a.name, a.expr)
		} else {
			b.dyn.set(a.name, a.expr)
		}
	}
	if b.tracking && b.live {
		b.dynamic = append(b.dynamic, i)
	}
	return nil
}

// value returns the expanded value of the first of keys that is defined
// (as condor_submit, it does not look further when that one expands to
// nothing), and its definition. An empty value counts as not given.
func (b *builder) value(keys ...string) (string, *macro) {
	for _, k := range keys {
		m := b.command(k)
		if m == nil {
			continue
		}
		return b.expandCommand(k, m), m
	}
	return "", nil
}

// command returns the definition of a command (a lower-cased name) for
// the proc being made. A queue statement's loop variable of the same name
// replaces the file's definition, as in condor_submit, where
// `queue arguments from (...)` sets each job's arguments.
func (b *builder) command(key string) *macro {
	if v, ok := b.x.sc.loopVars[key]; ok {
		return &macro{name: key, value: v, sp: b.stmt.sp, item: true}
	}
	return b.x.defs.lookup(key)
}

// expandCommand expands a command's value, once per statement unless it
// depends on the proc.
func (b *builder) expandCommand(key string, m *macro) string {
	if c, ok := b.cache[key]; ok && !c.live && !b.x.slow {
		return c.value
	}
	was := b.exp.live
	b.exp.live = false
	v := trimSpace(b.exp.expand(m.value))
	if b.exp.err != nil && b.errM == nil {
		b.errM = m
	}
	live := b.exp.live || m.item
	b.exp.live = was || live
	b.live = b.live || live
	if b.tracking {
		b.cache[key] = cached{value: v, live: live}
	}
	return v
}

// defined reports whether any of keys is defined, whatever its value.
func (b *builder) defined(keys ...string) bool {
	for _, k := range keys {
		if b.command(k) != nil {
			return true
		}
	}
	return false
}

// attr returns an attribute set by an earlier step.
func (b *builder) attr(name string) (ast.Expr, bool) {
	for i := len(b.pending) - 1; i >= 0; i-- {
		if ast.EqualFold(b.pending[i].name, name) {
			return b.pending[i].expr, true
		}
	}
	if e, ok := b.dyn.lookup(name); ok {
		b.live = true
		return e, true
	}
	return b.static.Lookup(name)
}

// has reports whether an earlier step set an attribute.
func (b *builder) has(name string) bool {
	_, ok := b.attr(name)
	return ok
}

// attrString returns a string attribute set by an earlier step.
func (b *builder) attrString(name string) string {
	if e, ok := b.attr(name); ok {
		if l, ok := e.(*ast.Literal); ok && l.Kind == ast.StringLit {
			return l.Str
		}
	}
	return ""
}

// set sets an attribute.
func (b *builder) set(name string, e ast.Expr) {
	b.pending = append(b.pending, attrVal{name, e})
}

func (b *builder) setString(name, s string)    { b.set(name, ast.Str(s)) }
func (b *builder) setInt(name string, i int64) { b.set(name, b.x.intLit(i)) }
func (b *builder) setBool(name string, v bool) { b.set(name, boolLit(v)) }

// Shared literals for the booleans; expressions are never changed in place.
var litTrue, litFalse = ast.Bool(true), ast.Bool(false)

func boolLit(v bool) *ast.Literal {
	if v {
		return litTrue
	}
	return litFalse
}

// attrList is a short list of attributes with set-or-replace semantics.
type attrList []attrVal

func (l attrList) lookup(name string) (ast.Expr, bool) {
	for i := range l {
		if ast.EqualFold(l[i].name, name) {
			return l[i].expr, true
		}
	}
	return nil, false
}

func (l *attrList) set(name string, e ast.Expr) {
	for i := range *l {
		if ast.EqualFold((*l)[i].name, name) {
			(*l)[i].expr = e
			return
		}
	}
	*l = append(*l, attrVal{name, e})
}

// setExpr parses text as a ClassAd expression and sets it; m is the
// definition the text came from, for the position of a syntax error.
func (b *builder) setExpr(name, text string, m *macro) error {
	e, err := b.x.parseExpr(text, m)
	if err != nil {
		if xe, ok := err.(*Error); ok && xe.Line == 0 {
			at := b.stmt.sp.where()
			xe.Line = at.Line
			if at.File != "" {
				xe.File = at.File
			}
		}
		return err
	}
	b.set(name, e)
	return nil
}

// errorf returns an error at the line of definition m (or of the queue
// statement when m is nil).
func (b *builder) errorf(m *macro, format string, args ...any) error {
	at := b.stmt.sp.where()
	if m != nil {
		at = m.sp.where()
	}
	return b.x.errorPos(at, format, args...)
}

// boolValue reads a boolean command; def is its value when not given.
func (b *builder) boolValue(def bool, keys ...string) (bool, bool, error) {
	v, m := b.value(keys...)
	if m == nil || v == "" {
		return def, false, nil
	}
	val, ok := b.x.parseBool(v)
	if !ok {
		return def, true, b.errorf(m, "%s = %s is invalid: it must be a boolean", m.name, v)
	}
	return val, true, nil
}

// intValue reads an integer command.
func (b *builder) intValue(keys ...string) (int64, *macro, error) {
	v, m := b.value(keys...)
	if m == nil || v == "" {
		return 0, nil, nil
	}
	n, ok := b.x.evalInt(v)
	if !ok {
		return 0, m, b.errorf(m, "%s = %s is invalid: it must be an integer", m.name, v)
	}
	return n, m, nil
}

// warnf records a warning at the line of m (or of the queue statement).
func (b *builder) warnf(m *macro, format string, args ...any) {
	if !b.tracking {
		return // every proc would repeat the first proc's warnings
	}
	at := b.stmt.sp.where()
	if m != nil {
		at = m.sp.where()
	}
	b.x.warn(at, fmt.Sprintf(format, args...))
}
