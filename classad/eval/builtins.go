package eval

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
)

// Builtin is a function callable from expressions. Names are
// case-insensitive. A call with fewer than MinArgs or more than MaxArgs
// (-1: any number) arguments is ERROR, as is a call of an unknown name.
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

func lookupBuiltin(name string) *Builtin { return builtins[ast.Lower(name)] }

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

// strictScalar returns the value to give back when an argument is ERROR or
// UNDEFINED (ERROR first), and whether there was one.
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

// toString converts a value to a string as string() does: strings as they
// are, other scalars, lists and records as they print.
func toString(v Value) (string, bool) {
	switch v.kind {
	case StringKind:
		return v.s, true
	case IntKind:
		return strconv.FormatInt(v.i(), 10), true
	case UndefinedKind, ErrorKind:
		return "", false
	}
	return string(v.Append(nil)), true
}

// parseNumber reads a number from a string as HTCondor's conversions do:
// an integer or real literal, optionally signed, with surrounding blanks,
// and the special reals INF, -INF and NaN.
func parseNumber(s string) (Value, bool) {
	s = strings.TrimSpace(s)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Int(i), true
	}
	if !looksNumeric(s) {
		return Value{}, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return Value{}, false
	}
	return Real(f), true
}

// looksNumeric rejects the forms ParseFloat accepts that C's strtod would
// not give as a whole-string number here: hex floats and underscores.
func looksNumeric(s string) bool {
	if s == "" {
		return false
	}
	t := strings.TrimLeft(s, "+-")
	switch strings.ToLower(t) {
	case "inf", "infinity", "nan":
		return true
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// realToInt converts a real to an integer as the C++ library does on
// x86-64: truncation, with NaN and out-of-range values giving the most
// negative integer.
func realToInt(f float64) int64 {
	if math.IsNaN(f) || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

// Operator shorthands for builtins that compare or add values.
const (
	opLT  = ast.OpLT
	opGE  = ast.OpGE
	opGT  = ast.OpGT
	opAdd = ast.OpAdd
)
