package parser

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types produced by the ClassAd lexer.
const (
	tokIdent   lexer.TokenType = iota + 1 // identifier or keyword
	tokInt                                // decimal integer
	tokReal                               // real with a point and/or exponent
	tokString                             // "..." (Value holds the decoded text)
	tokQName                              // '...' quoted attribute name (decoded)
	tokPunct                              // operator or punctuation (Value holds its text)
	tokNewline                            // end of line, only in the old (one attribute per line) syntax
)

var symbols = map[string]lexer.TokenType{
	"EOF":     lexer.EOF,
	"Ident":   tokIdent,
	"Int":     tokInt,
	"Real":    tokReal,
	"String":  tokString,
	"QName":   tokQName,
	"Punct":   tokPunct,
	"Newline": tokNewline,
}

// definition is the participle lexer definition. A hand-written scanner:
// ClassAd's lexical rules (case-insensitive keywords, two string escape
// dialects, comments) are simple, and lexing is on the parse hot path.
type definition struct {
	// old selects the old ClassAd syntax: one attribute per line, `#`
	// comment lines, and strings in which only \" is an escape.
	old bool
}

func (d definition) Symbols() map[string]lexer.TokenType { return symbols }

func (d definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (d definition) LexString(filename string, s string) (lexer.Lexer, error) {
	return &scanner{src: s, filename: filename, old: d.old, line: 1, atLineStart: true}, nil
}

// scanner produces tokens from a string.
type scanner struct {
	src         string
	filename    string
	off         int
	line        int
	lineStart   int
	old         bool
	atLineStart bool
}

// LexError is a lexical error at a position.
type LexError struct {
	Pos lexer.Position
	Msg string
}

func (e *LexError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Column, e.Msg)
}

func (s *scanner) pos(off int) lexer.Position {
	return lexer.Position{Filename: s.filename, Offset: off, Line: s.line, Column: off - s.lineStart + 1}
}

func (s *scanner) errorf(off int, format string, args ...any) error {
	return &LexError{Pos: s.pos(off), Msg: fmt.Sprintf(format, args...)}
}

// Next returns the next token, skipping white space and comments.
func (s *scanner) Next() (lexer.Token, error) {
	if err := s.skipSpace(); err != nil {
		return lexer.Token{}, err
	}
	if s.off >= len(s.src) {
		return lexer.EOFToken(s.pos(s.off)), nil
	}
	start := s.off
	c := s.src[start]
	switch {
	case c == '\n':
		pos := s.pos(start)
		s.newline(start)
		return lexer.Token{Type: tokNewline, Value: "\n", Pos: pos}, nil
	case isLetter(c):
		for s.off++; s.off < len(s.src) && isIdentChar(s.src[s.off]); s.off++ {
		}
		return lexer.Token{Type: tokIdent, Value: s.src[start:s.off], Pos: s.pos(start)}, nil
	case isDigit(c) || (c == '.' && start+1 < len(s.src) && isDigit(s.src[start+1])):
		return s.number(start)
	case c == '"':
		return s.quoted(start, '"', tokString)
	case c == '\'':
		return s.quoted(start, '\'', tokQName)
	}
	return s.punct(start)
}

func (s *scanner) newline(at int) {
	s.off = at + 1
	s.line++
	s.lineStart = s.off
	s.atLineStart = true
}

// skipSpace skips blanks and comments. In the old syntax newlines are
// tokens, and a line whose first non-blank character is # is a comment.
func (s *scanner) skipSpace() error {
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case c == '\n' && !s.old:
			s.newline(s.off)
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.off++
		case c == '#' && s.old && s.atLineStart:
			s.skipToEOL()
		case c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '/':
			s.skipToEOL()
		case c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '*':
			if err := s.skipBlockComment(); err != nil {
				return err
			}
		default:
			s.atLineStart = false
			return nil
		}
	}
	return nil
}

func (s *scanner) skipToEOL() {
	for s.off < len(s.src) && s.src[s.off] != '\n' {
		s.off++
	}
}

func (s *scanner) skipBlockComment() error {
	start := s.off
	startPos := s.pos(start)
	for s.off += 2; s.off+1 < len(s.src); s.off++ {
		switch {
		case s.src[s.off] == '*' && s.src[s.off+1] == '/':
			s.off += 2
			return nil
		case s.src[s.off] == '\n':
			s.line++
			s.lineStart = s.off + 1
		}
	}
	return &LexError{Pos: startPos, Msg: "comment not terminated"}
}

