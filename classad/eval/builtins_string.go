package eval

import (
	"strings"
)

// String functions: strcat, join, substr, size, toUpper, toLower, strcmp,
// stricmp, split, splitUserName, splitSlotName. Non-string arguments are
// converted as string() converts them unless a function says otherwise.

func init() {
	register(
		fn("strcat", 0, -1, builtinStrcat),
		fn("join", 0, -1, builtinJoin),
		fn("substr", 2, 3, builtinSubstr),
		fn("size", 1, 1, builtinSize),
		fn("toUpper", 1, 1, func(_ *Call, a []Value) Value { return mapString(a[0], upperByte) }),
		fn("toLower", 1, 1, func(_ *Call, a []Value) Value { return mapString(a[0], lowerByte) }),
		fn("strcmp", 2, 2, func(_ *Call, a []Value) Value { return strcmp(a, strings.Compare) }),
		fn("stricmp", 2, 2, func(_ *Call, a []Value) Value { return strcmp(a, compareFold) }),
		fn("split", 1, 2, builtinSplit),
		fn("splitUserName", 1, 1, func(_ *Call, a []Value) Value { return splitAt(a[0], false) }),
		fn("splitSlotName", 1, 1, func(_ *Call, a []Value) Value { return splitAt(a[0], true) }),
	)
}

// builtinStrcat concatenates its arguments converted by string(). The
// first argument that is UNDEFINED or ERROR is the result.
func builtinStrcat(_ *Call, a []Value) Value {
	var b strings.Builder
	for _, v := range a {
		s, bad, ok := toStringValue(v)
		if !ok {
			return bad
		}
		b.WriteString(s)
	}
	return String(b.String())
}

// builtinJoin is join(sep, item, ...), join(sep, list) or join(list). The
// separator goes between items only once something has been written, so
// leading empty items add no separator. UNDEFINED items (and an UNDEFINED
// separator, which then counts as "") are skipped; if nothing but
// UNDEFINED was found the result is UNDEFINED. An ERROR anywhere is ERROR.
func builtinJoin(c *Call, a []Value) Value {
	items := a
	if n := len(a); n == 1 || n == 2 {
		if l, ok := a[n-1].ListValue(); ok {
			items = append([]Value{String("")}, l.values(c.st)...)
			if n == 2 {
				items[0] = a[0]
			}
		}
	}
	var b strings.Builder
	var sep string
	undef, def := false, false
	for i, v := range items {
		s, bad, ok := toStringValue(v)
		switch {
		case !ok && bad.kind == ErrorKind:
			return Error()
		case !ok:
			undef = true
		case i == 0:
			sep = s
		default:
			if b.Len() > 0 {
				b.WriteString(sep)
			}
			b.WriteString(s)
			def = true
		}
	}
	if undef && !def {
		return Undefined()
	}
	return String(b.String())
}

// builtinSubstr is substr(s, offset [, length]) with Perl-like negative
// offsets and lengths, clipped to the string. Offset and length are C ints
// (64-bit integers are truncated to 32 bits).
//
// Any UNDEFINED argument makes the result UNDEFINED; otherwise s must be a
// string and offset and length integers, else ERROR.
func builtinSubstr(_ *Call, a []Value) Value {
	if anyUndefined(a...) {
		return Undefined()
	}
	if a[0].kind != StringKind || a[1].kind != IntKind || (len(a) == 3 && a[2].kind != IntKind) {
		return Error()
	}
	s := a[0].str()
	n := int64(len(s))
	off := int64(int32(a[1].i()))
	switch {
	case off < 0:
		off = max(n+off, 0)
	case off > n:
		off = n
	}
	length := int64(0)
	if len(a) == 3 {
		length = int64(int32(a[2].i()))
		if length == 0 {
			return String("")
		}
	}
	if length <= 0 {
		length = max(n-off+length, 0)
	}
	return String(s[off : off+min(length, n-off)])
}

// builtinSize is the length of a string, a list or a record; UNDEFINED is
// UNDEFINED and anything else ERROR.
func builtinSize(_ *Call, a []Value) Value {
	switch v := a[0]; v.kind {
	case StringKind:
		return Int(int64(len(v.str())))
	case ListKind:
		return Int(int64(v.list().Len()))
	case RecordKind:
		return Int(int64(v.scope().ad.Len()))
	case UndefinedKind:
		return Undefined()
	}
	return Error()
}

// mapString converts its argument with string() and maps each byte, as
// C's toupper and tolower do in the C locale (ASCII letters only).
func mapString(v Value, f func(byte) byte) Value {
	s, bad, ok := toStringValue(v)
	if !ok {
		return bad
	}
	b := []byte(s)
	for i, c := range b {
		b[i] = f(c)
	}
	return String(string(b))
}

func upperByte(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 0x20
	}
	return c
}

// strcmp compares its arguments converted by string() and gives -1, 0 or
// 1. An UNDEFINED argument makes the result UNDEFINED, else an ERROR one
// ERROR.
func strcmp(a []Value, cmp func(x, y string) int) Value {
	if anyUndefined(a...) {
		return Undefined()
	}
	x, _, okx := toStringValue(a[0])
	y, _, oky := toStringValue(a[1])
	if !okx || !oky {
		return Error()
	}
	return Int(int64(cmp(x, y)))
}

// builtinSplit is split(s [, separators]): s cut at each separator
// character (comma, space and tab by default). Empty pieces are dropped,
// except that a separator other than white space repeated with nothing
// between gives an empty piece ("a,,b" is {"a", "", "b"}), as in HTCondor.
// Both arguments must be strings (UNDEFINED too is ERROR).
func builtinSplit(_ *Call, a []Value) Value {
	seps := ", \t"
	if len(a) == 2 {
		seps = a[1].str()
	}
	if !allStrings(a...) {
		return Error()
	}
	return ListOf(splitPieces(a[0].str(), seps)...)
}

func splitPieces(s, seps string) []Value {
	out := []Value{}
	last := 0
	var prev byte
	seen := false
	for i := 0; i < len(s) && seps != ""; i++ {
		c := s[i]
		if strings.IndexByte(seps, c) < 0 {
			continue
		}
		if i > last {
			out = append(out, String(s[last:i]))
		} else if seen && !cSpace(prev) && prev == c {
			out = append(out, String(""))
		}
		if !cSpace(c) {
			prev, seen = c, true
		}
		last = i + 1
	}
	if last < len(s) {
		out = append(out, String(s[last:]))
	}
	return out
}

// splitAt splits "a@b" at the first @ into {"a", "b"}. Without an @,
// splitUserName gives {s, ""} and splitSlotName {"", s}. The argument must
// be a string (UNDEFINED too is ERROR).
func splitAt(v Value, slot bool) Value {
	if v.kind != StringKind {
		return Error()
	}
	before, after, found := strings.Cut(v.str(), "@")
	if !found && slot {
		before, after = "", v.str()
	}
	return ListOf(String(before), String(after))
}
