package eval

import (
	"log/slog"
	"regexp"
	"sort"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/parser"
)

// Functions about expressions: ifThenElse, eval, unparse, unresolved, debug.

func init() {
	register(
		&Builtin{Name: "ifThenElse", MinArgs: 3, MaxArgs: 3, Pure: true, Lazy: ifThenElse},
		&Builtin{Name: "eval", MinArgs: 1, MaxArgs: 1, Lazy: builtinEval},
		&Builtin{Name: "unparse", MinArgs: 1, MaxArgs: 1, Lazy: builtinUnparse},
		&Builtin{Name: "unresolved", MinArgs: 1, MaxArgs: 2, Lazy: builtinUnresolved},
		&Builtin{Name: "debug", MinArgs: 1, MaxArgs: 1, Lazy: builtinDebug},
	)
}

// ifThenElse evaluates only the branch the condition selects.
func ifThenElse(st *State, sc *Scope, args []node) Value {
	return (&condNode{c: args[0], a: args[1], b: args[2]}).eval(st, sc)
}

// builtinEval parses its argument (converted to a string) as an expression
// and evaluates it where the call is. References inside the string are
// invisible to autoclustering, as in HTCondor.
func builtinEval(st *State, sc *Scope, args []node) Value {
	v := args[0].eval(st, sc)
	switch v.kind {
	case UndefinedKind, ErrorKind:
		return v
	}
	src, _ := toString(v)
	e, err := parser.ParseExpr(src)
	if err != nil {
		return Error()
	}
	st.steps++
	if st.steps > MaxSteps {
		return st.fail("evaluation took more than %d steps", MaxSteps)
	}
	c := compileAttr(e)
	st.depth += int(c.depth)
	defer func() { st.depth -= int(c.depth) }()
	if st.depth > MaxDepth {
		return st.fail("evaluation nested more than %d levels deep", MaxDepth)
	}
	return c.n.eval(st, sc)
}

// attrExpr finds the expression an attribute reference names without
// evaluating it. ok is false when the argument is not an attribute
// reference. Unlike evaluation, an unscoped name is not looked for in the
// target ad.
func attrExpr(st *State, sc *Scope, n node) (e ast.Expr, from *Scope, ok bool) {
	find := func(s *Scope, name string, h uint32) (ast.Expr, *Scope) {
		for ; s != nil; s = s.parent {
			if i := s.ad.find(name, h); i >= 0 {
				return s.ad.attrs[i].expr, s
			}
		}
		return nil, nil
	}
	switch r := n.(type) {
	case *refNode:
		e, s := find(sc, r.name, r.hash)
		return e, s, true
	case *absRefNode:
		e, s := find(sc.top(), r.name, r.hash)
		return e, s, true
	case *scopedRefNode:
		if s := st.resolveScope(sc, r.kind); s != nil {
			e, s := find(s, r.name, r.hash)
			return e, s, true
		}
		return nil, nil, true
	case *selectNode:
		if v := r.x.eval(st, sc); v.kind == RecordKind {
			e, s := find(v.o.(*Scope), r.name, r.hash)
			return e, s, true
		}
		return nil, nil, true
	}
	return nil, nil, false
}

// builtinUnparse returns the text of an attribute's expression, in
// HTCondor's PrettyPrint layout, or "" when there is no such attribute.
func builtinUnparse(st *State, sc *Scope, args []node) Value {
	e, _, ok := attrExpr(st, sc, args[0])
	switch {
	case !ok:
		return Error()
	case e == nil:
		return String("")
	}
	return String(string(ast.AppendPretty(nil, e)))
}

// builtinUnresolved lists the attributes an attribute's expression refers
// to that its ad does not define (sorted, comma-separated), or, with a
// pattern, reports whether any of them matches it.
func builtinUnresolved(st *State, sc *Scope, args []node) Value {
	e, from, ok := attrExpr(st, sc, args[0])
	switch {
	case !ok:
		return Error()
	case e == nil:
		return Undefined()
	}
	names := unresolvedRefs(e, from)
	if len(args) == 1 {
		return String(strings.Join(names, ","))
	}
	pat := args[1].eval(st, sc)
	if pat.kind != StringKind {
		return Error()
	}
	re, err := regexp.Compile(pat.s)
	if err != nil {
		return Error()
	}
	for _, n := range names {
		if re.MatchString(n) {
			return Bool(true)
		}
	}
	return Bool(false)
}

// unresolvedRefs returns the attribute names e refers to that are not
// defined in scope s (TARGET references are always unresolved).
func unresolvedRefs(e ast.Expr, s *Scope) []string {
	seen := map[string]string{}
	add := func(name string) {
		k := ast.Lower(name)
		if _, dup := seen[k]; !dup {
			seen[k] = name
		}
	}
	defined := func(name string) bool {
		for t := s; t != nil; t = t.parent {
			if t.ad.Index(name) >= 0 {
				return true
			}
		}
		return false
	}
	ast.Inspect(e, func(x ast.Expr) bool {
		switch r := x.(type) {
		case *ast.AttrRef:
			if scopeKindOf(r.Name) == scopeNone && !defined(r.Name) {
				add(r.Name)
			}
		case *ast.Select:
			if base, ok := r.X.(*ast.AttrRef); ok {
				switch scopeKindOf(base.Name) {
				case scopeTarget:
					add(r.Name)
					return false
				case scopeMy:
					if !defined(r.Name) {
						add(r.Name)
					}
					return false
				}
			}
		}
		return true
	})
	out := make([]string, 0, len(seen))
	for _, n := range seen {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return ast.Lower(out[i]) < ast.Lower(out[j]) })
	return out
}

// builtinDebug evaluates its argument and logs the expression and value.
func builtinDebug(st *State, sc *Scope, args []node) Value {
	v := args[0].eval(st, sc)
	slog.Debug("classad debug()", "value", v.String())
	return v
}
