package eval

import (
	"sort"

	"github.com/kite-sched/kite/classad/ast"
)

// Builtin is a function callable from expressions. Names are
// case-insensitive. A call with fewer than MinArgs or more than MaxArgs
// (-1: any number) arguments is ERROR, as is a call of an unknown name.
//
// The registry holds exactly the functions HTCondor 25 registers: the
// ClassAd library's own table (fnCall.cpp) and the HTCondor extras
// (compat_classad.cpp: the string-list functions, split*, the environment
// and argument helpers, userHome, userMap, evalInEachContext,
// countMatches). Names HTCondor does not register (abs, strlen, log, exp,
// sqrt, isNumber, version_gt, inDays, ...) are ERROR when called.
type Builtin struct {
	Name    string
	MinArgs int
	MaxArgs int
	// Pure functions depend only on their arguments; calls of them with
	// constant arguments are folded when compiled.
	Pure bool
	// Fn receives its arguments evaluated. Each function decides what
	// UNDEFINED and ERROR arguments mean.
	Fn func(c *Call, args []Value) Value
	// Lazy, when set instead of Fn, receives its arguments unevaluated
	// (ifThenElse evaluates only the branch it takes; unparse reads an
	// attribute's expression).
	Lazy func(st *State, sc *Scope, args []node) Value
}

// Call is the context of a builtin call: the state and the scope the call
// is evaluated in.
type Call struct {
	st *State
	sc *Scope
}

var builtins = map[string]*Builtin{}

// register adds functions to the registry; each family file registers its
// own in init.
func register(fns ...*Builtin) {
	for _, f := range fns {
		key := ast.Lower(f.Name)
		if _, dup := builtins[key]; dup {
			panic("eval: builtin " + f.Name + " registered twice")
		}
		builtins[key] = f
	}
}

// lookupBuiltin finds the function a call names. HTCondor looks names up
// case-insensitively, but its versionLE, versionLT, versionGE, versionGT
// and versionEQ then compare the name as written case-sensitively, so any
// other spelling (versionle, VERSIONGT) reaches a function that can only
// answer UNDEFINED or ERROR.
func lookupBuiltin(name string) *Builtin {
	key := ast.Lower(name)
	if canon, ok := caseSensitiveNames[key]; ok && name != canon {
		return misspelledVersion
	}
	return builtins[key]
}

// BuiltinNames returns the names of all builtin functions, sorted.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtins))
	for _, f := range builtins {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	return names
}

// fn builds a pure, eager builtin.
func fn(name string, minArgs, maxArgs int, f func(c *Call, args []Value) Value) *Builtin {
	return &Builtin{Name: name, MinArgs: minArgs, MaxArgs: maxArgs, Pure: true, Fn: f}
}

// impure builds an eager builtin whose result depends on more than its
// arguments (the clock, randomness, the environment).
func impure(name string, minArgs, maxArgs int, f func(c *Call, args []Value) Value) *Builtin {
	return &Builtin{Name: name, MinArgs: minArgs, MaxArgs: maxArgs, Fn: f}
}

// lazy builds a pure builtin that receives its arguments unevaluated.
func lazy(name string, minArgs, maxArgs int, f func(st *State, sc *Scope, args []node) Value) *Builtin {
	return &Builtin{Name: name, MinArgs: minArgs, MaxArgs: maxArgs, Pure: true, Lazy: f}
}

// strictArgs returns the value to give back when an argument is ERROR or
// UNDEFINED (ERROR first, whatever its position), and whether there was one.
func strictArgs(args ...Value) (Value, bool) {
	for _, a := range args {
		if a.kind == ErrorKind {
			return Error(), true
		}
	}
	for _, a := range args {
		if a.kind == UndefinedKind {
			return Undefined(), true
		}
	}
	return Value{}, false
}

// anyUndefined reports whether any argument is UNDEFINED.
func anyUndefined(args ...Value) bool {
	for _, a := range args {
		if a.kind == UndefinedKind {
			return true
		}
	}
	return false
}

// allStrings reports whether every argument is a string.
func allStrings(args ...Value) bool {
	for _, a := range args {
		if a.kind != StringKind {
			return false
		}
	}
	return true
}

// Operator shorthands for builtins that compare or add values.
const (
	opLT  = ast.OpLT
	opGT  = ast.OpGT
	opAdd = ast.OpAdd
	opDiv = ast.OpDiv
	opEq  = ast.OpEq
)
