package submit

import (
	"fmt"
	"strconv"
	"strings"
)

// LanguageVersion is the HTCondor version whose submit language Kite
// reads: what `if version >= x.y.z` compares with.
const LanguageVersion = "25.14.0"

// evalCondition evaluates the condition of an if or elif whose macros are
// already expanded, with the forms the HTCondor manual lists ("Using
// Conditionals in the Submit Description File"):
//
//	[!] true | false | yes | no | t | f | <number>
//	[!] defined <name>                 (defined and not empty)
//	[!] version <op> <major.minor[.sub]>   op: == = != < <= > >=
//
// Compound conditions are refused, as condor_submit refuses them. It
// returns the result, or why the text is not a condition. defined may be
// nil, when only the syntax is checked.
func evalCondition(cond string, defined func(string) bool) (bool, string) {
	cond = trimSpace(cond)
	negate := strings.HasPrefix(cond, "!")
	if negate {
		cond = trimSpace(cond[1:])
	}
	v, why := evalSimple(cond, defined)
	return v != negate, why
}

// evalSimple evaluates a condition without its leading '!'.
func evalSimple(cond string, defined func(string) bool) (bool, string) {
	if b, ok := boolWord(cond); ok {
		return b, ""
	}
	if f, err := strconv.ParseFloat(cond, 64); err == nil && isNumberText(cond) {
		return f != 0, ""
	}
	word, rest := cutWord(cond)
	switch strings.ToLower(word) {
	case "defined":
		return definedCondition(rest, defined)
	case "version":
		return versionCondition(rest)
	}
	if strings.ContainsAny(cond, "<>=!&|()+-*/ ") {
		return false, "complex conditionals are not supported"
	}
	return false, "it is not a conditional (write defined NAME, version >= X.Y, or a boolean)"
}

// boolWord reads the boolean words a condition may be.
func boolWord(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "t":
		return true, true
	case "false", "no", "f":
		return false, true
	}
	return false, false
}

// isNumberText reports whether s is written as a plain number (ParseFloat
// also takes "inf" and "nan", which are names here).
func isNumberText(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '.')
}

// cutWord splits the leading letters of s from the rest, trimmed.
func cutWord(s string) (string, string) {
	i := 0
	for i < len(s) && s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z' {
		i++
	}
	return s[:i], trimSpace(s[i:])
}

// definedCondition evaluates `defined NAME`: true when NAME is defined
// and not empty; a boolean or a number counts as defined.
func definedCondition(name string, defined func(string) bool) (bool, string) {
	switch {
	case name == "":
		return false, ""
	case validKey(name):
		if _, ok := boolWord(name); ok {
			return true, ""
		}
		return defined != nil && defined(name), ""
	case isNumberText(name):
		if _, err := strconv.ParseFloat(name, 64); err == nil {
			return true, ""
		}
	}
	return false, "the argument of defined must be a macro name, a boolean or a number"
}

// versionCondition evaluates `version OP X.Y[.Z]` against LanguageVersion.
// A version without its third number matches any sub-version.
func versionCondition(rest string) (bool, string) {
	op, lit := cutOperator(rest)
	if op == "" {
		return false, "version must be followed by a comparison (==, !=, <, <=, >, >=) and a version"
	}
	want, n, ok := parseVersion(strings.TrimPrefix(strings.TrimPrefix(lit, "v"), "V"))
	if !ok {
		return false, fmt.Sprintf("the version literal %q is invalid (write major.minor or major.minor.sub)", lit)
	}
	have, _, _ := parseVersion(LanguageVersion)
	if n < 3 {
		want[2] = have[2]
	}
	c := compareVersions(have, want)
	switch op {
	case "==", "=":
		return c == 0, ""
	case "!=":
		return c != 0, ""
	case "<":
		return c < 0, ""
	case "<=":
		return c <= 0, ""
	case ">":
		return c > 0, ""
	default: // ">="
		return c >= 0, ""
	}
}

// cutOperator splits a leading comparison operator from s.
func cutOperator(s string) (string, string) {
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">", "="} {
		if rest, ok := strings.CutPrefix(s, op); ok {
			return op, trimSpace(rest)
		}
	}
	return "", s
}

// parseVersion reads major.minor[.sub], returning how many numbers it had.
func parseVersion(s string) ([3]int, int, bool) {
	var v [3]int
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, 0, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, 0, false
		}
		v[i] = n
	}
	return v, len(parts), v[0] >= 6
}

// compareVersions returns -1, 0 or 1 as a is older than, the same as or
// newer than b.
func compareVersions(a, b [3]int) int {
	for i := range a {
		switch {
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
	}
	return 0
}
