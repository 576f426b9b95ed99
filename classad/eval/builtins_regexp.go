package eval

import (
	"regexp"
	"strings"
	"sync"
)

// Regular-expression functions: regexp, regexpMember, regexps, replace,
// replaceAll, stringList_regexpMember. HTCondor uses PCRE2; Kite uses Go's
// RE2 syntax, which is the same for the common subset (patterns with
// backreferences or look-around do not compile and are ERROR). Options, as
// lower-case letters: i (ignore case), m (^ and $ at line breaks), s (.
// matches newline), x (white space and # comments in the pattern are
// ignored), and for substitutions f (the result is the whole target with
// the match replaced) and g (replace every match); other letters are
// ignored. stringList_regexpMember also takes the upper-case letters.

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

// reOptions are the substitution options.
type reOptions struct {
	full, global bool
}

// compiled regular expressions by flags and pattern; cleared when large.
var reCache struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const reCacheMax = 1024

// parseOptions reads an option string; fold accepts upper-case letters too.
func parseOptions(opts string, fold bool) (flags string, o reOptions, extended bool) {
	if fold {
		opts = strings.ToLower(opts)
	}
	for _, c := range "ims" {
		if strings.ContainsRune(opts, c) {
			flags += string(c)
		}
	}
	o.full = strings.ContainsRune(opts, 'f')
	o.global = strings.ContainsRune(opts, 'g')
	return flags, o, strings.ContainsRune(opts, 'x')
}

