package parser

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kite-sched/kite/classad/ast"
)

// The document grammar of the old syntax. participle drives it: it lexes
// the source with the ClassAd lexer and hands the tokens to oldLines,
// which is participle.Parseable and reads
//
//	Doc = { Newline } [ Line { Newline { Newline } Line } { Newline } ] .
//	Line = ( Ident | QName ) "=" Expr .
//
// That grammar written as participle struct tags (`Newline* ( @@ (
// Newline+ @@ )* Newline* )?` over a struct per line) cost 40 allocations
// and 35 µs a line in participle's reflective matcher, ten times the
// expressions themselves.

// oldDoc is an ad in the old syntax: one `Name = Expr` per line, blank and
// `#` comment lines ignored.
type oldDoc struct {
	Lines oldLines `parser:"@@"`
}

// oldLines holds the attributes of an old-syntax ad, in order,
// redefinitions included.
type oldLines struct{ attrs []ast.Attr }

var (
	oldParserDef = participle.MustBuild[oldDoc](
		participle.Lexer(definition{old: true}),
	)
)

// Parse reads the lines of an old-syntax ad from participle's tokens.
func (l *oldLines) Parse(lex *lexer.PeekingLexer) error {
	attrs, err := parseOldLines(lex)
	if err != nil {
		return err
	}
	l.attrs = attrs
	return nil
}

func parseOldLines(lex *lexer.PeekingLexer) (lines []ast.Attr, err error) {
	st := stream{pl: lex, maxDepth: MaxDepth}
	st.cur = fromParticiple(lex.Peek())
	sc := scratches.Get().(*scratch)
	defer sc.release()
	p := exprParser{lex: &st, maxDepth: MaxDepth, scratch: sc}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			lines, err = nil, b.err
		}
	}()
	p.newlines()
	for st.cur.typ != lexer.EOF {
		name := st.cur
		if name.typ != tokIdent && name.typ != tokQName {
			p.unexpected()
		}
		st.skip()
		if !p.isPunct(pAssign) {
			p.unexpected()
		}
		st.skip()
		sc.attrs = append(sc.attrs, ast.Attr{At: ast.Pos(name.off), Name: name.val, Value: p.expr()})
		if st.cur.typ != tokNewline && st.cur.typ != lexer.EOF {
			p.unexpected()
		}
		p.newlines()
	}
	lines = slices.Clone(sc.attrs)
	clear(sc.attrs)
	sc.attrs = sc.attrs[:0]
	return lines, nil
}

// newlines skips newline tokens.
func (p *exprParser) newlines() {
	for p.lex.cur.typ == tokNewline {
		p.lex.skip()
	}
}

// unexpected stops the parse at the next token, which cannot be where it is.
func (p *exprParser) unexpected() {
	t := p.lex.peek()
	panic(bailout{&syntaxError{pos: t.position(p.lex.filename()), msg: "unexpected " + describe(t) + " after the end of the expression"}})
}

// Option adjusts a parse.
type Option func(*options)

type options struct {
	filename string
	limits   Limits
}

// Filename names the source in error messages.
func Filename(name string) Option {
	return func(o *options) { o.filename = name }
}

// Limits bounds what one ParseExpr reads, so that a request carrying a
// hostile expression is refused before a large tree is built. Zero
// fields leave that bound at its default.
type Limits struct {
	// Bytes is the longest source accepted (0: any).
	Bytes int
	// Tokens is the most tokens (names, literals, operators, brackets)
	// accepted (0: any). Each node of the tree is made from at least one
	// token, so this bounds the tree's size.
	Tokens int
	// Depth is the deepest nesting accepted; 0, or more than MaxDepth,
	// is MaxDepth.
	Depth int
}

// The limits, as Error.Limit names them.
const (
	LimitBytes  = "bytes"
	LimitTokens = "tokens"
	LimitDepth  = "depth"
)

// WithLimits bounds a parse.
func WithLimits(l Limits) Option {
	return func(o *options) { o.limits = l }
}

// depth returns the nesting bound.
func (l Limits) depth() int {
	if l.Depth <= 0 || l.Depth > MaxDepth {
		return MaxDepth
	}
	return l.Depth
}

func apply(opts []Option) options {
	if len(opts) == 0 {
		return options{} // no Option: none of the allocation passing &o to one costs
	}
	o := new(options)
	for _, f := range opts {
		f(o)
	}
	return *o
}

