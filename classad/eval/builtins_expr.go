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
		lazy("ifThenElse", 3, 3, ifThenElse),
		&Builtin{Name: "eval", MinArgs: 1, MaxArgs: 1, Lazy: builtinEval},
		&Builtin{Name: "unparse", MinArgs: 1, MaxArgs: 1, Lazy: builtinUnparse},
		&Builtin{Name: "unresolved", MinArgs: 1, MaxArgs: 2, Lazy: builtinUnresolved},
		&Builtin{Name: "debug", MinArgs: 1, MaxArgs: 1, Lazy: builtinDebug},
	)
}

// ifThenElse evaluates only the branch the condition selects: a boolean or
// a number (non-zero is true); UNDEFINED is UNDEFINED and anything else
// ERROR.
func ifThenElse(st *State, sc *Scope, args []node) Value {
	return (&condNode{c: args[0], a: args[1], b: args[2]}).eval(st, sc)
}

// builtinEval parses its argument (converted by string(); UNDEFINED and
// ERROR are ERROR) as an expression and evaluates it where the call is. A
// string that does not parse is ERROR. References inside the string are
// invisible to autoclustering, as in HTCondor.
func builtinEval(st *State, sc *Scope, args []node) Value {
	src, _, ok := toStringValue(args[0].eval(st, sc))
	if !ok {
		return Error()
	}
	e, err := parser.ParseExpr(src)
	if err != nil {
		return Error()
	}
	return st.evalCompiled(sc, compileAttr(e))
}

// attrExpr finds the expression an attribute reference names without
// evaluating it. ok is false when the argument is not an attribute
// reference. Unlike evaluation, an unscoped name is not looked for in the
// target ad.
func attrExpr(st *State, sc *Scope, n node) (e ast.Expr, from *Scope, ok bool) {
	switch r := n.(type) {
	case *refNode:
		e, s := findExpr(sc, r.name, r.hash)
		return e, s, true
	case *absRefNode:
		e, s := findExpr(sc.top(), r.name, r.hash)
		return e, s, true
	case *scopedRefNode:
		if s := st.resolveScope(sc, r.kind); s != nil {
			e, s := findExpr(s, r.name, r.hash)
			return e, s, true
		}
		return nil, nil, true
	case *selectNode:
		if v := r.x.eval(st, sc); v.kind == RecordKind {
			e, s := findExpr(v.scope(), r.name, r.hash)
			return e, s, true
		}
		return nil, nil, true
	}
	return nil, nil, false
}

// findExpr looks an attribute's expression up in s and the records it is
// nested in.
func findExpr(s *Scope, name string, h uint32) (ast.Expr, *Scope) {
	for ; s != nil; s = s.parent {
		if i := s.ad.find(name, h); i >= 0 {
			return s.ad.attrs[i].expr, s
		}
	}
	return nil, nil
}

// builtinUnparse returns the text of an attribute's expression, in
// HTCondor's PrettyPrint layout, or "" when there is no such attribute.
// As in HTCondor, the reference is looked up by its text in the record the
// call is evaluated in (not its enclosing records, not the target), so only
// a plain name can be found: MY.A, TARGET.A, .A and R.A give "". An
// argument that is not an attribute reference is ERROR.
func builtinUnparse(st *State, sc *Scope, args []node) Value {
	var name string
	var h uint32
	switch r := args[0].(type) {
	case *refNode:
		name, h = r.name, r.hash
	case *scopeNode:
		name, h = r.name, r.hash
	case *absRefNode, *scopedRefNode, *selectNode:
		return String("")
	default:
		return Error()
	}
	if i := sc.ad.find(name, h); i >= 0 {
		return String(string(ast.AppendPretty(nil, sc.ad.attrs[i].expr)))
	}
	return String("")
}

// builtinUnresolved lists the attributes an attribute's expression refers
// to that its ad does not define (sorted, comma-separated), or, with a
// pattern (matched ignoring case, and only by a non-empty match), reports
// whether any of them matches it. A reference to a missing attribute is
// UNDEFINED; a pattern that is not a string makes the evaluation fail, as
// in HTCondor.
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
		return st.fail("unresolved: the pattern is not a string")
	}
	re, err := regexp.Compile("(?i)" + pat.str())
	if err != nil {
		return Error()
	}
	for _, n := range names {
		if matchesNonEmpty(re, n) {
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

// matchesNonEmpty reports whether re matches a non-empty part of s (PCRE's
// NOTEMPTY option).
func matchesNonEmpty(re *regexp.Regexp, s string) bool {
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[1] > m[0] {
			return true
		}
	}
	return false
}
