package eval

import (
	"math"
	"strings"
)

// String-list functions (HTCondor's extras): a string list is one string of
// items separated by any of the delimiter characters; items are trimmed of
// white space and empty items are skipped.

func init() {
	register(
		fn("stringListSize", 1, 2, strListSize),
		fn("stringListSum", 1, 2, func(_ *Call, a []Value) Value { return strListSummary(a, aggSum) }),
		fn("stringListAvg", 1, 2, func(_ *Call, a []Value) Value { return strListSummary(a, aggAvg) }),
		fn("stringListMin", 1, 2, func(_ *Call, a []Value) Value { return strListSummary(a, aggMin) }),
		fn("stringListMax", 1, 2, func(_ *Call, a []Value) Value { return strListSummary(a, aggMax) }),
		fn("stringListMember", 2, 3, func(_ *Call, a []Value) Value { return strListMember(a, false, false) }),
		fn("stringListIMember", 2, 3, func(_ *Call, a []Value) Value { return strListMember(a, true, false) }),
		fn("stringListSubsetMatch", 2, 3, func(_ *Call, a []Value) Value { return strListMember(a, false, true) }),
		fn("stringListISubsetMatch", 2, 3, func(_ *Call, a []Value) Value { return strListMember(a, true, true) }),
		fn("stringListsIntersect", 2, 3, strListsIntersect),
	)
}

// Default delimiters: the counting and arithmetic functions split at commas
// and spaces, the membership functions also at tabs and line breaks.
const (
	defaultDelims = ", "
	memberDelims  = ", \t\r\n"
)

// splitList splits s into its items: cut at any delimiter character, each
// piece trimmed of white space, empty pieces dropped.
func splitList(s, delims string) []string {
	var out []string
	for len(s) > 0 {
		i := indexAnyByte(s, delims)
		if it := trimCSpace(s[:i]); it != "" {
			out = append(out, it)
		}
		s = s[min(i+1, len(s)):]
	}
	return out
}

// listArgs reads the list and optional delimiter arguments of the
// counting functions: both must be strings (UNDEFINED too is ERROR).
func listArgs(a []Value) ([]string, bool) {
	d := defaultDelims
	if len(a) == 2 {
		d = a[1].str()
	}
	if !allStrings(a...) {
		return nil, false
	}
	return splitList(a[0].str(), d), true
}

func strListSize(_ *Call, a []Value) Value {
	items, ok := listArgs(a)
	if !ok {
		return Error()
	}
	return Int(int64(len(items)))
}

// strListSummary sums, averages or finds the extreme of the numbers in a
// string list, as HTCondor does it: each item is read with sscanf("%lf")
// (a numeric prefix, else ERROR), the result is an integer unless some item
// holds a character other than digits and signs, min starts from FLT_MAX
// and max from FLT_MIN (so the max of negative items is 0). An empty list
// sums and averages to 0.0; its min and max are UNDEFINED.
func strListSummary(a []Value, kind aggKind) Value {
	items, ok := listArgs(a)
	if !ok {
		return Error()
	}
	acc, isReal := strListStart(kind), false
	for _, it := range items {
		x, n := strtod(it)
		if n == 0 {
			return Error()
		}
		isReal = isReal || strings.Trim(it, "+-0123456789") != ""
		acc = strListFold(kind, acc, x)
	}
	switch {
	case len(items) == 0 && (kind == aggMin || kind == aggMax):
		return Undefined()
	case len(items) == 0:
		return Real(0)
	case kind == aggAvg:
		acc /= float64(len(items))
	}
	if isReal {
		return Real(acc)
	}
	return Int(realToInt(acc))
}

func strListStart(kind aggKind) float64 {
	switch kind {
	case aggMin:
		return math.MaxFloat32
	case aggMax:
		return 0x1p-126 // FLT_MIN
	}
	return 0
}

func strListFold(kind aggKind, acc, x float64) float64 {
	switch kind {
	case aggMin:
		if x < acc {
			return x
		}
		return acc
	case aggMax:
		if x > acc {
			return x
		}
		return acc
	}
	return x + acc
}

// strListMember implements stringListMember, stringListIMember (fold: case
// ignored), stringListSubsetMatch and stringListISubsetMatch (subset: is
// every item of the first list in the second). Each argument must be a
// string or UNDEFINED; an UNDEFINED delimiter argument means the default,
// an UNDEFINED string counts as empty, and both strings UNDEFINED is
// UNDEFINED. An empty first argument is a subset of anything, but one
// holding only delimiters is a subset of nothing.
func strListMember(a []Value, fold, subset bool) Value {
	for _, v := range a {
		if v.kind != StringKind && v.kind != UndefinedKind {
			return Error()
		}
	}
	if a[0].kind == UndefinedKind && a[1].kind == UndefinedKind {
		return Undefined()
	}
	d := memberDelims
	if len(a) == 3 && a[2].kind == StringKind {
		d = a[2].str()
	}
	list := splitList(a[1].str(), d)
	if !subset {
		return Bool(inList(list, a[0].str(), fold))
	}
	if a[0].str() == "" {
		return Bool(true)
	}
	items := splitList(a[0].str(), d)
	for _, it := range items {
		if !inList(list, it, fold) {
			return Bool(false)
		}
	}
	return Bool(len(items) > 0)
}

func inList(list []string, x string, fold bool) bool {
	for _, it := range list {
		if it == x || (fold && compareFold(it, x) == 0) {
			return true
		}
	}
	return false
}

// strListsIntersect reports whether two string lists share an item.
// Items are cut at the delimiters (space and comma by default, also when
// the delimiter argument is "") without trimming. ERROR in any argument is
// ERROR, then UNDEFINED is UNDEFINED; non-strings are ERROR.
func strListsIntersect(_ *Call, a []Value) Value {
	if v, bad := strictArgs(a...); bad {
		return v
	}
	if !allStrings(a...) {
		return Error()
	}
	d := " ,"
	if len(a) == 3 && a[2].str() != "" {
		d = a[2].str()
	}
	seen := map[string]bool{}
	for _, it := range cutList(a[1].str(), d) {
		seen[it] = true
	}
	for _, it := range cutList(a[0].str(), d) {
		if seen[it] {
			return Bool(true)
		}
	}
	return Bool(false)
}

// cutList cuts s at the delimiter characters, dropping empty pieces
// (strcspn style, no trimming).
func cutList(s, delims string) []string {
	var out []string
	for len(s) > 0 {
		i := indexAnyByte(s, delims)
		if i > 0 {
			out = append(out, s[:i])
		}
		s = s[min(i+1, len(s)):]
	}
	return out
}

// indexAnyByte returns the index of the first byte of s that is one of
// the bytes of set (as C's strcspn counts), or len(s).
func indexAnyByte(s, set string) int {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) >= 0 {
			return i
		}
	}
	return len(s)
}