// ParseExpr parses a single expression in the new syntax.
func ParseExpr(src string, opts ...Option) (ast.Expr, error) {
	o := apply(opts)
	if o.limits.Bytes > 0 && len(src) > o.limits.Bytes {
		e := errorAt(src[:o.limits.Bytes], o.filename, o.limits.Bytes, fmt.Sprintf("expression is longer than %d bytes", o.limits.Bytes))
		e.Limit = LimitBytes
		return nil, e
	}
	var st stream
	st.init(o.filename, src)
	st.maxTokens, st.maxDepth = o.limits.Tokens, o.limits.depth()
	x, err := parseWhole(&st, nil)
	if err != nil {
		return nil, newError(src, o.filename, err)
	}
	return x, nil
}

// parseWhole parses one expression that must be all of the input,
// converting a bailout into an error. It works in sc, or in a scratch of
// its own if sc is nil.
func parseWhole(st *stream, sc *scratch) (x ast.Expr, err error) {
	if sc == nil {
		sc = scratches.Get().(*scratch)
		defer sc.release()
	}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			x, err = nil, b.err
		}
	}()
	st.advance()
	p := exprParser{lex: st, maxDepth: st.maxDepth, scratch: sc}
	x = p.expr()
	if st.cur.typ != lexer.EOF {
		err = st.trailing()
	}
	return x, err
}

// trailing is the error of input left after an expression.
//
//go:noinline
func (st *stream) trailing() error {
	return &syntaxError{pos: st.cur.position(st.filename()), msg: "unexpected " + describe(&st.cur) + " after the end of the expression"}
}

// ParseRecord parses an ad in the new syntax, `[ a = 1; b = a + 1 ]`.
func ParseRecord(src string, opts ...Option) (*ast.Record, error) {
	x, err := ParseExpr(src, opts...)
	if err != nil {
		return nil, err
	}
	r, ok := x.(*ast.Record)
	if !ok {
		o := apply(opts)
		return nil, errorAt(src, o.filename, int(x.Pos()), "expected an ad in brackets [ ... ], found an expression")
	}
	return r, nil
}

// ParseRecordAttrs parses an ad in the new syntax as ParseRecord does,
// and hands build its attributes (each name once, in order) and the
// ast.FoldHash of each name (or nil hashes), so that an ad can
// be made of them without a record in between. The slices are the
// parser's: build must not keep them.
func ParseRecordAttrs(src string, build func(attrs []ast.Attr, hashes []uint32), opts ...Option) error {
	o := apply(opts)
	if o.limits.Bytes <= 0 || len(src) <= o.limits.Bytes {
		var st stream
		st.init(o.filename, src)
		st.maxTokens, st.maxDepth = o.limits.Tokens, o.limits.depth()
		if wholeRecord(&st, build) {
			return nil
		}
	}
	// Not one record, or over a limit: ParseRecord says why.
	r, err := ParseRecord(src, opts...)
	if err != nil {
		return err
	}
	build(r.Attrs, nil)
	return nil
}

// wholeRecord parses a record that is all of st's input, handing its
// definitions to build, and reports whether it was one.
func wholeRecord(st *stream, build func([]ast.Attr, []uint32)) (ok bool) {
	sc := scratches.Get().(*scratch)
	defer sc.release()
	defer func() {
		if r := recover(); r != nil {
			if _, bail := r.(bailout); !bail {
				panic(r)
			}
			ok = false
		}
	}()
	st.advance()
	p := exprParser{lex: st, maxDepth: st.maxDepth, scratch: sc}
	if !p.isPunct(pLBrack) {
		return false
	}
	open := st.next()
	// Two levels, as in ParseRecord: the expression's and the record's.
	p.enter()
	p.enter()
	defs := sc.definitions(true)
	p.attrDefs(&defs, &open)
	if st.cur.typ != lexer.EOF {
		return false
	}
	build(defs.attrs())
	defs.end()
	return true
}

