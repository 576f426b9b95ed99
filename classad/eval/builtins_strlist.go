package eval

import (
	"strings"
)

// String-list functions (HTCondor's extras): a string list is one string of
// items separated by any of the delimiter characters (", " by default);
// empty items are skipped and items are trimmed of white space.

func init() {
	register(
		fn("stringListSize", 1, 2, strListSize),
		fn("stringListSum", 1, 2, func(_ *Call, a []Value) Value { return strListAggregate(a, aggSum) }),
		fn("stringListAvg", 1, 2, func(_ *Call, a []Value) Value { return strListAggregate(a, aggAvg) }),
		fn("stringListMin", 1, 2, func(_ *Call, a []Value) Value { return strListAggregate(a, aggMin) }),
		fn("stringListMax", 1, 2, func(_ *Call, a []Value) Value { return strListAggregate(a, aggMax) }),
		fn("stringListMember", 2, 3, func(_ *Call, a []Value) Value { return strListMember(a, false) }),
		fn("stringListIMember", 2, 3, func(_ *Call, a []Value) Value { return strListMember(a, true) }),
		fn("stringListsIntersect", 2, 3, strListsIntersect),
		fn("stringListSubsetMatch", 2, 3, func(_ *Call, a []Value) Value { return strListSubset(a, false) }),
		fn("stringListISubsetMatch", 2, 3, func(_ *Call, a []Value) Value { return strListSubset(a, true) }),
	)
}

const defaultDelims = ", "

// splitList splits s into its items.
func splitList(s, delims string) []string {
	items := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(delims, r) })
	out := items[:0]
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// delims returns the delimiter argument at index i, or the default.
func delims(a []Value, i int) (string, bool) {
	if len(a) <= i {
		return defaultDelims, true
	}
	d := a[i]
	return d.s, d.kind == StringKind
}

// listArg returns the items of the string list argument a[i] with the
// delimiters at a[j].
//
// Every argument must be a string: UNDEFINED is ERROR too.
func listArg(a []Value, i, j int) ([]string, Value, bool) {
	d, ok := delims(a, j)
	if a[i].kind != StringKind || !ok {
		return nil, Error(), false
	}
	return splitList(a[i].s, d), Value{}, true
}

func strListSize(_ *Call, a []Value) Value {
	items, v, ok := listArg(a, 0, 1)
	if !ok {
		return v
	}
	return Int(int64(len(items)))
}

// strListAggregate sums, averages or finds the extreme of the numbers in a
// string list. Any item that is not a number makes the result ERROR.
func strListAggregate(a []Value, kind aggKind) Value {
	items, v, ok := listArg(a, 0, 1)
	if !ok {
		return v
	}
	var acc Value
	for i, it := range items {
		n, ok := parseNumber(it)
		if !ok {
			return Error()
		}
		if i == 0 {
			acc = n
		} else {
			acc = combine(kind, acc, n)
		}
	}
	switch {
	case len(items) == 0 && (kind == aggMin || kind == aggMax):
		return Undefined()
	case len(items) == 0:
		return Real(0)
	case kind == aggAvg:
		s, _ := acc.NumberValue()
		return Real(s / float64(len(items)))
	}
	return acc
}

// strListMember reports whether x is an item of the list (compared with
// strcmp, or stricmp when fold). An UNDEFINED item is in no list and an
// UNDEFINED list holds nothing; both UNDEFINED is UNDEFINED.
func strListMember(a []Value, fold bool) Value {
	x, l := a[0], a[1]
	switch {
	case x.kind == UndefinedKind && l.kind == UndefinedKind:
		return Undefined()
	case x.kind == ErrorKind || l.kind == ErrorKind:
		return Error()
	case x.kind != StringKind && x.kind != UndefinedKind:
		return Error()
	case x.kind == UndefinedKind || l.kind == UndefinedKind:
		return Bool(false)
	}
	items, v, ok := listArg(a[1:], 0, 1)
	if !ok {
		return v
	}
	for _, it := range items {
		if it == x.s || (fold && compareFold(it, x.s) == 0) {
			return Bool(true)
		}
	}
	return Bool(false)
}

func strListsIntersect(_ *Call, a []Value) Value {
	if v, bad := strictArgs(a...); bad {
		return v
	}
	d, ok := delims(a, 2)
	if a[0].kind != StringKind || a[1].kind != StringKind || !ok {
		return Error()
	}
	seen := map[string]bool{}
	for _, it := range splitList(a[0].s, d) {
		seen[it] = true
	}
	for _, it := range splitList(a[1].s, d) {
		if seen[it] {
			return Bool(true)
		}
	}
	return Bool(false)
}

// strListSubset reports whether every item of the first list is in the
// second. An UNDEFINED first list is empty; an UNDEFINED second list holds
// nothing; both UNDEFINED is UNDEFINED.
func strListSubset(a []Value, fold bool) Value {
	l1, l2 := a[0], a[1]
	switch {
	case l1.kind == UndefinedKind && l2.kind == UndefinedKind:
		return Undefined()
	case !stringOrUndefined(l1) || !stringOrUndefined(l2):
		return Error()
	}
	d, ok := delims(a, 2)
	if !ok {
		return Error()
	}
	norm := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	have := map[string]bool{}
	for _, it := range splitList(l2.s, d) {
		have[norm(it)] = true
	}
	for _, it := range splitList(l1.s, d) {
		if !have[norm(it)] {
			return Bool(false)
		}
	}
	return Bool(true)
}

func stringOrUndefined(v Value) bool { return v.kind == StringKind || v.kind == UndefinedKind }
