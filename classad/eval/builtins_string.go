package eval

import (
	"strings"
	"unicode"
)

// String functions: strcat, join, split, substr, size, toUpper, toLower,
// strcmp, stricmp, splitUserName, splitSlotName.

func init() {
	register(
		fn("strcat", 0, -1, builtinStrcat),
		fn("join", 1, -1, builtinJoin),
		fn("split", 1, 2, builtinSplit),
		fn("substr", 2, 3, builtinSubstr),
		fn("size", 1, 1, builtinSize),
		fn("toUpper", 1, 1, func(_ *Call, a []Value) Value { return mapString(a[0], strings.ToUpper) }),
		fn("toLower", 1, 1, func(_ *Call, a []Value) Value { return mapString(a[0], strings.ToLower) }),
		fn("strcmp", 2, 2, func(_ *Call, a []Value) Value { return strcmp(a, strings.Compare) }),
		fn("stricmp", 2, 2, func(_ *Call, a []Value) Value { return strcmp(a, compareFold) }),
		fn("splitUserName", 1, 1, func(_ *Call, a []Value) Value { return splitAt(a[0], false) }),
		fn("splitSlotName", 1, 1, func(_ *Call, a []Value) Value { return splitAt(a[0], true) }),
	)
}

// builtinStrcat concatenates its arguments converted by string(). The
// first argument that is UNDEFINED or ERROR is the result.
func builtinStrcat(_ *Call, a []Value) Value {
	var b strings.Builder
	for _, v := range a {
		s, ok := toString(v)
		if !ok {
			return v
		}
		b.WriteString(s)
	}
	return String(b.String())
}

// builtinJoin joins with a separator: join(sep, list), join(sep, a, b, ...)
// or join(list). UNDEFINED items are skipped; if every item is UNDEFINED the
// result is UNDEFINED.
func builtinJoin(c *Call, a []Value) Value {
	var sep string
	items := a
	if len(a) == 1 {
		if a[0].kind != ListKind {
			return joinBad(a[0])
		}
	} else {
		s, ok := toString(a[0])
		if !ok {
			return Error()
		}
		sep, items = s, a[1:]
	}
	if len(items) == 1 && items[0].kind == ListKind {
		items = items[0].o.(*List).values(c.st)
	}
	var b strings.Builder
	n, undefs := 0, 0
	for _, v := range items {
		switch v.kind {
		case UndefinedKind:
			undefs++
			continue
		case ErrorKind:
			return Error()
		}
		if n > 0 {
			b.WriteString(sep)
		}
		s, _ := toString(v)
		b.WriteString(s)
		n++
	}
	if n == 0 && undefs > 0 {
		return Undefined()
	}
	return String(b.String())
}

func joinBad(v Value) Value {
	if v.kind == UndefinedKind {
		return Undefined()
	}
	return Error()
}

// builtinSplit splits a string at any of the delimiter characters (white
// space and commas by default), dropping empty pieces.
func builtinSplit(_ *Call, a []Value) Value {
	if a[0].kind != StringKind {
		return Error()
	}
	isDelim := func(r rune) bool { return unicode.IsSpace(r) || r == ',' }
	if len(a) == 2 {
		if a[1].kind != StringKind {
			return Error()
		}
		delims := a[1].s
		isDelim = func(r rune) bool { return strings.ContainsRune(delims, r) }
	}
	fields := strings.FieldsFunc(a[0].s, isDelim)
	out := make([]Value, len(fields))
	for i, f := range fields {
		out[i] = String(f)
	}
	return ListOf(out...)
}

// builtinSubstr is substr(s, offset [, length]) with Perl-like negative
// offsets and lengths, clipped to the string.
//
// Any UNDEFINED argument makes the result UNDEFINED, else any ERROR one
// ERROR; offsets and lengths must be integers.
func builtinSubstr(_ *Call, a []Value) Value {
	for _, v := range a {
		if v.kind == UndefinedKind {
			return v
		}
	}
	s := a[0]
	if s.kind != StringKind {
		return Error()
	}
	if a[1].kind != IntKind || (len(a) == 3 && a[2].kind != IntKind) {
		return Error()
	}
	off := a[1].i()
	n := int64(len(s.s))
	if off < 0 {
		off += n
	}
	length := n
	if len(a) == 3 {
		length = a[2].i()
	}
	if length < 0 {
		length = n - off + length
	}
	start := max(off, 0)
	end := min(off+length, n)
	if start >= n || end <= start {
		return String("")
	}
	return String(s.s[start:end])
}

// intArg reads an integer argument: integers, and reals truncated.
func intArg(v Value) (int64, bool) {
	switch v.kind {
	case IntKind:
		return v.i(), true
	case RealKind:
		return realToInt(v.r()), true
	case BoolKind:
		return int64(v.n), true
	}
	return 0, false
}

// builtinSize is the length of a string, a list or a record.
func builtinSize(_ *Call, a []Value) Value {
	switch v := a[0]; v.kind {
	case StringKind:
		return Int(int64(len(v.s)))
	case ListKind:
		return Int(int64(v.o.(*List).Len()))
	case RecordKind:
		return Int(int64(v.o.(*Scope).ad.Len()))
	case UndefinedKind:
		return Undefined()
	}
	return Error()
}

// mapString converts its argument with string() and maps it.
func mapString(v Value, f func(string) string) Value {
	switch v.kind {
	case UndefinedKind, ErrorKind:
		return v
	}
	s, _ := toString(v)
	return String(f(s))
}

// strcmp compares its arguments converted by string(); an UNDEFINED
// argument makes the result UNDEFINED, else an ERROR one ERROR.
func strcmp(a []Value, cmp func(x, y string) int) Value {
	for _, v := range a {
		if v.kind == UndefinedKind {
			return v
		}
	}
	if v, bad := strictArgs(a...); bad {
		return v
	}
	x, _ := toString(a[0])
	y, _ := toString(a[1])
	return Int(int64(cmp(x, y)))
}

// splitAt splits "a@b" into {"a", "b"}. Without an @, splitUserName gives
// {s, ""} and splitSlotName {"", s}.
func splitAt(v Value, slot bool) Value {
	switch v.kind {
	case UndefinedKind, ErrorKind:
		return v
	case StringKind:
	default:
		return Error()
	}
	before, after, found := strings.Cut(v.s, "@")
	if !found && slot {
		before, after = "", v.s
	}
	return ListOf(String(before), String(after))
}