// ParseOld parses an ad in the old syntax, as HTCondor's `-long` output
// prints it: one `Name = Expr` per line. In this syntax a backslash in a
// string escapes only a double quote.
func ParseOld(src string, opts ...Option) (*ast.Record, error) {
	o := apply(opts)
	doc, err := oldParserDef.ParseString(o.filename, src)
	if err != nil {
		return nil, newError(src, o.filename, err)
	}
	for _, a := range doc.Lines.attrs {
		if ast.IsReserved(a.Name) {
			return nil, errorAt(src, o.filename, int(a.At), fmt.Sprintf("%q is a reserved word and cannot name an attribute", a.Name))
		}
	}
	sc := scratches.Get().(*scratch)
	defer sc.release()
	defs := sc.definitions(false)
	for _, a := range doc.Lines.attrs {
		defs.define(a)
	}
	return &ast.Record{At: 0, Attrs: defs.take()}, nil
}

// ParseAd parses an ad in either syntax: new if its first non-blank
// character (after comments) is '[', old otherwise.
func ParseAd(src string, opts ...Option) (*ast.Record, error) {
	if IsNewSyntax(src) {
		return ParseRecord(src, opts...)
	}
	return ParseOld(src, opts...)
}

// IsNewSyntax reports whether ParseAd reads src in the new syntax: its
// first non-blank character (after comments) is '['.
func IsNewSyntax(src string) bool { return startsWithBracket(src) }

func startsWithBracket(src string) bool {
	s := scanner{src: src, line: 1}
	var t token
	err := s.scan(&t)
	return err == nil && t.typ == tokPunct && t.p == pLBrack
}

// Error is a syntax error: where it is and what is wrong.
type Error struct {
	Filename string
	Line     int // 1-based
	Column   int // 1-based, in bytes
	Offset   int // byte offset in the source
	Msg      string
	// SourceLine is the text of the line the error is on.
	SourceLine string
	// Limit names the bound of Limits the source went over
	// (LimitBytes, LimitTokens or LimitDepth); "" for a syntax error.
	Limit string
}

// Error returns "file:line:col: message" followed by the source line and a
// caret under the column.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Filename != "" {
		b.WriteString(e.Filename)
		b.WriteByte(':')
	}
	fmt.Fprintf(&b, "%d:%d: %s", e.Line, e.Column, e.Msg)
	if e.SourceLine != "" {
		line, col := clip(e.SourceLine, e.Column)
		b.WriteString("\n    ")
		b.WriteString(line)
		b.WriteString("\n    ")
		for i := 1; i < col && i <= len(line); i++ {
			if line[i-1] == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('^')
	}
	return b.String()
}

// clipWidth is how much of a long source line an error shows on each
// side of the column.
const clipWidth = 60

// clip cuts a long line to the part around col (1-based), so that an
// error about a megabyte-long expression does not repeat it, and returns
// the column within the part.
func clip(line string, col int) (string, int) {
	if len(line) <= 2*clipWidth+3 {
		return line, col
	}
	start := max(0, min(col-1-clipWidth, len(line)-2*clipWidth))
	part := line[start : start+2*clipWidth]
	col -= start
	if start > 0 {
		part, col = "..."+part, col+3
	}
	if start+2*clipWidth < len(line) {
		part += "..."
	}
	return strings.ToValidUTF8(part, "?"), col
}

func newError(src, filename string, err error) error {
	var le *LexError
	if errors.As(err, &le) {
		return errorAt(src, filename, le.Pos.Offset, le.Msg)
	}
	var se *syntaxError
	if errors.As(err, &se) {
		e := errorAt(src, filename, se.pos.Offset, se.msg)
		e.Limit = se.limit
		return e
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		return errorAt(src, filename, pe.Position().Offset, participleMessage(pe))
	}
	return errorAt(src, filename, 0, err.Error())
}

// participleMessage rewords participle's messages about the document
// grammar in the terms of the language.
func participleMessage(pe participle.Error) string {
	var ut *participle.UnexpectedTokenError
	if errors.As(pe, &ut) {
		t := fromParticiple(&ut.Unexpected)
		return "unexpected " + describe(&t) + " after the end of the expression"
	}
	return pe.Message()
}

func errorAt(src, filename string, off int, msg string) *Error {
	off = max(0, min(off, len(src)))
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	lineEnd := strings.IndexByte(src[off:], '\n')
	if lineEnd < 0 {
		lineEnd = len(src)
	} else {
		lineEnd += off
	}
	return &Error{
		Filename:   filename,
		Line:       strings.Count(src[:off], "\n") + 1,
		Column:     off - lineStart + 1,
		Offset:     off,
		Msg:        msg,
		SourceLine: strings.TrimRight(src[lineStart:lineEnd], "\r"),
	}
}
