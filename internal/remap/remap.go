// Package remap reads HTCondor's transfer_output_remaps: the list that
// says where an output file of a job lands on the submit side, when not in
// the job's initial directory under its own name (HTCondor's manual,
// condor_submit, "transfer_output_remaps"; users' manual, "Specifying What
// Files to Transfer"):
//
//	transfer_output_remaps = "name = newname ; name2 = dir/newname2"
//
// Entries are separated by ';' and each maps the name an output file is
// sent back as to the path it is written to: absolute, or relative to the
// job's initial directory (Iwd), or a URL the execution point uploads the
// file to through a file transfer plugin. '\=' and '\;' stand for the characters
// themselves; white space around names is dropped, and so are empty
// entries (a trailing ';'). A target that is itself remapped is remapped
// in turn, as in HTCondor.
//
// Kite is stricter than HTCondor where HTCondor ignores a mistake: an
// entry without '=', an empty name or target, a name given twice, a
// directory and a name that could not be a file of the job's sandbox are
// errors, each at its byte offset in the list.
package remap

import (
	"fmt"
	"path"
	"strings"
)

// Rule maps one output name to its target.
type Rule struct {
	Name, Target string
}

// List is the rules of one job, in the order written.
type List []Rule

// SyntaxError is a mistake in a remap list, at byte Offset of it.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error describes the mistake.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("transfer_output_remaps at byte %d: %s", e.Offset+1, e.Msg)
}

// field reads from s[i:] up to the first of stops that is not escaped by
// a backslash ('\=' and '\;' stand for the characters), and returns the
// text with its escapes undone and white space around it dropped, where
// that text starts (or i, when there is none), and the index of the stop
// (len(s) at the end).
func field(s string, i int, stops string) (text string, at, end int) {
	var b strings.Builder
	at, trimmed := -1, 0
	for end = i; end < len(s); end++ {
		c := s[end]
		if strings.IndexByte(stops, c) >= 0 {
			break
		}
		if c == '\\' && end+1 < len(s) && (s[end+1] == '=' || s[end+1] == ';') {
			end++
			c = s[end]
		} else if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			if at >= 0 {
				b.WriteByte(c)
			}
			continue
		}
		if at < 0 {
			at = end
		}
		b.WriteByte(c)
		trimmed = b.Len()
	}
	if at < 0 {
		at = i
	}
	return b.String()[:trimmed], at, end
}

// Parse reads a remap list (the value of TransferOutputRemaps, without
// its quotes).
func Parse(s string) (List, error) {
	var l List
	seen := map[string]bool{}
	for i := 0; i <= len(s); {
		name, nameAt, j := field(s, i, ";=")
		if j == len(s) || s[j] == ';' {
			if name != "" {
				return nil, &SyntaxError{nameAt, fmt.Sprintf("%q has no '=' (write name = newname)", name)}
			}
			i = j + 1
			continue
		}
		if name == "" {
			nameAt = j
		}
		target, targetAt, k := field(s, j+1, ";")
		if err := checkName(name, nameAt); err != nil {
			return nil, err
		}
		if err := checkTarget(target, targetAt); err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, &SyntaxError{nameAt, fmt.Sprintf("%q is remapped twice", name)}
		}
		seen[name] = true
		l = append(l, Rule{name, target})
		i = k + 1
	}
	return l, nil
}

// checkName refuses a name that no output of the job could be sent as.
func checkName(n string, at int) error {
	switch {
	case n == "":
		return &SyntaxError{at, "an entry with no name before '='"}
	case strings.HasSuffix(n, "/"):
		return &SyntaxError{at, fmt.Sprintf("%q is a directory: only files can be remapped", n)}
	case strings.ContainsRune(n, 0):
		return &SyntaxError{at, "a name with a NUL byte"}
	case IsURL(n):
		return &SyntaxError{at, fmt.Sprintf("%q is a URL, not the name of an output file", n)}
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return &SyntaxError{at, fmt.Sprintf("%q: an output file's name has no \"..\"", n)}
		}
	}
	return nil
}

// checkTarget refuses a target Kite cannot write.
func checkTarget(t string, at int) error {
	switch {
	case IsURL(t):
		return nil // the plugin judges the rest
	case t == "":
		return &SyntaxError{at, "an entry with no target after '='"}
	case strings.HasSuffix(t, "/") || path.Base(t) == "." || path.Base(t) == "..":
		return &SyntaxError{at, fmt.Sprintf("%q is a directory: a remap names the file to write", t)}
	case strings.ContainsRune(t, 0):
		return &SyntaxError{at, "a target with a NUL byte"}
	}
	return nil
}

// IsURL reports whether s is a URL (scheme://...), as HTCondor tells
// them from paths.
func IsURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for _, c := range s[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Find returns where the output sent as name lands: its target, followed
// through targets that are remapped in turn; ok is false when name is not
// remapped. Rules that lead back to a name already passed are an error.
func (l List) Find(name string) (target string, ok bool, err error) {
	at := name
	passed := map[string]bool{name: true}
	for {
		next, found := l.lookup(at)
		if !found {
			return at, at != name, nil
		}
		if passed[next] {
			return "", false, fmt.Errorf("transfer_output_remaps: %q is remapped in a cycle (through %q)", name, next)
		}
		passed[next] = true
		at = next
	}
}

// FindFirst returns where a file lands under the first of names that l
// remaps (followed as Find follows it), or names[0], unremapped, when
// none is: a file is remapped by the name it lands as, else by the name
// it was sent as.
func (l List) FindFirst(names ...string) (target string, ok bool, err error) {
	for _, n := range names {
		if target, ok, err = l.Find(n); ok || err != nil {
			return target, ok, err
		}
	}
	return names[0], false, nil
}

// lookup returns the target of one rule.
func (l List) lookup(name string) (string, bool) {
	for _, r := range l {
		if r.Name == name {
			return r.Target, true
		}
	}
	return "", false
}
