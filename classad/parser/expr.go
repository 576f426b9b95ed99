package parser

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kite-sched/kite/classad/ast"
)

// MaxDepth bounds the nesting of expressions, as HTCondor's parser does
// (MAX_PARSER_DEPTH), so that hostile input cannot exhaust the stack.
const MaxDepth = 500

// exprParser parses one expression from a stream by precedence climbing.
// It is registered with participle.ParseTypeWith for ast.Expr: participle
// drives the document grammar of the old syntax, this the expression
// grammar, which has a dozen precedence levels that a struct per level
// would make deep and slow.
type exprParser struct {
	lex      *stream
	depth    int
	maxDepth int
	*scratch
}

// scratch is a parse's working memory, pooled.
type scratch struct {
	// The nodes most expressions are made of come from slabs, a few
	// allocations for a whole ad rather than one a node.
	lits   slab[ast.Literal]
	refs   slab[ast.AttrRef]
	bins   slab[ast.Binary]
	sels   slab[ast.Select]
	parens slab[ast.Paren]
	// attrs and elems gather a record's attributes and a list's or
	// call's elements (nested ones above the outer one's), so that each
	// is allocated once at its final size.
	attrs []ast.Attr
	elems []ast.Expr
}

var scratches = sync.Pool{New: func() any {
	return &scratch{attrs: make([]ast.Attr, 0, 32), elems: make([]ast.Expr, 0, 16)}
}}

// release returns sc to the pool, holding no part of the parsed tree.
// A scratch whose buffers a huge ad grew is not kept.
func (sc *scratch) release() {
	if cap(sc.attrs) > maxPooled || cap(sc.elems) > maxPooled {
		return
	}
	// take clears what it gives away; a parse that failed may have
	// left some behind.
	clear(sc.attrs)
	clear(sc.elems)
	*sc = scratch{attrs: sc.attrs[:0], elems: sc.elems[:0]}
	scratches.Put(sc)
}

// maxPooled bounds the buffers of a pooled scratch.
const maxPooled = 1024

// slab hands out values of T from chunks that grow from slabFirst to
// slabMax, and never past one node for 16 bytes of the source left (the
// benchmark machine ad has one for 25): a chunk too small costs an
// allocation more, one too large keeps unused nodes alive with the tree.
type slab[T any] struct {
	free []T
	next int
}

const (
	slabFirst = 4
	slabMax   = 32
)

// alloc returns a new zero T; rest is how many bytes of source are left.
func (s *slab[T]) alloc(rest int) *T {
	if len(s.free) == 0 {
		s.next = min(max(2*s.next, slabFirst), slabMax)
		s.free = make([]T, min(s.next, rest/16+1))
	}
	x := &s.free[0]
	s.free = s.free[1:]
	return x
}

// rest is how many bytes of source are left after the current token,
// or a number that bounds nothing when participle has the source.
func (p *exprParser) rest() int {
	if p.lex.pl != nil {
		return 16 * slabMax
	}
	return len(p.lex.s.src) - p.lex.s.off
}

func (p *exprParser) lit(at ast.Pos, kind ast.LitKind) *ast.Literal {
	l := p.lits.alloc(p.rest())
	l.At, l.Kind = at, kind
	return l
}

// bailout carries a syntax error up the recursion; parseExpr recovers it.
type bailout struct{ err *syntaxError }

// syntaxError is an error at a token, converted to *Error by the API.
type syntaxError struct {
	pos   lexer.Position
	msg   string
	limit string // the Limits bound that was passed, if that is the error
}

func (e *syntaxError) Error() string { return e.msg }

// Message and Position make syntaxError a participle.Error.
func (e *syntaxError) Message() string          { return e.msg }
func (e *syntaxError) Position() lexer.Position { return e.pos }

// parseFrom parses one expression from src, nested at most maxDepth
// deep, converting a bailout into an error.
func parseFrom(src *stream, maxDepth int, sc *scratch) (x ast.Expr, err error) {
	if sc == nil {
		sc = scratches.Get().(*scratch)
		defer sc.release()
	}
	p := exprParser{lex: src, maxDepth: maxDepth, scratch: sc}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			x, err = nil, b.err
		}
	}()
	return p.expr(), nil
}

func (p *exprParser) fail(t *token, format string, args ...any) {
	panic(bailout{&syntaxError{pos: t.position(p.lex.filename()), msg: fmt.Sprintf(format, args...)}})
}

// enter counts a level of nesting; leave undoes it. A bailout unwinds
// the whole parse, so a level left by one need not be undone.
func (p *exprParser) enter() {
	p.depth++
	if p.depth > p.maxDepth {
		t := p.lex.peek()
		panic(bailout{&syntaxError{pos: t.position(p.lex.filename()), msg: fmt.Sprintf("expression nested more than %d levels deep", p.maxDepth), limit: LimitDepth}})
	}
}

