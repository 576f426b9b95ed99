package submit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// Cluster is the job ads of one cluster. Attributes common to every proc
// are in Ad; each proc's ad holds its ProcId and only the attributes that
// differ. Job(i) merges the two.
type Cluster struct {
	Ad    *classad.Ad   // attributes common to all procs, including ClusterId
	Procs []*classad.Ad // per proc: ProcId and the attributes that differ
}

// Job returns the full ad of proc i: the common attributes with the
// proc's own set over them.
func (c *Cluster) Job(i int) *classad.Ad {
	ad := c.Ad.Clone()
	for name, e := range c.Procs[i].All() {
		ad.Set(name, e)
	}
	return ad
}

// Expand makes the job ads of the cluster the description describes. It
// reads files and runs commands only through env's hooks. On error it
// returns no cluster; the error is an *Error naming the file and line.
func (d *Description) Expand(env Env) (*Cluster, []Warning, error) {
	return d.expand(env, false)
}

// expand is Expand; slow builds every proc from scratch, as a reference
// for tests of the fast path.
func (d *Description) expand(env Env, slow bool) (*Cluster, []Warning, error) {
	x := newExpander(d, &env)
	x.slow = slow
	if err := x.statements(); err != nil {
		return nil, nil, err
	}
	c := x.cluster()
	if err := x.sitaFit(c); err != nil {
		return nil, nil, err
	}
	return c, x.warnings, nil
}

// expander is the state of one Expand.
type expander struct {
	d        *Description
	env      *Env
	defs     *macros
	sc       *scope
	exprs    map[string]ast.Expr // parsed expressions by text
	ints     map[int64]*ast.Literal
	groups   []*group
	nextProc int
	warnings []Warning
	// ran is the statements run, in order: those of the file and of the
	// files it includes, less those in the branches of if statements not
	// taken.
	ran    []stmt
	queued int // queue statements run
	// maxProcs, when positive, bounds the number of procs (Env.MaxJobs).
	maxProcs int
	// slow makes every step dynamic, so that every proc is built from
	// scratch; tests compare it with the fast path.
	slow bool
}

// group is the procs of one queue statement: the attributes they share,
// and each proc's own attributes, kept in one arena.
type group struct {
	static *classad.Ad
	attrs  []attrVal
	procs  []procAttrs
}

// procAttrs locates one proc's own attributes in its group's arena.
type procAttrs struct {
	id         int
	start, end int
}

func newExpander(d *Description, env *Env) *expander {
	x := &expander{
		d: d, env: env, defs: newMacros(),
		exprs: map[string]ast.Expr{}, ints: map[int64]*ast.Literal{},
		maxProcs: env.MaxJobs,
	}
	x.sc = newScope(x.defs, env, d.file)
	return x
}

// errorPos returns an error at a position of the submit file or of a
// file it includes.
func (x *expander) errorPos(p pos, format string, args ...any) error {
	if p.File == "" {
		p.File = x.d.file
	}
	return &Error{File: p.File, Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...)}
}

// expansionError places an error expanding the value of m: at the column
// of the macro function that failed when m's value as written holds it,
// else at m's line (or at, when m is nil).
func (x *expander) expansionError(err error, m *macro, at pos) error {
	if m == nil {
		return x.errorPos(at, "%v", err)
	}
	var fe *funcError
	if errors.As(err, &fe) && fe.in != "" {
		if d := x.defs.lookup(strings.ToLower(fe.in)); d != nil {
			m = d
		}
	}
	if fe != nil && !m.item {
		if i := strings.Index(m.value, fe.text); i >= 0 {
			return x.errorPos(m.sp.at(i), "%s: %v", m.name, err)
		}
	}
	return x.errorPos(m.sp.where(), "%v", err)
}

// warn records a warning.
func (x *expander) warn(p pos, msg string) {
	if p.File == "" {
		p.File = x.d.file
	}
	w := Warning{File: p.File, Line: p.Line, Msg: msg}
	for _, o := range x.warnings {
		if o == w {
			return
		}
	}
	x.warnings = append(x.warnings, w)
}

// intLit returns a shared literal for small integers.
func (x *expander) intLit(i int64) *ast.Literal {
	if l, ok := x.ints[i]; ok {
		return l
	}
	l := ast.Int(i)
	if len(x.ints) < 4096 {
		x.ints[i] = l
	}
	return l
}

// parseExpr parses an expression once per distinct text. A syntax error
// is placed at the line and column of the submit file when the text is the
// value of m as written (or the error lies before its first macro).
func (x *expander) parseExpr(text string, m *macro) (ast.Expr, error) {
	if e, ok := x.exprs[text]; ok {
		return e, nil
	}
	e, err := classad.ParseExpr(text)
	if err == nil {
		x.exprs[text] = e
		return e, nil
	}
	var pe *classad.ParseError
	if !errors.As(err, &pe) || m == nil {
		return nil, x.errorPos(pos{}, "%v", err)
	}
	return nil, x.exprError(m, text, pe)
}

// exprError places a ClassAd syntax error in the submit file.
func (x *expander) exprError(m *macro, text string, pe *classad.ParseError) error {
	raw, lead := trimLeft(m.value)
	if i := strings.IndexByte(raw, '$'); i >= 0 {
		raw = raw[:i]
	}
	if pe.Offset <= len(raw) && strings.HasPrefix(text, raw[:pe.Offset]) && len(raw) > 0 {
		p := m.sp.at(lead + pe.Offset)
		return x.errorPos(p, "%s: %s", m.name, pe.Msg)
	}
	p := m.sp.at(lead)
	return x.errorPos(p, "%s: %s (in %q)", m.name, pe.Msg, text)
}

// evalInt evaluates a constant integer expression, as condor_submit reads
// integer commands ("5", "2*8").
func (x *expander) evalInt(text string) (int64, bool) {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, true
	}
	v, ok := x.evalConst(text)
	if !ok {
		return 0, false
	}
	return v.IntValue()
}

// parseBool reads a boolean command: true/false, yes/no, t/f, 1/0, or a
// constant expression.
func (x *expander) parseBool(text string) (bool, bool) {
	switch strings.ToLower(text) {
	case "true", "yes", "t", "y", "1":
		return true, true
	case "false", "no", "f", "n", "0":
		return false, true
	}
	v, ok := x.evalConst(text)
	if !ok {
		return false, false
	}
	return v.BoolValue()
}

// evalConst evaluates an expression with no ad.
func (x *expander) evalConst(text string) (classad.Value, bool) {
	p, err := classad.Compile(text)
	if err != nil {
		return classad.Value{}, false
	}
	v, err := classad.Eval(p, nil, nil)
	return v, err == nil
}
