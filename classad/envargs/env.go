package envargs

import (
	"sort"
	"strings"
)

// DefaultV1Delim is the V1 environment delimiter on Unix.
const DefaultV1Delim = ';'

// v1Delims are the characters a V1 environment string may start with to
// name its own delimiter.
const v1Delims = "!#$%&*+,-/:;<>?@^`|~\x1f"

// Env is a job environment: variables by name. The zero Env is empty and
// ready to use.
type Env struct {
	vars map[string]string
	bare map[string]bool // entries kept verbatim, without "=value"
}

// Set sets a variable.
func (e *Env) Set(name, value string) {
	if e.vars == nil {
		e.vars, e.bare = map[string]string{}, map[string]bool{}
	}
	e.vars[name] = value
	delete(e.bare, name)
}

// Get returns a variable's value and whether it is set.
func (e *Env) Get(name string) (string, bool) {
	v, ok := e.vars[name]
	return v, ok
}

// Len returns the number of variables.
func (e *Env) Len() int { return len(e.vars) }

// Names returns the variables' names, sorted.
func (e *Env) Names() []string {
	names := make([]string, 0, len(e.vars))
	for n := range e.vars {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// setEntry adds one NAME=VALUE entry. An entry without '=' is kept as it is
// when it holds "$$", else it is an error, as is an empty name.
func (e *Env) setEntry(entry, syntax string) error {
	name, value, found := strings.Cut(entry, "=")
	switch {
	case entry == "":
		return syntaxError(syntax, "empty environment entry")
	case !found && strings.Contains(entry, "$$"):
		e.Set(entry, "")
		e.bare[entry] = true
		return nil
	case !found:
		return syntaxError(syntax, "missing '=' after environment variable %q", entry)
	case name == "":
		return syntaxError(syntax, "missing variable name in %q", entry)
	}
	e.Set(name, value)
	return nil
}

// MergeV2 adds the entries of a V2 environment string.
func (e *Env) MergeV2(s string) error {
	entries, err := SplitArgsV2(s)
	if err != nil {
		return syntaxError("V2 environment", "%s", err.(*SyntaxError).Msg)
	}
	for _, en := range entries {
		if err := e.setEntry(en, "V2 environment"); err != nil {
			return err
		}
	}
	return nil
}

// MergeV1 adds the entries of a V1 environment string separated by delim
// (or line breaks). Leading white space of each entry is dropped and empty
// entries are skipped.
func (e *Env) MergeV1(s string, delim byte) error {
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t\n\r")
		end := 0
		for end < len(s) && s[end] != '\n' && s[end] != delim {
			end++
		}
		if entry := s[:end]; entry != "" {
			if err := e.setEntry(entry, "V1 environment"); err != nil {
				return err
			}
		}
		s = s[min(end+1, len(s)):]
	}
	return nil
}

// MergeV1Auto adds the entries of a V1 environment string whose delimiter
// is ';' unless the string starts with another permitted delimiter.
func (e *Env) MergeV1Auto(s string) error {
	delim := byte(DefaultV1Delim)
	if s != "" && strings.IndexByte(v1Delims, s[0]) >= 0 {
		delim, s = s[0], s[1:]
	}
	return e.MergeV1(s, delim)
}

// ParseEnvV2 reads a V2 environment string.
func ParseEnvV2(s string) (*Env, error) {
	e := &Env{}
	return e, e.MergeV2(s)
}

// ParseEnvV1 reads a V1 environment string (see MergeV1Auto).
func ParseEnvV1(s string) (*Env, error) {
	e := &Env{}
	return e, e.MergeV1Auto(s)
}

// ParseEnv reads the value of a submit file's environment command: V2
// quoted when it starts with a double quote, else V1.
func ParseEnv(s string) (*Env, error) {
	if !IsV2Quoted(s) {
		return ParseEnvV1(s)
	}
	raw, err := UnquoteV2(s)
	if err != nil {
		return nil, err
	}
	return ParseEnvV2(raw)
}

// entries returns NAME=VALUE (or the bare entry) for each variable, sorted
// by name.
func (e *Env) entries() []string {
	out := make([]string, 0, len(e.vars))
	for _, n := range e.Names() {
		if e.bare[n] {
			out = append(out, n)
		} else {
			out = append(out, n+"="+e.vars[n])
		}
	}
	return out
}

// V2 writes the environment as a V2 string.
func (e *Env) V2() string { return JoinArgsV2(e.entries()) }

// V1 writes the environment as a V1 string with the given delimiter. A
// name or value holding the delimiter or a line break cannot be written.
func (e *Env) V1(delim byte) (string, error) {
	unsafe := func(s string) bool { return strings.IndexByte(s, delim) >= 0 || strings.IndexByte(s, '\n') >= 0 }
	for _, n := range e.Names() {
		if unsafe(n) || unsafe(e.vars[n]) {
			return "", syntaxError("V1 environment", "entry %s=%s is not compatible with V1 syntax", n, e.vars[n])
		}
	}
	return strings.Join(e.entries(), string([]byte{delim})), nil
}