// compileRegexp compiles pattern with the options' flags.
func compileRegexp(pattern, opts string, fold bool) (*regexp.Regexp, reOptions, bool) {
	flags, o, extended := parseOptions(opts, fold)
	if extended {
		pattern = stripExtended(pattern)
	}
	key := pattern
	if flags != "" {
		key = "(?" + flags + ")" + pattern
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

// stripExtended removes what PCRE's extended option ignores: white space
// and #-comments outside character classes, unless escaped.
func stripExtended(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			i++
			c = p[i]
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case cSpace(c):
			continue
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// regexArgs checks the arguments of regexp and the substitutions: ERROR in
// any is ERROR, then UNDEFINED is UNDEFINED, then all must be strings; and
// compiles the pattern (an invalid one is ERROR) with the options at optIdx.
func regexArgs(a []Value, optIdx int) (*regexp.Regexp, reOptions, Value, bool) {
	if v, bad := strictArgs(a...); bad {
		return nil, reOptions{}, v, false
	}
	if !allStrings(a...) {
		return nil, reOptions{}, Error(), false
	}
	opts := ""
	if optIdx < len(a) {
		opts = a[optIdx].str()
	}
	re, o, ok := compileRegexp(a[0].str(), opts, false)
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
	return Bool(re.MatchString(a[1].str()))
}

// builtinRegexpMember reports whether the pattern matches any string of a
// list. UNDEFINED elements make a non-match UNDEFINED; an element before a
// match that is neither a string nor UNDEFINED is ERROR.
func builtinRegexpMember(c *Call, a []Value) Value {
	if v, bad := strictArgs(a...); bad {
		return v
	}
	pat, lv := a[0], a[1]
	if (len(a) == 3 && a[2].kind != StringKind) || pat.kind != StringKind || lv.kind != ListKind {
		return Error()
	}
	opts := ""
	if len(a) == 3 {
		opts = a[2].str()
	}
	re, _, ok := compileRegexp(pat.str(), opts, false)
	if !ok {
		return Error()
	}
	return regexpInList(c.st, re, lv.list())
}

func regexpInList(st *State, re *regexp.Regexp, l *List) Value {
	sawUndefined := false
	for i := 0; i < l.Len(); i++ {
		switch e := l.elem(st, i); e.kind {
		case StringKind:
			if re.MatchString(e.str()) {
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

// substitute implements regexps, replace and replaceAll (extra holds the
// options the function adds). Without the f option the result is the
// expanded substitutes alone ("" when the pattern does not match); with it,
// the target with the match(es) replaced. \0 ... \9 in the substitute stand
// for the groups; naming a group past the last one that took part in the
// match is ERROR. With g, as with PCRE, an empty match steps over one
// character, and an empty match at the very end of the target is ERROR.
func substitute(a []Value, extra string) Value {
	re, o, v, ok := regexArgs(a, 3)
	if !ok {
		return v
	}
	o.full = o.full || strings.Contains(extra, "f")
	o.global = o.global || strings.Contains(extra, "g")
	s := substitution{re: re, target: a[1].str(), subst: a[2].str(), reOptions: o}
	out, ok := s.run()
	if !ok {
		return Error()
	}
	return String(out)
}

// substitution is one run of the PCRE-style replacement loop.
type substitution struct {
	re            *regexp.Regexp
	target, subst string
	reOptions
	out     strings.Builder
	matches [][]int // the matches Go finds, with their context
}

func (s *substitution) run() (string, bool) {
	s.matches = s.re.FindAllStringSubmatchIndex(s.target, -1)
	idx, emptyAt, abut := 0, -1, false
	for {
		if emptyAt >= 0 {
			if emptyAt >= len(s.target) {
				return "", false
			}
			s.out.WriteByte(s.target[emptyAt])
			idx, emptyAt = emptyAt+1, -1
		}
		m := s.next(idx, abut)
		if m == nil {
			break
		}
		if s.full {
			s.out.WriteString(s.target[idx:m[0]])
		}
		if !s.expand(m) {
			return "", false
		}
		idx, abut = m[1], m[0] < m[1]
		if !abut {
			emptyAt = idx
		}
		if !s.global {
			break
		}
	}
	if s.full {
		s.out.WriteString(s.target[idx:])
	}
	return s.out.String(), true
}

// next returns the first match at or after idx. Right after a non-empty
// match (abut), Go drops an empty match where PCRE takes it; that one is
// found by matching the rest of the target, unless the pattern looks at
// what precedes (^, \A, \b, \B), which the rest alone cannot show.
func (s *substitution) next(idx int, abut bool) []int {
	if abut && !looksBehind(s.re.String()) {
		if m := s.re.FindStringSubmatchIndex(s.target[idx:]); m != nil && m[1] == 0 {
			for i := range m {
				if m[i] >= 0 {
					m[i] += idx
				}
			}
			return m
		}
	}
	for _, m := range s.matches {
		if m[0] >= idx {
			return m
		}
	}
	return nil
}

// looksBehind reports whether a pattern may test what precedes a position
// (^, \A, \b, \B).
func looksBehind(p string) bool {
	return strings.Contains(p, "^") || strings.Contains(p, `\A`) ||
		strings.Contains(p, `\b`) || strings.Contains(p, `\B`)
}

// expand appends the substitute for match m: \0 .. \9 are groups, a
// backslash before anything else is itself.
func (s *substitution) expand(m []int) bool {
	groups := 0
	for g := 0; 2*g < len(m); g++ {
		if m[2*g] >= 0 {
			groups = g + 1
		}
	}
	sub := s.subst
	for i := 0; i < len(sub); i++ {
		c := sub[i]
		if c != '\\' || i+1 == len(sub) || !isDigit(sub[i+1]) {
			s.out.WriteByte(c)
			continue
		}
		i++
		g := int(sub[i] - '0')
		if g >= groups {
			return false
		}
		if m[2*g] >= 0 {
			s.out.WriteString(s.target[m[2*g]:m[2*g+1]])
		}
	}
	return true
}

// builtinStringListRegexpMember is stringList_regexpMember(pattern, list
// [, delimiters] [, options]): whether the pattern matches an item of the
// string list. Every argument must be a string (UNDEFINED too is ERROR); a
// list with no items is UNDEFINED.
func builtinStringListRegexpMember(_ *Call, a []Value) Value {
	if !allStrings(a...) {
		return Error()
	}
	d, opts := defaultDelims, ""
	if len(a) >= 3 {
		d = a[2].str()
	}
	if len(a) == 4 {
		opts = a[3].str()
	}
	re, _, ok := compileRegexp(a[0].str(), opts, true)
	if !ok {
		return Error()
	}
	items := splitList(a[1].str(), d)
	if len(items) == 0 {
		return Undefined()
	}
	for _, it := range items {
		if re.MatchString(it) {
			return Bool(true)
		}
	}
	return Bool(false)
}
