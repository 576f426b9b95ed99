// Package envargs reads and writes HTCondor's syntaxes for a job's
// command-line arguments and environment.
//
// HTCondor has two of each, and real pools hold both, so Kite must read and
// write them exactly as HTCondor does: the ClassAd functions argsToList,
// listToArgs, envV1ToV2 and mergeEnvironment use them, and so does the
// submit-file parser for the arguments and environment commands.
//
// Arguments (job attributes Args for V1, Arguments for V2):
//
//   - V1 ("raw", Unix): arguments separated by white space (space, tab,
//     newline, carriage return); there is no quoting, so an argument cannot
//     contain white space.
//   - V2 ("raw"): separated by white space; a single-quoted section groups
//     characters, white space included, and ” inside it is one '; ” on
//     its own is an empty argument. Double quotes and backslashes are
//     ordinary characters.
//
// In a submit file, a value starting with a double quote is V2 "quoted":
// the whole value is enclosed in double quotes and "" inside stands for one
// " (QuoteV2, UnquoteV2). Otherwise it is V1 "wacked": \" stands for " and
// a bare " is an error (ParseArgs).
//
// Environment (job attributes Env for V1, Environment for V2): entries
// NAME=VALUE. V2 separates entries as V2 arguments are separated, with the
// same quoting. V1 separates them with a delimiter character (';' on Unix)
// or a line break, with no quoting; leading white space of an entry is
// dropped. A V1 string may announce its delimiter by starting with one of
// !#$%&*+,-/:;<>?@^`|~. An entry without '=' is an error unless it holds
// "$$" (an unexpanded submit macro), which is kept as it is. Later entries
// replace earlier ones of the same name; an Env writes its entries sorted
// by name.
package envargs

import (
	"fmt"
	"strings"
)

// SyntaxError reports input that does not follow one of the syntaxes.
type SyntaxError struct {
	Syntax string // which syntax, e.g. "V2 arguments"
	Msg    string // what is wrong, quoting the offending input
}

// Error returns the syntax and what is wrong.
func (e *SyntaxError) Error() string { return e.Syntax + ": " + e.Msg }

func syntaxError(syntax, format string, args ...any) error {
	return &SyntaxError{Syntax: syntax, Msg: fmt.Sprintf(format, args...)}
}

// isBlank reports whether c separates arguments.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isCSpace reports whether c is white space for C's isspace.
func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// SplitArgsV1 splits V1 (Unix) arguments at white space.
func SplitArgsV1(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isBlank(byte(r)) })
}

// SplitArgsV2 splits V2 arguments. The only error is a single quote that is
// not closed. A token without quotes is a piece of s, not a copy.
func SplitArgsV2(s string) ([]string, error) {
	args := []string{}
	var buf strings.Builder
	token, quoted, start := false, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			if !token {
				start = i
			}
			if !quoted { // the token so far, copied to be added to
				buf.WriteString(s[start:i])
				quoted = true
			}
			end, ok := quotedSection(s, i, &buf)
			if !ok {
				return nil, syntaxError("V2 arguments", "unbalanced quote starting here: %s", s[i:])
			}
			i, token = end, true
		case isBlank(c):
			if token {
				args = append(args, tokenOf(s, start, i, quoted, &buf))
				token, quoted = false, false
			}
		default:
			if !token {
				start = i
			}
			if quoted {
				buf.WriteByte(c)
			}
			token = true
		}
	}
	if token {
		args = append(args, tokenOf(s, start, len(s), quoted, &buf))
	}
	return args, nil
}

// tokenOf returns the token of s that ends at end: the piece s[start:end],
// or what buf gathered of a token with quotes, buf then emptied.
func tokenOf(s string, start, end int, quoted bool, buf *strings.Builder) string {
	if !quoted {
		return s[start:end]
	}
	t := buf.String()
	buf.Reset()
	return t
}

// quotedSection copies the single-quoted section starting at s[open] into
// buf and returns the index of its closing quote.
func quotedSection(s string, open int, buf *strings.Builder) (int, bool) {
	for i := open + 1; i < len(s); i++ {
		if s[i] != '\'' {
			buf.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			buf.WriteByte('\'')
			i++
			continue
		}
		return i, true
	}
	return 0, false
}

// JoinArgsV1 writes arguments in V1 syntax, separated by single spaces. An
// argument holding white space cannot be written.
func JoinArgsV1(args []string) (string, error) {
	for _, a := range args {
		if strings.ContainsAny(a, " \t\r\n") {
			return "", syntaxError("V1 arguments", "cannot represent %q: it contains white space", a)
		}
	}
	return strings.Join(args, " "), nil
}

// JoinArgsV2 writes arguments in V2 syntax: white space and single quotes
// are quoted (a run of them in one quoted section), an empty argument is
// ”.
func JoinArgsV2(args []string) string {
	var b []byte
	for _, a := range args {
		b = appendArgV2(b, a)
	}
	return string(b)
}

func appendArgV2(b []byte, a string) []byte {
	if len(b) > 0 {
		b = append(b, ' ')
	}
	if a == "" {
		return append(b, "''"...)
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if !isBlank(c) && c != '\'' {
			b = append(b, c)
			continue
		}
		if len(b) > 0 && b[len(b)-1] == '\'' {
			b = b[:len(b)-1] // join with the quoted section just before
		} else {
			b = append(b, '\'')
		}
		if c == '\'' {
			b = append(b, '\'')
		}
		b = append(b, c, '\'')
	}
	return b
}

// IsV2Quoted reports whether a submit-file value is in V2 quoted form: it
// starts, after white space, with a double quote.
func IsV2Quoted(s string) bool {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return r < 0x80 && isCSpace(byte(r)) })
	return strings.HasPrefix(s, `"`)
}

// QuoteV2 encloses a V2 string in double quotes, doubling those inside.
func QuoteV2(raw string) string {
	return `"` + strings.ReplaceAll(raw, `"`, `""`) + `"`
}

// UnquoteV2 removes the double quotes of a V2 quoted value: white space may
// surround it, and "" inside stands for one ". Anything after the closing
// quote but white space is an error.
func UnquoteV2(s string) (string, error) {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return r < 0x80 && isCSpace(byte(r)) })
	if !strings.HasPrefix(s, `"`) {
		return "", syntaxError("V2 quoted string", "expecting a double-quoted string, got %q", s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] != '"':
			b.WriteByte(s[i])
		case i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		default:
			if rest := strings.TrimLeftFunc(s[i+1:], func(r rune) bool { return r < 0x80 && isCSpace(byte(r)) }); rest != "" {
				return "", syntaxError("V2 quoted string", "unexpected characters following double-quote "+
					"(did you forget to escape the double-quote by repeating it?): %s", s[i:])
			}
			return b.String(), nil
		}
	}
	return "", syntaxError("V2 quoted string", "unterminated double-quote")
}

// unwackV1 turns a submit-file V1 value into V1 raw: \" is ", and a bare "
// is an error.
func unwackV1(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			return "", syntaxError("V1 arguments", "found illegal unescaped double-quote: %s", s[i:])
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// ParseArgs reads the value of a submit file's arguments command: V2 quoted
// when it starts with a double quote, else V1 with \" for a double quote.
func ParseArgs(s string) ([]string, error) {
	if IsV2Quoted(s) {
		raw, err := UnquoteV2(s)
		if err != nil {
			return nil, err
		}
		return SplitArgsV2(raw)
	}
	raw, err := unwackV1(s)
	if err != nil {
		return nil, err
	}
	return SplitArgsV1(raw), nil
}