func (p *exprParser) leave() { p.depth-- }

func (p *exprParser) isPunct(c punct) bool {
	return p.lex.cur.p == c && p.lex.cur.typ == tokPunct
}

func (p *exprParser) expect(c punct, opening *token) {
	t := p.lex.peek()
	if t.typ != tokPunct || t.p != c {
		s := punctText[c]
		if opening != nil {
			p.fail(t, "expected %q to close %q at %d:%d, found %s", s, opening.val, opening.line, opening.col, describe(t))
		}
		p.fail(t, "expected %q, found %s", s, describe(t))
	}
	p.lex.skip()
}

// expr parses
//
//	Expr = Binary [ "?" Expr ":" Expr ] .
func (p *exprParser) expr() ast.Expr {
	p.enter()
	x := p.binary(1)
	if !p.isPunct(pQuestion) {
		p.leave()
		return x
	}
	q := p.lex.next()
	then := p.expr()
	p.expect(pColon, &q)
	c := &ast.Cond{At: x.Pos(), Cond: x, Then: then, Else: p.expr()}
	p.leave()
	return c
}

// binary parses operators of precedence minPrec and above, left to right:
//
//	Binary = Unary { BinaryOp Unary } .
func (p *exprParser) binary(minPrec int) ast.Expr {
	x := p.unary()
	for {
		op := binaryOp(p.lex.peek())
		prec := op.Precedence()
		if prec < minPrec {
			return x
		}
		p.lex.skip()
		y := p.binary(prec + 1)
		b := p.bins.alloc(p.rest())
		*b = ast.Binary{At: x.Pos(), Op: op, X: x, Y: y}
		x = b
	}
}

func binaryOp(t *token) ast.Op {
	switch t.typ {
	case tokPunct:
		return punctBinary[t.p]
	case tokIdent:
		switch len(t.val) {
		case 2:
			if ast.EqualFold(t.val, "is") {
				return ast.OpIs
			}
		case 4:
			if ast.EqualFold(t.val, "isnt") {
				return ast.OpIsnt
			}
		}
	}
	return ast.OpInvalid
}

// unary parses
//
//	Unary = ( "-" | "+" | "!" | "~" ) Unary | Postfix .
func (p *exprParser) unary() ast.Expr {
	if t := p.lex.peek(); t.typ != tokPunct || punctUnary[t.p] == ast.OpInvalid {
		return p.postfix()
	}
	p.enter()
	t := p.lex.next()
	op := punctUnary[t.p]
	at := ast.Pos(t.off)
	if n := p.lex.peek(); op == ast.OpNeg && n.typ == tokInt && n.val == "9223372036854775808" {
		// The magnitude of the most negative integer is only valid negated.
		p.lex.skip()
		l := p.lit(at, ast.IntLit)
		l.Int = math.MinInt64
		p.leave()
		return l
	}
	u := &ast.Unary{At: at, Op: op, X: p.unary()}
	p.leave()
	return u
}

// postfix parses
//
//	Postfix = Primary { "." Name | "[" Expr "]" | "?:" ElvisOperand } .
//
// The elvis operator binds as tightly as selection, and its right operand
// is a primary (with its selections) or a signed number: this is how
// HTCondor's parser reads it (`a ?: b ? c : d` is `(a ?: b) ? c : d`, and
// `a ?: -b` is a syntax error).
func (p *exprParser) postfix() ast.Expr {
	x := p.selections(p.primary())
	for p.isPunct(pElvis) {
		p.lex.skip()
		y := p.elvisOperand()
		b := p.bins.alloc(p.rest())
		*b = ast.Binary{At: x.Pos(), Op: ast.OpElvis, X: x, Y: y}
		x = b
	}
	return x
}

// elvisOperand parses
//
//	ElvisOperand = ( "-" | "+" ) ( Int | Real ) | Primary { "." Name | "[" Expr "]" } .
func (p *exprParser) elvisOperand() ast.Expr {
	t := p.lex.peek()
	if t.typ != tokPunct || (t.p != pMinus && t.p != pPlus) {
		return p.selections(p.primary())
	}
	sign := p.lex.next()
	if n := p.lex.peek(); n.typ != tokInt && n.typ != tokReal {
		p.fail(n, "expected a number after %q on the right of ?:, found %s", sign.val, describe(n))
	}
	return &ast.Unary{At: ast.Pos(sign.off), Op: punctUnary[sign.p], X: p.primary()}
}

