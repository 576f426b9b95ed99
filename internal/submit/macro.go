package submit

import (
	"fmt"
	"strings"
)

// A macro is a name defined in the submit file (every `name = value` line
// defines one) or by Kite itself.
type macro struct {
	name  string // as first written
	value string // raw: references are expanded when the macro is used
	sp    span   // where the value was written
	// item says the value is a queue statement's item (a loop variable
	// that names a command): it differs from proc to proc.
	item bool
}

// macros is the table of definitions in force at a point of the file.
// Names are case-insensitive.
type macros struct {
	defs  map[string]*macro // by lower-cased name
	order []string          // lower-cased names in order of first definition
}

func newMacros() *macros { return &macros{defs: map[string]*macro{}} }

// define sets name to value. A reference to name itself inside value is
// replaced at once by the previous definition (or the reference's
// default, or nothing), so `foo = $(foo) bar` appends to foo.
func (t *macros) define(name, value string, sp span) {
	key := strings.ToLower(name)
	old := t.defs[key]
	if strings.Contains(value, "$") {
		prev := ""
		if old != nil {
			prev = old.value
		}
		value = replaceSelf(value, key, prev)
	}
	if old == nil {
		t.order = append(t.order, key)
		t.defs[key] = &macro{name: name, value: value, sp: sp}
		return
	}
	t.defs[key] = &macro{name: old.name, value: value, sp: sp}
}

// lookup returns the definition of a lower-cased name.
func (t *macros) lookup(key string) *macro { return t.defs[key] }

// replaceSelf replaces the references $(key) and $(key:default) in value
// by prev (or, when prev is empty, by the default).
func replaceSelf(value, key, prev string) string {
	var b strings.Builder
	for i := 0; i < len(value); {
		ref, ok := parseRef(value, i)
		if !ok {
			b.WriteByte(value[i])
			i++
			continue
		}
		if ref.fn != "" || ref.dollars != 1 || !strings.EqualFold(ref.name, key) {
			b.WriteString(value[i:ref.end])
			i = ref.end
			continue
		}
		switch {
		case prev != "":
			b.WriteString(prev)
		case ref.hasDef:
			b.WriteString(ref.def)
		}
		i = ref.end
	}
	return b.String()
}

// ref is a reference found in a value: $(name), $(name:default),
// $$(name) (kept for run time), or $FN(args) for a function such as ENV.
type ref struct {
	dollars int    // 1 for $(...), 2 for $$(...)
	fn      string // function name (case matters), "" for a plain reference
	name    string // the name, or the function's argument text
	def     string // the default after ':'
	hasDef  bool
	end     int // offset just past the closing parenthesis
}

// parseRef parses the reference starting at s[i] (a '$'). Text that is not
// a well-formed reference is not one, and stays as it is.
func parseRef(s string, i int) (ref, bool) {
	var r ref
	if s[i] != '$' {
		return r, false
	}
	j := i + 1
	r.dollars = 1
	if j < len(s) && s[j] == '$' {
		r.dollars, j = 2, j+1
	}
	k := j
	for k < len(s) && (s[k]|0x20 >= 'a' && s[k]|0x20 <= 'z' || s[k] == '_') {
		k++
	}
	if r.dollars == 2 && k > j {
		return r, false
	}
	r.fn = s[j:k]
	if k >= len(s) || s[k] != '(' {
		return r, false
	}
	close := matchParen(s, k)
	if close < 0 {
		return r, false
	}
	r.end = close + 1
	body := s[k+1 : close]
	if r.fn != "" || r.dollars == 2 {
		r.name = body
		return r, true
	}
	return r, r.splitName(body)
}

// splitName splits the body of $(...) into name and default; the name must
// be a valid macro name.
func (r *ref) splitName(body string) bool {
	name := body
	if c := strings.IndexByte(body, ':'); c >= 0 {
		name, r.def, r.hasDef = body[:c], body[c+1:], true
	}
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isNameByte(name[i]) {
			return false
		}
	}
	r.name = name
	return true
}

// matchParen returns the index of the parenthesis closing the one at
// s[open], or -1.
func matchParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// references calls f with the name of each plain macro reference in s,
// including those inside defaults.
func references(s string, f func(name string)) {
	for i := 0; i < len(s); i++ {
		r, ok := parseRef(s, i)
		if !ok {
			continue
		}
		if r.dollars == 1 && r.fn == "" {
			f(r.name)
			references(r.def, f)
		} else if r.fn != "" {
			references(r.name, f)
			funcArgNames(r, f)
		}
		i = r.end - 1
	}
}

// funcArgNames calls f with the arguments of a macro function that are
// macro names: $INT(X), $SUBSTR(Name, 2) and the like read the macro
// they name.
func funcArgNames(r ref, f func(name string)) {
	if r.fn == "ENV" || lookupFunc(r.fn) == nil {
		return
	}
	for _, a := range strings.Split(r.name, ",") {
		if a = trimSpace(a); validKey(a) && isNameStart(a[0]) {
			f(a)
		}
	}
}

// errCycle reports a macro that refers to itself through other macros.
type errCycle struct{ chain []string }

func (e *errCycle) Error() string {
	return fmt.Sprintf("macro %s refers to itself (%s)", e.chain[0], strings.Join(e.chain, " -> "))
}
