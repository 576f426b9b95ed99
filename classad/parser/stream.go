package parser

import (
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"
)

// stream is a tokenSource reading straight from the scanner with one token
// of lookahead. Single expressions and new-syntax ads are parsed from it:
// participle's PeekingLexer first buffers every token (64 bytes each, in a
// slice grown by appending), which measured at 35 KB and over half the time
// of parsing a 30-attribute machine ad.
type stream struct {
	s   scanner
	cur lexer.Token
	// tokens counts the tokens read; past maxTokens (when not 0) the
	// parse stops. maxDepth bounds the nesting.
	tokens, maxTokens int
	maxDepth          int
}

// newStream returns a stream over src; the first advance reads a token.
func newStream(filename, src string) *stream {
	return &stream{s: scanner{src: src, filename: filename, line: 1, atLineStart: true}, maxDepth: MaxDepth}
}

func (st *stream) advance() {
	t, err := st.s.Next()
	if err != nil {
		le := err.(*LexError)
		panic(bailout{&syntaxError{pos: le.Pos, msg: le.Msg}})
	}
	st.cur = t
	if st.tokens++; st.maxTokens > 0 && st.tokens > st.maxTokens {
		panic(bailout{&syntaxError{pos: t.Pos, msg: fmt.Sprintf("expression has more than %d tokens", st.maxTokens), limit: LimitTokens}})
	}
}

func (st *stream) Peek() *lexer.Token { return &st.cur }

func (st *stream) Next() lexer.Token {
	t := st.cur
	if t.Type != lexer.EOF {
		st.advance()
	}
	return t
}