// number scans an integer or a real. HTCondor's lexer rejects a number
// directly followed by a letter or, after a leading 0, by a digit (so 010
// and 0x10 are syntax errors, not octal or hexadecimal).
func (s *scanner) number(start int) (lexer.Token, error) {
	src := s.src
	i := start
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	typ := tokInt
	if i < len(src) && src[i] == '.' {
		typ = tokReal
		for i++; i < len(src) && isDigit(src[i]); i++ {
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			typ = tokReal
			for i = j; i < len(src) && isDigit(src[i]); i++ {
			}
		}
	}
	if typ == tokInt && src[start] == '0' && i-start > 1 {
		return lexer.Token{}, s.errorf(start, "invalid number %q: integers are decimal and have no leading zero", src[start:i])
	}
	if i < len(src) && isIdentChar(src[i]) {
		j := i
		for j < len(src) && isIdentChar(src[j]) {
			j++
		}
		return lexer.Token{}, s.errorf(start, "invalid number %q", src[start:j])
	}
	s.off = i
	return lexer.Token{Type: typ, Value: src[start:i], Pos: s.pos(start)}, nil
}

// quoted scans a string literal or a quoted attribute name and decodes its
// escapes. The token's value is the decoded text.
func (s *scanner) quoted(start int, quote byte, typ lexer.TokenType) (lexer.Token, error) {
	src := s.src
	i := start + 1
	// Fast path: no escapes.
	for i < len(src) && src[i] != quote && src[i] != '\\' && src[i] != '\n' && src[i] != 0 {
		i++
	}
	if i < len(src) && src[i] == quote {
		return s.quotedToken(start, i+1, typ, src[start+1:i])
	}
	var b strings.Builder
	b.WriteString(src[start+1 : i])
	for i < len(src) {
		c := src[i]
		switch {
		case c == quote:
			return s.quotedToken(start, i+1, typ, b.String())
		case c == '\n':
			return lexer.Token{}, s.errorf(start, "string not terminated before end of line")
		case c == 0:
			return lexer.Token{}, s.errorf(i, "string contains a NUL byte")
		case c == '\\' && s.old:
			if i+1 < len(src) && src[i+1] == quote {
				b.WriteByte(quote)
				i += 2
			} else {
				b.WriteByte('\\')
				i++
			}
		case c == '\\':
			n, err := unescape(&b, src[i:])
			if err != nil {
				return lexer.Token{}, s.errorf(i, "%v", err)
			}
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return lexer.Token{}, s.errorf(start, "string not terminated")
}

// quotedToken finishes a string or quoted name ending before end.
func (s *scanner) quotedToken(start, end int, typ lexer.TokenType, text string) (lexer.Token, error) {
	if typ == tokQName && text == "" {
		return lexer.Token{}, s.errorf(start, "empty attribute name")
	}
	if !utf8.ValidString(text) {
		if i := InvalidUTF8(s.src[start:end]); i >= 0 {
			return lexer.Token{}, s.errorf(start+i, "byte 0x%02x is not valid UTF-8", s.src[start+i])
		}
		return lexer.Token{}, s.errorf(start, "its escapes make the string's text invalid UTF-8")
	}
	s.off = end
	return lexer.Token{Type: typ, Value: text, Pos: s.pos(start)}, nil
}

// punctuators, longest first within each leading character.
var punctuators = [256][]string{
	'(': {"("}, ')': {")"}, '[': {"["}, ']': {"]"}, '{': {"{"}, '}': {"}"},
	',': {","}, ';': {";"}, '.': {"."}, ':': {":"},
	'=': {"=?=", "=!=", "==", "="},
	'!': {"!=", "!"},
	'<': {"<<", "<=", "<"},
	'>': {">>>", ">>", ">=", ">"},
	'+': {"+"}, '-': {"-"}, '*': {"*"}, '/': {"/"}, '%': {"%"},
	'~': {"~"}, '^': {"^"},
	'&': {"&&", "&"},
	'|': {"||", "|"},
}

func (s *scanner) punct(start int) (lexer.Token, error) {
	if s.src[start] == '?' {
		return s.question(start), nil
	}
	for _, p := range punctuators[s.src[start]] {
		if strings.HasPrefix(s.src[start:], p) {
			s.off = start + len(p)
			return lexer.Token{Type: tokPunct, Value: p, Pos: s.pos(start)}, nil
		}
	}
	return lexer.Token{}, s.errorf(start, "unexpected character %q", s.src[start])
}

func isLetter(c byte) bool    { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) }

// question scans "?", or the elvis operator "?:", which may have blanks
// between its two characters (HTCondor reads `a ? : b` as `a ?: b`).
func (s *scanner) question(start int) lexer.Token {
	i := start + 1
	for i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t') {
		i++
	}
	if i < len(s.src) && s.src[i] == ':' {
		s.off = i + 1
		return lexer.Token{Type: tokPunct, Value: "?:", Pos: s.pos(start)}
	}
	s.off = start + 1
	return lexer.Token{Type: tokPunct, Value: "?", Pos: s.pos(start)}
}
