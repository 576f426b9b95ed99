package eval

// Version comparison: versioncmp, versionGT/LT/GE/LE/EQ, version_in_range.
// versioncmp orders strings as glibc's strverscmp does (HTCondor calls it):
// lexicographically, except that runs of digits compare by value, and a run
// with leading zeros sorts as a fraction (before shorter runs). Like
// strverscmp it returns the difference of the first differing bytes when
// that decides the order.

func init() {
	cmp := func(name string, ok func(int) bool) *Builtin {
		return fn(name, 2, 2, func(_ *Call, a []Value) Value {
			r := versionArgs(a)
			if r.kind != IntKind {
				return r
			}
			return Bool(ok(int(r.i())))
		})
	}
	register(
		fn("versioncmp", 2, 2, func(_ *Call, a []Value) Value { return versionArgs(a) }),
		cmp("versionGT", func(c int) bool { return c > 0 }),
		cmp("versionLT", func(c int) bool { return c < 0 }),
		cmp("versionGE", func(c int) bool { return c >= 0 }),
		cmp("versionLE", func(c int) bool { return c <= 0 }),
		cmp("versionEQ", func(c int) bool { return c == 0 }),
		fn("version_in_range", 3, 3, func(_ *Call, a []Value) Value {
			if v, bad := strictArgs(a...); bad {
				return v
			}
			for _, v := range a {
				if v.kind != StringKind {
					return Error()
				}
			}
			return Bool(VersionCompare(a[1].s, a[0].s) <= 0 && VersionCompare(a[0].s, a[2].s) <= 0)
		}),
	)
}

func versionArgs(a []Value) Value {
	if v, bad := strictArgs(a...); bad {
		return v
	}
	if a[0].kind != StringKind || a[1].kind != StringKind {
		return Error()
	}
	return Int(int64(VersionCompare(a[0].s, a[1].s)))
}

// digitClass classifies a byte: 0 for a non-digit, 1 for 1-9, 2 for '0'.
func digitClass(c byte) int {
	switch {
	case c == '0':
		return 2
	case c >= '1' && c <= '9':
		return 1
	}
	return 0
}

// run is where the common prefix of two strings ends, as far as version
// order cares.
type run uint8

const (
	outside  run = iota // not in a run of digits
	integral            // in a run of digits that began with 1-9
	zeros               // in a run of zeros
	fraction            // in a run that began with 0 and has other digits since
)

// after returns the run state after one more common byte of class k.
func (r run) after(k int) run {
	switch {
	case k == 0:
		return outside
	case r == outside && k == 1:
		return integral
	case r == outside:
		return zeros
	case r == zeros && k == 1:
		return fraction
	}
	return r
}

// VersionCompare compares two version strings (see versioncmp).
func VersionCompare(a, b string) int {
	at := func(s string, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	state := outside
	i := 0
	for ; at(a, i) == at(b, i); i++ {
		if at(a, i) == 0 {
			return 0
		}
		state = state.after(digitClass(at(a, i)))
	}
	c1, c2 := at(a, i), at(b, i)
	diff := int(c1) - int(c2)
	k1, k2 := digitClass(c1), digitClass(c2)
	switch state {
	case outside:
		if k1 == 1 && k2 == 1 {
			return longerRun(a, b, i, diff)
		}
	case integral:
		switch {
		case k1 == 0 && k2 == 0:
		case k1 == 0:
			return -1
		case k2 == 0:
			return 1
		default:
			return longerRun(a, b, i, diff)
		}
	case zeros:
		switch {
		case k1 == 0 && k2 != 0:
			return 1
		case k1 != 0 && k2 == 0:
			return -1
		}
	}
	return diff
}

// longerRun orders by which digit run starting at i is longer, else by diff.
func longerRun(a, b string, i, diff int) int {
	isDigit := func(s string, j int) bool { return j < len(s) && s[j] >= '0' && s[j] <= '9' }
	for j := i + 1; ; j++ {
		da, db := isDigit(a, j), isDigit(b, j)
		switch {
		case da && !db:
			return 1
		case !da && db:
			return -1
		case !da:
			return diff
		}
	}
}
