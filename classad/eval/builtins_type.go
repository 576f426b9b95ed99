package eval

// Type predicates and conversions: isUndefined ... isReltime, int, real,
// string, bool.

func init() {
	register(
		predicate("isUndefined", UndefinedKind),
		predicate("isError", ErrorKind),
		predicate("isString", StringKind),
		predicate("isInteger", IntKind),
		predicate("isReal", RealKind),
		predicate("isList", ListKind),
		predicate("isClassAd", RecordKind),
		predicate("isBoolean", BoolKind),
		predicate("isAbstime", AbsTimeKind),
		predicate("isReltime", RelTimeKind),
		fn("int", 1, 1, func(_ *Call, a []Value) Value { return toInt(a[0]) }),
		fn("real", 1, 1, func(_ *Call, a []Value) Value { return toReal(a[0]) }),
		fn("string", 1, 1, builtinString),
		fn("bool", 1, 1, func(_ *Call, a []Value) Value { return toBool(a[0]) }),
	)
}

// predicate builds a type test: true or false, never UNDEFINED or ERROR.
func predicate(name string, k Kind) *Builtin {
	return fn(name, 1, 1, func(_ *Call, a []Value) Value { return Bool(a[0].kind == k) })
}

// toInt is int(): reals truncate (NaN and out-of-range reals give the most
// negative integer, as on x86-64), booleans are 1 or 0, strings are read as
// strtod reads them and truncated ("3.7" is 3, "42abc" is 42, "abc" is
// ERROR), relative times lose their fraction. UNDEFINED stays UNDEFINED
// (as in HTCondor's code, where the manual says ERROR); lists and records
// are ERROR.
func toInt(v Value) Value {
	i, bad, ok := toIntValue(v)
	if !ok {
		return bad
	}
	return Int(i)
}

// toReal is real(), with the conversions of int().
func toReal(v Value) Value {
	r, bad, ok := toRealValue(v)
	if !ok {
		return bad
	}
	return Real(r)
}

// builtinString is string(): UNDEFINED and ERROR stay as they are.
func builtinString(_ *Call, a []Value) Value {
	s, bad, ok := toStringValue(a[0])
	if !ok {
		return bad
	}
	return String(s)
}

// toBool is bool(): numbers are true when non-zero (NaN is true, as in C),
// relative times when their whole seconds are non-zero, the strings "true"
// and "false" (in any case) are themselves and any other string is
// UNDEFINED. Absolute times, lists and records are ERROR.
func toBool(v Value) Value {
	switch v.kind {
	case BoolKind, UndefinedKind:
		return v
	case IntKind:
		return Bool(v.n != 0)
	case RealKind:
		return Bool(v.r() != 0)
	case RelTimeKind:
		return Bool(realToInt32(v.r()) != 0)
	case StringKind:
		switch {
		case compareFold(v.str(), "true") == 0:
			return Bool(true)
		case compareFold(v.str(), "false") == 0:
			return Bool(false)
		}
		return Undefined()
	}
	return Error()
}