// selections parses the selections and subscripts after a primary.
func (p *exprParser) selections(x ast.Expr) ast.Expr {
	for {
		switch {
		case p.isPunct(pDot):
			p.lex.skip()
			name := p.name("after '.'")
			s := p.sels.alloc(p.rest())
			*s = ast.Select{At: x.Pos(), X: x, Name: name}
			x = s
		case p.isPunct(pLBrack):
			open := p.lex.next()
			i := p.expr()
			p.expect(pRBrack, &open)
			x = &ast.Index{At: x.Pos(), X: x, Index: i}
		default:
			return x
		}
	}
}

// name parses an attribute name: an identifier that is not a reserved word,
// or a quoted name.
func (p *exprParser) name(context string) string {
	t := p.lex.peek()
	if t.typ == tokQName || (t.typ == tokIdent && !ast.IsReserved(t.val)) {
		v := t.val
		p.lex.skip()
		return v
	}
	p.fail(t, "expected an attribute name %s, found %s", context, describe(t))
	return ""
}

// primary parses
//
//	Primary = Literal | Name | "." Name | Ident "(" [ Expr { "," Expr } ] ")"
//	        | "(" Expr ")" | List | Record .
func (p *exprParser) primary() ast.Expr {
	if p.lex.cur.typ == tokIdent {
		return p.ident()
	}
	t := p.lex.next()
	at := ast.Pos(t.off)
	switch t.typ {
	case tokInt:
		v, ok := parseInt(t.val)
		if !ok {
			p.fail(&t, "integer %s is out of range", t.val)
		}
		l := p.lit(at, ast.IntLit)
		l.Int = v
		return l
	case tokReal:
		v, err := strconv.ParseFloat(t.val, 64)
		if err != nil && !math.IsInf(v, 0) {
			p.fail(&t, "invalid real %s", t.val)
		}
		l := p.lit(at, ast.RealLit)
		l.Real = v
		return l
	case tokString:
		l := p.lit(at, ast.StringLit)
		l.Str = t.val
		return l
	case tokQName:
		return p.ref(at, t.val)
	case tokPunct:
		switch t.p {
		case pLParen:
			x := p.expr()
			p.expect(pRParen, &t)
			e := p.parens.alloc(p.rest())
			*e = ast.Paren{At: at, X: x}
			return e
		case pLBrace:
			return p.list(t)
		case pLBrack:
			return p.record(t)
		case pDot:
			r := p.ref(at, p.name("after '.'"))
			r.Absolute = true
			return r
		}
	}
	p.fail(&t, "expected an expression, found %s", describe(&t))
	return nil
}

// parseInt converts the digits of an integer token, which fit in an
// int64 when there are at most 18 of them.
func parseInt(digits string) (int64, bool) {
	if len(digits) > 18 {
		v, err := strconv.ParseInt(digits, 10, 64)
		return v, err == nil
	}
	var v int64
	for i := 0; i < len(digits); i++ {
		v = 10*v + int64(digits[i]-'0')
	}
	return v, true
}

func (p *exprParser) ref(at ast.Pos, name string) *ast.AttrRef {
	r := p.refs.alloc(p.rest())
	r.At, r.Name = at, name
	return r
}

func (p *exprParser) ident() ast.Expr {
	t := p.lex.next()
	at := ast.Pos(t.off)
	if l := p.keywordLiteral(at, t.val); l != nil {
		return l
	}
	if ast.IsReserved(t.val) {
		p.fail(&t, "expected an expression, found operator %q", t.val)
	}
	if !p.isPunct(pLParen) {
		return p.ref(at, t.val)
	}
	open := p.lex.next()
	call := &ast.Call{At: at, Name: t.val}
	if p.isPunct(pRParen) {
		p.lex.skip()
		return call
	}
	call.Args = p.exprs(pRParen, &open)
	return call
}

// exprs parses expressions separated by commas up to the closing
// punctuation, after at least one.
func (p *exprParser) exprs(closing punct, open *token) []ast.Expr {
	from := len(p.elems)
	for {
		x := p.expr()
		p.elems = append(p.elems, x)
		if !p.isPunct(pComma) {
			p.expect(closing, open)
			break
		}
		p.lex.skip()
	}
	return p.takeElems(from)
}

// take returns the attributes gathered from from on, as a slice of their
// own, and forgets them.
func (sc *scratch) take(from int) []ast.Attr {
	attrs := slices.Clone(sc.attrs[from:])
	clear(sc.attrs[from:])
	sc.attrs = sc.attrs[:from]
	return attrs
}

// takeElems is take for elements.
func (sc *scratch) takeElems(from int) []ast.Expr {
	xs := slices.Clone(sc.elems[from:])
	clear(sc.elems[from:])
	sc.elems = sc.elems[:from]
	return xs
}

