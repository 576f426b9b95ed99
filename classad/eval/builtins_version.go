package eval

import "strings"

// Version comparison: versioncmp, versionGT/LT/GE/LE/EQ, version_in_range.
// Arguments are converted by string(); an UNDEFINED one (for
// version_in_range, an UNDEFINED bound) makes the result UNDEFINED, one
// that does not convert ERROR.

func init() {
	register(
		versionFn("versioncmp", nil),
		versionFn("versionGT", func(c int) bool { return c > 0 }),
		versionFn("versionLT", func(c int) bool { return c < 0 }),
		versionFn("versionGE", func(c int) bool { return c >= 0 }),
		versionFn("versionLE", func(c int) bool { return c <= 0 }),
		versionFn("versionEQ", func(c int) bool { return c == 0 }),
		fn("version_in_range", 3, 3, builtinVersionInRange),
	)
}

// caseSensitiveNames are the functions whose name HTCondor checks with
// strcmp after finding them case-insensitively (see lookupBuiltin).
var caseSensitiveNames = map[string]string{
	"versiongt": "versionGT", "versionlt": "versionLT", "versionge": "versionGE",
	"versionle": "versionLE", "versioneq": "versionEQ",
}

// misspelledVersion is what a versionGT ... versionEQ call spelled in
// another case reaches: UNDEFINED for an UNDEFINED argument, else ERROR.
var misspelledVersion = fn("versionXX", 2, 2, func(_ *Call, a []Value) Value {
	if anyUndefined(a...) {
		return Undefined()
	}
	return Error()
})

// versionFn builds versioncmp (test nil: the comparison as an integer) and
// the boolean comparisons.
func versionFn(name string, test func(int) bool) *Builtin {
	return fn(name, 2, 2, func(_ *Call, a []Value) Value {
		if anyUndefined(a...) {
			return Undefined()
		}
		x, _, okx := toStringValue(a[0])
		y, _, oky := toStringValue(a[1])
		if !okx || !oky {
			return Error()
		}
		r := VersionCompare(x, y)
		if test == nil {
			return Int(int64(r))
		}
		return Bool(test(r))
	})
}

// builtinVersionInRange is version_in_range(v, min, max): min <= v <= max
// in version order.
func builtinVersionInRange(_ *Call, a []Value) Value {
	if anyUndefined(a[1], a[2]) {
		return Undefined()
	}
	var s [3]string
	for i, v := range a {
		var ok bool
		if s[i], _, ok = toStringValue(v); !ok {
			return Error()
		}
	}
	return Bool(VersionCompare(s[1], s[0]) <= 0 && VersionCompare(s[0], s[2]) <= 0)
}

// VersionCompare compares two version strings as HTCondor's natural_cmp
// does: like strcmp, except where the first difference touches a run of
// digits in both strings. Then a run with more leading zeros sorts first
// (by how many more), runs with the same positive number of leading zeros
// compare by the differing bytes, and runs without leading zeros compare
// by length (the difference of the lengths), then by the differing bytes.
// Otherwise the result is the difference of the first differing bytes, as
// C chars (signed). Strings end at a NUL byte, as in C.
func VersionCompare(a, b string) int {
	a, b = cutNUL(a), cutNUL(b)
	at := func(s string, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	i := 0
	for i < len(a) && a[i] == at(b, i) {
		i++
	}
	c1, c2 := at(a, i), at(b, i)
	if c1 == c2 {
		return 0
	}
	diff := int(int8(c1)) - int(int8(c2))
	nb := i
	for nb > 0 && isDigit(a[nb-1]) {
		nb--
	}
	if nb == i && (!isDigit(c1) || !isDigit(c2)) {
		return diff
	}
	z1, z2 := zerosEnd(a, nb), zerosEnd(b, nb)
	switch {
	case z1 != z2:
		return z2 - z1
	case z1 > nb:
		return diff
	}
	e1, e2 := z1+digitRun(a[min(z1, len(a)):], isDigit), z2+digitRun(b[min(z2, len(b)):], isDigit)
	if e1 != e2 {
		return e1 - e2
	}
	return diff
}

// zerosEnd returns where the leading zeros of the digit run at i end, not
// counting a last zero that ends the run.
func zerosEnd(s string, i int) int {
	z := i
	for z < len(s) && s[z] == '0' {
		z++
	}
	if z > i && (z == len(s) || !isDigit(s[z])) {
		z--
	}
	return z
}

func cutNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
