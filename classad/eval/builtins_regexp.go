package eval

import (
	"regexp"
	"strings"
	"sync"
)

// Regular-expression functions: regexp, regexpMember, regexps, replace,
// replaceAll, stringList_regexpMember. HTCondor uses PCRE; Kite uses Go's
// RE2 syntax, which is the same for the common subset (no backreferences
// or look-around in patterns). Options: i (ignore case), m (^ and $ at
// line breaks), s (. matches newline), f (substitute into the full target),
// g (substitute every match); others are ignored.

func init() {
	register(
		fn("regexp", 2, 3, builtinRegexp),
		fn("regexpMember", 2, 3, builtinRegexpMember),
		fn("regexps", 3, 4, func(_ *Call, a []Value) Value { return substitute(a, "") }),
		fn("replace", 3, 4, func(_ *Call, a []Value) Value { return substitute(a, "f") }),
		fn("replaceAll", 3, 4, func(_ *Call, a []Value) Value { return substitute(a, "fg") }),
		fn("stringList_regexpMember", 2, 4, builtinStringListRegexpMember),
	)
}

type reOptions struct {
	full, global bool
}

// compiled regular expressions by pattern and flags; cleared when large.
var reCache struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const reCacheMax = 1024

// compileRegexp compiles pattern with the options' flags.
func compileRegexp(pattern, opts string) (*regexp.Regexp, reOptions, bool) {
	var flags strings.Builder
	var o reOptions
	for _, c := range strings.ToLower(opts) {
		switch c {
		case 'i', 'm', 's':
			if !strings.ContainsRune(flags.String(), c) {
				flags.WriteRune(c)
			}
		case 'f':
			o.full = true
		case 'g':
			o.global = true
		}
	}
	key := pattern
	if flags.Len() > 0 {
		key = "(?" + flags.String() + ")" + pattern
	}
	reCache.Lock()
	re, ok := reCache.m[key]
	reCache.Unlock()
	if ok {
		return re, o, true
	}
	re, err := regexp.Compile(key)
	if err != nil {
		return nil, o, false
	}
	reCache.Lock()
	if reCache.m == nil || len(reCache.m) >= reCacheMax {
		reCache.m = make(map[string]*regexp.Regexp)
	}
	reCache.m[key] = re
	reCache.Unlock()
	return re, o, true
}

// regexArgs checks that every argument is a string (UNDEFINED and ERROR
// propagate) and compiles the pattern with the options at index optIdx.
func regexArgs(a []Value, optIdx int) (*regexp.Regexp, reOptions, Value, bool) {
	if v, bad := strictArgs(a...); bad {
		return nil, reOptions{}, v, false
	}
	for _, v := range a {
		if v.kind != StringKind {
			return nil, reOptions{}, Error(), false
		}
	}
	opts := ""
	if optIdx < len(a) {
		opts = a[optIdx].s
	}
	re, o, ok := compileRegexp(a[0].s, opts)
	if !ok {
		return nil, o, Error(), false
	}
	return re, o, Value{}, true
}

func builtinRegexp(_ *Call, a []Value) Value {
	re, _, v, ok := regexArgs(a, 2)
	if !ok {
		return v
	}
	return Bool(re.MatchString(a[1].s))
}

// builtinRegexpMember reports whether the pattern matches any string of a
// list. UNDEFINED elements make a non-match UNDEFINED; an element before a
// match that is neither a string nor UNDEFINED is ERROR.
func builtinRegexpMember(c *Call, a []Value) Value {
	pat, lv := a[0], a[1]
	if v, bad := strictArgs(pat, lv); bad {
		return v
	}
	if pat.kind != StringKind || lv.kind != ListKind {
		return Error()
	}
	opts := ""
	if len(a) == 3 {
		if a[2].kind != StringKind {
			return Error()
		}
		opts = a[2].s
	}
	re, _, ok := compileRegexp(pat.s, opts)
	if !ok {
		return Error()
	}
	l := lv.o.(*List)
	sawUndefined := false
	for i := 0; i < l.Len(); i++ {
		switch e := l.elem(c.st, i); e.kind {
		case StringKind:
			if re.MatchString(e.s) {
				return Bool(true)
			}
		case UndefinedKind:
			sawUndefined = true
		default:
			return Error()
		}
	}
	if sawUndefined {
		return Undefined()
	}
	return Bool(false)
}

// substitute implements regexps, replace and replaceAll. Without the f
// option the result is the expanded substitute alone (or "" when the
// pattern does not match); with it, the target with the match(es) replaced.
func substitute(a []Value, extra string) Value {
	re, o, v, ok := regexArgs(a, 3)
	if !ok {
		return v
	}
	if strings.Contains(extra, "f") {
		o.full = true
	}
	if strings.Contains(extra, "g") {
		o.global = true
	}
	target, subst := a[1].s, a[2].s
	if !o.full {
		m := re.FindStringSubmatchIndex(target)
		if m == nil {
			return String("")
		}
		return String(expand(subst, target, m))
	}
	n := 1
	if o.global {
		n = -1
	}
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(target, n) {
		b.WriteString(target[last:m[0]])
		b.WriteString(expand(subst, target, m))
		last = m[1]
	}
	b.WriteString(target[last:])
	return String(b.String())
}

// expand replaces \0 .. \9 in subst with the match's groups; a backslash
// before any other character stands for that character.
func expand(subst, target string, m []int) string {
	var b strings.Builder
	for i := 0; i < len(subst); i++ {
		c := subst[i]
		if c != '\\' || i+1 == len(subst) {
			b.WriteByte(c)
			continue
		}
		i++
		d := subst[i]
		if d < '0' || d > '9' {
			b.WriteByte(d)
			continue
		}
		g := int(d - '0')
		if 2*g+1 < len(m) && m[2*g] >= 0 {
			b.WriteString(target[m[2*g]:m[2*g+1]])
		}
	}
	return b.String()
}

// builtinStringListRegexpMember is stringList_regexpMember(pattern, list
// [, delimiters] [, options]).
func builtinStringListRegexpMember(_ *Call, a []Value) Value {
	if v, bad := strictArgs(a...); bad {
		return v
	}
	for _, v := range a {
		if v.kind != StringKind {
			return Error()
		}
	}
	d, opts := defaultDelims, ""
	if len(a) >= 3 {
		d = a[2].s
	}
	if len(a) == 4 {
		opts = a[3].s
	}
	re, _, ok := compileRegexp(a[0].s, opts)
	if !ok {
		return Error()
	}
	for _, it := range splitList(a[1].s, d) {
		if re.MatchString(it) {
			return Bool(true)
		}
	}
	return Bool(false)
}