func (p *exprParser) keywordLiteral(at ast.Pos, s string) *ast.Literal {
	switch len(s) {
	case 4:
		if ast.EqualFold(s, "true") {
			l := p.lit(at, ast.BoolLit)
			l.Bool = true
			return l
		}
	case 5:
		if ast.EqualFold(s, "false") {
			return p.lit(at, ast.BoolLit)
		}
		if ast.EqualFold(s, "error") {
			return p.lit(at, ast.ErrorLit)
		}
	case 9:
		if ast.EqualFold(s, "undefined") {
			return p.lit(at, ast.UndefinedLit)
		}
	}
	return nil
}

// list parses
//
//	List = "{" [ Expr { "," Expr } ] "}" .
func (p *exprParser) list(open token) ast.Expr {
	p.enter()
	l := &ast.List{At: ast.Pos(open.off)}
	if p.isPunct(pRBrace) {
		p.lex.skip()
	} else {
		l.Elems = p.exprs(pRBrace, &open)
	}
	p.leave()
	return l
}

// record parses
//
//	Record = "[" [ AttrDef { ";" AttrDef } [ ";" ] ] "]" .
//	AttrDef = Name "=" Expr .
func (p *exprParser) record(open token) ast.Expr {
	p.enter()
	r := &ast.Record{At: ast.Pos(open.off)}
	var small [smallDefinitions]int32
	defs := definitions{table: small[:]}
	from := len(p.attrs)
	for !p.isPunct(pRBrack) {
		at := ast.Pos(p.lex.cur.off)
		name := p.name("in record")
		p.expect(pAssign, nil)
		defs.define(&p.attrs, from, ast.Attr{At: at, Name: name, Value: p.expr()})
		if !p.isPunct(pSemi) {
			break
		}
		p.lex.skip()
	}
	p.expect(pRBrack, &open)
	if len(p.attrs) > from {
		r.Attrs = p.take(from)
	}
	p.leave()
	return r
}

func describe(t *token) string {
	switch t.typ {
	case lexer.EOF:
		return "end of input"
	case tokNewline:
		return "end of line"
	case tokString:
		return "string " + strconv.Quote(t.val)
	case tokQName:
		return "name '" + t.val + "'"
	}
	return strconv.Quote(t.val)
}

// definitions adds attribute definitions to a record, a later definition of
// a name replacing the earlier one in place. The names are kept in an
// open-addressing hash table so that parsing stays linear. A record of up
// to 32 attributes uses a table on its parser's stack and a cheap hash of
// a name's length and three of its letters (at most 32 names can collide,
// so the cost stays bounded); past that, the table is allocated and the
// hash is ast.FoldHash over the whole name.
type definitions struct {
	table []int32 // index+1 of an attribute, 0 for a free slot
	n     int
	full  bool // the table is hashed by ast.FoldHash
}

// smallDefinitions is the size of the table a record starts with, on the
// caller's stack.
const smallDefinitions = 64

// hash returns name's hash for the table as it is.
func (d *definitions) hash(name string) uint32 {
	if d.full {
		return ast.FoldHash(name)
	}
	n := len(name)
	if n == 0 {
		return 0
	}
	return uint32(n)*0x9e3779b1 ^ uint32(name[0]|0x20)*0x85ebca6b ^ uint32(name[n/2]|0x20)*0xc2b2ae35 ^ uint32(name[n-1]|0x20)*0x27d4eb2f
}

// define adds a to the attributes (*attrs)[from:].
func (d *definitions) define(attrs *[]ast.Attr, from int, a ast.Attr) {
	if d.table == nil {
		d.table = make([]int32, smallDefinitions)
	}
	h := d.hash(a.Name)
	mask := uint32(len(d.table) - 1)
	defined := (*attrs)[from:]
	p := h & mask
	for ; d.table[p] != 0; p = (p + 1) & mask {
		if i := d.table[p] - 1; ast.EqualFold(defined[i].Name, a.Name) {
			defined[i].Value = a.Value
			return
		}
	}
	d.table[p] = int32(len(defined) + 1)
	*attrs = append(*attrs, a)
	if d.n++; 2*d.n > len(d.table) {
		d.grow((*attrs)[from:])
	}
}

// grow doubles the table, hashing by ast.FoldHash from now on, and puts
// every attribute back in.
func (d *definitions) grow(defined []ast.Attr) {
	d.table = make([]int32, 2*len(d.table))
	d.full = true
	mask := uint32(len(d.table) - 1)
	for i := range defined {
		p := d.hash(defined[i].Name) & mask
		for d.table[p] != 0 {
			p = (p + 1) & mask
		}
		d.table[p] = int32(i + 1)
	}
}
