package eval

import (
	"math"
	"strings"
)

// Type predicates and conversions: isUndefined ... isReltime, int, real,
// string, bool.

func init() {
	register(
		predicate("isUndefined", func(v Value) bool { return v.kind == UndefinedKind }),
		predicate("isError", func(v Value) bool { return v.kind == ErrorKind }),
		predicate("isString", func(v Value) bool { return v.kind == StringKind }),
		predicate("isInteger", func(v Value) bool { return v.kind == IntKind }),
		predicate("isReal", func(v Value) bool { return v.kind == RealKind }),
		predicate("isList", func(v Value) bool { return v.kind == ListKind }),
		predicate("isClassAd", func(v Value) bool { return v.kind == RecordKind }),
		predicate("isBoolean", func(v Value) bool { return v.kind == BoolKind }),
		predicate("isAbstime", func(v Value) bool { return v.kind == AbsTimeKind }),
		predicate("isReltime", func(v Value) bool { return v.kind == RelTimeKind }),
		fn("int", 1, 1, func(_ *Call, a []Value) Value { return toInt(a[0]) }),
		fn("real", 1, 1, func(_ *Call, a []Value) Value { return toReal(a[0]) }),
		fn("string", 1, 1, builtinString),
		fn("bool", 1, 1, func(_ *Call, a []Value) Value { return toBool(a[0]) }),
	)
}

func predicate(name string, p func(Value) bool) *Builtin {
	return fn(name, 1, 1, func(_ *Call, a []Value) Value { return Bool(p(a[0])) })
}

// toInt is int(): reals truncate, booleans are 1 or 0, strings are read as
// numbers; UNDEFINED stays UNDEFINED (as in HTCondor's code, where the
// manual says ERROR).
func toInt(v Value) Value {
	switch v.kind {
	case IntKind, UndefinedKind, ErrorKind:
		return v
	case BoolKind:
		return Int(int64(v.n))
	case RealKind:
		return Int(realToInt(v.r()))
	case AbsTimeKind:
		return Int(v.i())
	case RelTimeKind:
		return Int(realToInt(v.r()))
	case StringKind:
		n, ok := parseNumber(v.s)
		if !ok {
			return Error()
		}
		return toInt(n)
	}
	return Error()
}

// toReal is real().
func toReal(v Value) Value {
	switch v.kind {
	case RealKind, UndefinedKind, ErrorKind:
		return v
	case BoolKind, IntKind:
		return Real(float64(int64(v.n)))
	case AbsTimeKind:
		return Real(float64(v.i()))
	case RelTimeKind:
		return Real(v.r())
	case StringKind:
		n, ok := parseNumber(v.s)
		if !ok {
			return Error()
		}
		return toReal(n)
	}
	return Error()
}

func builtinString(_ *Call, a []Value) Value {
	switch a[0].kind {
	case UndefinedKind, ErrorKind:
		return a[0]
	}
	s, _ := toString(a[0])
	return String(s)
}

// toBool is bool(): numbers are true when non-zero, the strings "true" and
// "false" (in any case) are themselves.
func toBool(v Value) Value {
	switch v.kind {
	case BoolKind, UndefinedKind, ErrorKind:
		return v
	case IntKind:
		return Bool(v.n != 0)
	case RealKind:
		return Bool(v.r() != 0 && !math.IsNaN(v.r()))
	case StringKind:
		switch strings.ToLower(v.s) {
		case "true":
			return Bool(true)
		case "false":
			return Bool(false)
		}
	}
	return Error()
}
