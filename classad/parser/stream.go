package parser

import (
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"
)

// stream is where the expression parser reads tokens, one token ahead:
// straight from the scanner for single expressions and new-syntax ads, or
// from participle's PeekingLexer inside the old syntax's document grammar.
// Reading from the scanner skips participle's token buffer (64 bytes a
// token, in a slice grown by appending), which measured at 35 KB and over
// half the time of parsing a 30-attribute machine ad.
type stream struct {
	s  scanner
	pl *lexer.PeekingLexer // when not nil, tokens come from participle
	// cur is the next token, not yet consumed.
	cur token
	// tokens counts the tokens read; past maxTokens (when not 0) the
	// parse stops. maxDepth bounds the nesting.
	tokens, maxTokens int
	maxDepth          int
	// after is how many bytes follow the source in the text it is part
	// of (a JSON ad's other attributes), for sizing the parse's slabs.
	after int
}

// init sets st up to read src; the first advance reads a token. (Not
// inlined: its stream literal would take room on the caller's stack.)
//
//go:noinline
func (st *stream) init(filename, src string) {
	*st = stream{s: scanner{src: src, filename: filename, line: 1, atLineStart: true}, maxDepth: MaxDepth}
}

// advance reads the next token into cur.
func (st *stream) advance() {
	if st.pl != nil {
		st.cur = fromParticiple(st.pl.Peek())
		return
	}
	if err := st.s.scan(&st.cur); err != nil {
		st.lexFail(err)
	}
	if st.tokens++; st.maxTokens > 0 && st.tokens > st.maxTokens {
		panic(bailout{&syntaxError{pos: st.cur.position(st.s.filename), msg: fmt.Sprintf("expression has more than %d tokens", st.maxTokens), limit: LimitTokens}})
	}
}

// fromParticiple converts a token of participle's buffer.
func fromParticiple(t *lexer.Token) token {
	tok := token{typ: t.Type, val: t.Value, off: t.Pos.Offset, line: int32(t.Pos.Line), col: int32(t.Pos.Column)}
	if t.Type == tokPunct {
		tok.p = punctOf(t.Value)
	}
	return tok
}

// peek returns the next token without consuming it; the pointer is valid
// until the next call of next.
func (st *stream) peek() *token { return &st.cur }

// next consumes the next token and returns it.
func (st *stream) next() token {
	t := st.cur
	st.skip()
	return t
}

// skip consumes the next token.
func (st *stream) skip() {
	if st.pl != nil || st.maxTokens > 0 || st.cur.typ == lexer.EOF {
		st.skipSlow()
		return
	}
	if err := st.s.scan(&st.cur); err != nil {
		st.lexFail(err)
	}
}

// skipSlow is skip reading from participle, counting tokens, or at the
// end.
func (st *stream) skipSlow() {
	if st.cur.typ != lexer.EOF {
		if st.pl != nil {
			st.pl.Next()
		}
		st.advance()
	}
}

// lexFail stops the parse at a lexical error.
func (st *stream) lexFail(err error) {
	le := err.(*LexError)
	panic(bailout{&syntaxError{pos: le.Pos, msg: le.Msg}})
}

// filename names the source in positions.
func (st *stream) filename() string { return st.s.filename }
