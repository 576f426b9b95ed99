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

// token is what the scanner reads: its type, its text (the decoded text
// of a string or quoted name), where it starts, and for punctuation which
// operator it is. Positions are kept as offset, line and column so that a
// token is half the size of participle's lexer.Token and costs no
// Position to make; participle's tokens are made from it only when
// participle drives the parse (the old syntax).
type token struct {
	val  string
	off  int
	line int32
	col  int32
	typ  lexer.TokenType
	p    punct
}

// position returns the token's place as participle's Position.
func (t *token) position(filename string) lexer.Position {
	return lexer.Position{Filename: filename, Offset: t.off, Line: int(t.line), Column: int(t.col)}
}

// Next returns the next token as participle's lexer.Token.
func (s *scanner) Next() (lexer.Token, error) {
	var t token
	if err := s.scan(&t); err != nil {
		return lexer.Token{}, err
	}
	if t.typ == lexer.EOF {
		return lexer.EOFToken(t.position(s.filename)), nil
	}
	return lexer.Token{Type: t.typ, Value: t.val, Pos: t.position(s.filename)}, nil
}

// scan reads the next token into t, skipping white space and comments.
func (s *scanner) scan(t *token) error {
	src := s.src
	start := s.off
	// Blanks between tokens on a line are skipped here; skipSpace does
	// the rest.
	for start < len(src) && src[start] == ' ' {
		start++
	}
	s.off = start
	if start < len(src) && charClass[src[start]]&classSkip != 0 {
		if err := s.skipSpace(); err != nil {
			return err
		}
		start = s.off
	}
	s.atLineStart = false
	if start >= len(src) {
		s.setTok(t, lexer.EOF, start, "")
		return nil
	}
	c := src[start]
	var err error
	switch cls := charClass[c]; {
	case cls&classLetter != 0:
		i := start + 1
		for i < len(src) && charClass[src[i]]&classIdent != 0 {
			i++
		}
		s.off = i
		s.setTok(t, tokIdent, start, src[start:i])
	case c == '\n':
		s.setTok(t, tokNewline, start, "\n")
		s.newline(start)
	case cls&classDigit != 0 || (c == '.' && start+1 < len(src) && isDigit(src[start+1])):
		err = s.number(start, t)
	case c == '"':
		err = s.quoted(start, '"', tokString, t)
	case c == '\'':
		err = s.quoted(start, '\'', tokQName, t)
	case singlePunct[c] != pNone:
		s.off = start + 1
		s.setTok(t, tokPunct, start, punctText[singlePunct[c]])
		t.p = singlePunct[c]
	default:
		err = s.punct(start, t)
	}
	return err
}

// Character classes, for the scanner's loops.
const (
	classLetter = 1 << iota // starts a name
	classDigit
	classIdent // continues a name
	classSkip  // may start what skipSpace skips
	// A string's or quoted name's fast path stops at these: its quote,
	// a backslash, a newline, NUL, and any byte of a multi-byte
	// character (which must be checked to be UTF-8).
	classStopDouble
	classStopSingle
)

var charClass = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		if isLetter(b) {
			t[c] |= classLetter | classIdent
		}
		if isDigit(b) {
			t[c] |= classDigit | classIdent
		}
	}
	for _, c := range " \t\r\f\v\n#/" {
		t[c] |= classSkip
	}
	for _, c := range "\\\n\x00" {
		t[c] |= classStopDouble | classStopSingle
	}
	t['"'] |= classStopDouble
	t['\''] |= classStopSingle
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] |= classStopDouble | classStopSingle
	}
	return t
}()

// setTok makes t a token starting at off on the current line.
func (s *scanner) setTok(t *token, typ lexer.TokenType, off int, val string) {
	// Field by field: a token literal would be a temporary on the stack
	// of each caller setTok is inlined in.
	t.val, t.off, t.typ, t.p = val, off, typ, pNone
	t.line, t.col = int32(s.line), int32(off-s.lineStart+1)
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
func (s *scanner) number(start int, t *token) error {
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
		return s.errorf(start, "invalid number %q: integers are decimal and have no leading zero", src[start:i])
	}
	if i < len(src) && isIdentChar(src[i]) {
		j := i
		for j < len(src) && isIdentChar(src[j]) {
			j++
		}
		return s.errorf(start, "invalid number %q", src[start:j])
	}
	s.off = i
	s.setTok(t, typ, start, src[start:i])
	return nil
}

// quoted scans a string literal or a quoted attribute name and decodes its
// escapes. The token's value is the decoded text.
func (s *scanner) quoted(start int, quote byte, typ lexer.TokenType, t *token) error {
	src := s.src
	i := start + 1
	// Fast path: no escapes.
	stop := uint8(classStopDouble)
	if quote == '\'' {
		stop = classStopSingle
	}
	for i < len(src) && charClass[src[i]]&stop == 0 {
		i++
	}
	ascii := true
	if i < len(src) && src[i] >= utf8.RuneSelf {
		ascii = false
		for i < len(src) && src[i] != quote && src[i] != '\\' && src[i] != '\n' && src[i] != 0 {
			i++
		}
	}
	if i < len(src) && src[i] == quote {
		if ascii && (typ == tokString || i > start+1) {
			s.off = i + 1
			s.setTok(t, typ, start, src[start+1:i])
			return nil
		}
		return s.quotedToken(start, i+1, typ, src[start+1:i], t)
	}
	return s.escaped(start, i, quote, typ, t)
}

// escaped scans the rest of a string literal or quoted name from i, the
// first byte its fast path could not take.
func (s *scanner) escaped(start, i int, quote byte, typ lexer.TokenType, t *token) error {
	src := s.src
	var b strings.Builder
	b.WriteString(src[start+1 : i])
	for i < len(src) {
		c := src[i]
		switch {
		case c == quote:
			return s.quotedToken(start, i+1, typ, b.String(), t)
		case c == '\n':
			return s.errorf(start, "string not terminated before end of line")
		case c == 0:
			return s.errorf(i, "string contains a NUL byte")
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
				return s.errorf(i, "%v", err)
			}
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return s.errorf(start, "string not terminated")
}

// quotedToken finishes a string or quoted name ending before end.
func (s *scanner) quotedToken(start, end int, typ lexer.TokenType, text string, t *token) error {
	if typ == tokQName && text == "" {
		return s.errorf(start, "empty attribute name")
	}
	if !utf8.ValidString(text) {
		if i := InvalidUTF8(s.src[start:end]); i >= 0 {
			return s.errorf(start+i, "byte 0x%02x is not valid UTF-8", s.src[start+i])
		}
		return s.errorf(start, "its escapes make the string's text invalid UTF-8")
	}
	s.off = end
	s.setTok(t, typ, start, text)
	return nil
}

func isLetter(c byte) bool    { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) }
