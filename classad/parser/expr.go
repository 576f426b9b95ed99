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
	// is allocated once at its final size. hashes holds the FoldHash of
	// each name in attrs.
	attrs  []ast.Attr
	hashes []uint32
	elems  []ast.Expr
	// st is the stream of an expression inside other text (a JSON ad's
	// /Expr(...)/ strings), here rather than on the parser's stack.
	st stream
	// tables are the definitions tables of the records being read, one
	// for each level of nesting; levels is how many are in use. A table
	// is cleared when its record ends, so that a record starts with a
	// clean one without allocating; a parse that stopped part-way
	// leaves levels above 0, and release clears them all.
	tables [][]int32
	levels int
}

var scratches = sync.Pool{New: func() any {
	return &scratch{attrs: make([]ast.Attr, 0, 32), hashes: make([]uint32, 0, 32), elems: make([]ast.Expr, 0, 16)}
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
	for i, t := range sc.tables {
		if len(t) > maxPooled {
			sc.tables[i] = make([]int32, smallDefinitions)
		} else if sc.levels > 0 {
			clear(t)
		}
	}
	*sc = scratch{attrs: sc.attrs[:0], hashes: sc.hashes[:0], elems: sc.elems[:0], tables: sc.tables}
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

// rest is how many bytes of source are left after the current token
// (with the rest of the text an expression is part of, such as a JSON
// ad), or a number that bounds nothing when participle has the source.
func (p *exprParser) rest() int {
	if p.lex.pl != nil {
		return 16 * slabMax
	}
	return len(p.lex.s.src) - p.lex.s.off + p.lex.after
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

func (p *exprParser) fail(t *token, format string, args ...any) {
	panic(bailout{&syntaxError{pos: t.position(p.lex.filename()), msg: fmt.Sprintf(format, args...)}})
}

// enter counts a level of nesting; leave undoes it. A bailout unwinds
// the whole parse, so a level left by one need not be undone.
func (p *exprParser) enter() {
	if p.depth++; p.depth > p.maxDepth {
		p.tooDeep()
	}
}

// tooDeep stops the parse at the depth bound.
func (p *exprParser) tooDeep() {
	t := p.lex.peek()
	panic(bailout{&syntaxError{pos: t.position(p.lex.filename()), msg: fmt.Sprintf("expression nested more than %d levels deep", p.maxDepth), limit: LimitDepth}})
}

func (p *exprParser) leave() { p.depth-- }

func (p *exprParser) isPunct(c punct) bool {
	return p.lex.cur.p == c && p.lex.cur.typ == tokPunct
}

func (p *exprParser) expect(c punct, opening *token) {
	if !p.isPunct(c) {
		p.unexpectedFor(c, opening)
	}
	p.lex.skip()
}

// unexpectedFor stops the parse where c was expected.
func (p *exprParser) unexpectedFor(c punct, opening *token) {
	t := p.lex.peek()
	s := punctText[c]
	if opening != nil {
		p.fail(t, "expected %q to close %q at %d:%d, found %s", s, opening.val, opening.line, opening.col, describe(t))
	}
	p.fail(t, "expected %q, found %s", s, describe(t))
}

// expr parses
//
//	Expr = Binary [ "?" Expr ":" Expr ] .
//
// Each level of nesting recurses through expr, binary, unary and
// primary: their common paths are kept short, and the rest is in
// functions of their own (cond, newBinary, prefixed, suffixes, paren), so
// that the frames a level adds to the stack stay small.
func (p *exprParser) expr() ast.Expr {
	p.enter()
	x := p.binary(1)
	if p.isPunct(pQuestion) {
		x = p.cond(x)
	}
	p.leave()
	return x
}

// cond parses the rest of a conditional whose condition is x.
func (p *exprParser) cond(x ast.Expr) ast.Expr {
	q := p.lex.next()
	then := p.expr()
	p.expect(pColon, &q)
	return &ast.Cond{At: x.Pos(), Cond: x, Then: then, Else: p.expr()}
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
		x = p.newBinary(op, x, p.binary(prec+1))
	}
}

// newBinary returns the node x op y.
//
//go:noinline
func (p *exprParser) newBinary(op ast.Op, x, y ast.Expr) ast.Expr {
	b := p.bins.alloc(p.rest())
	*b = ast.Binary{At: x.Pos(), Op: op, X: x, Y: y}
	return b
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
//
// Postfix (see suffixes) is read here too, so that a level of nesting
// costs one frame for both.
func (p *exprParser) unary() ast.Expr {
	if t := p.lex.peek(); t.typ == tokPunct && punctUnary[t.p] != ast.OpInvalid {
		return p.prefixed()
	}
	x := p.primary()
	if c := &p.lex.cur; c.typ == tokPunct && (c.p == pDot || c.p == pLBrack || c.p == pElvis) {
		x = p.suffixes(x)
	}
	return x
}

// prefixed parses a unary operator and its operand.
func (p *exprParser) prefixed() ast.Expr {
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

// suffixes parses the rest of
//
//	Postfix = Primary { "." Name | "[" Expr "]" | "?:" ElvisOperand } .
//
// after the primary x. The elvis operator binds as tightly as selection,
// and its right operand is a primary (with its selections) or a signed
// number: this is how HTCondor's parser reads it (`a ?: b ? c : d` is
// `(a ?: b) ? c : d`, and `a ?: -b` is a syntax error).
func (p *exprParser) suffixes(x ast.Expr) ast.Expr {
	x = p.selections(x)
	for p.isPunct(pElvis) {
		p.lex.skip()
		x = p.newBinary(ast.OpElvis, x, p.elvisOperand())
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
	switch c := &p.lex.cur; {
	case c.typ == tokIdent:
		return p.ident()
	case c.typ == tokPunct && c.p == pLParen:
		return p.paren()
	}
	return p.operand()
}

// paren parses
//
//	"(" Expr ")" .
func (p *exprParser) paren() ast.Expr {
	t := p.lex.next()
	x := p.expr()
	p.expect(pRParen, &t)
	e := p.parens.alloc(p.rest())
	*e = ast.Paren{At: ast.Pos(t.off), X: x}
	return e
}

// operand parses the primaries other than names, calls and parentheses.
func (p *exprParser) operand() ast.Expr {
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

// takeElems returns the elements gathered from from on, as a slice of
// their own, and forgets them.
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
	defs := p.scratch.definitions(false)
	p.attrDefs(&defs, &open)
	r := &ast.Record{At: ast.Pos(open.off), Attrs: defs.take()}
	p.leave()
	return r
}

// attrDefs parses a record's definitions into defs, after its opening
// bracket, to its closing one.
func (p *exprParser) attrDefs(defs *definitions, open *token) {
	for !p.isPunct(pRBrack) {
		at := ast.Pos(p.lex.cur.off)
		name := p.name("in record")
		p.expect(pAssign, nil)
		defs.define(ast.Attr{At: at, Name: name, Value: p.expr()})
		if !p.isPunct(pSemi) {
			break
		}
		p.lex.skip()
	}
	p.expect(pRBrack, open)
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

// definitions gathers the attribute definitions of one record in its
// scratch's attrs (from from on) and their names' hashes (in hashes, from
// hfrom on), a later definition of a name replacing the earlier one in
// place. The names are kept in an open-addressing hash table, so that
// parsing stays linear; the table is the scratch's for the record's level
// of nesting, so that a record costs no allocation once the pool is warm,
// and no room on the parser's stack. Up to 32 names are hashed cheaply,
// by their length and three of their letters (at most 32 names can
// collide, so the cost stays bounded); past that, or when the caller
// wants them (an ad made of the attributes needs them), by ast.FoldHash
// over the whole name.
type definitions struct {
	sc          *scratch
	from, hfrom int
	level       int
	cheap       bool // hashes are cheapHash's, not ast.FoldHash's
}

// smallDefinitions is the size a definitions table starts with.
const smallDefinitions = 64

// definitions starts a record at the next level of nesting; with fold,
// its names are hashed by ast.FoldHash from the first.
func (sc *scratch) definitions(fold bool) definitions {
	level := sc.levels
	sc.levels++
	if level == len(sc.tables) {
		sc.tables = append(sc.tables, make([]int32, smallDefinitions))
	}
	return definitions{sc: sc, from: len(sc.attrs), hfrom: len(sc.hashes), level: level, cheap: !fold}
}

// cheapHash is the hash of a name in a table of up to 32.
func cheapHash(name string) uint32 {
	n := len(name)
	if n == 0 {
		return 0
	}
	return uint32(n)*0x9e3779b1 ^ uint32(name[0]|0x20)*0x85ebca6b ^ uint32(name[n/2]|0x20)*0xc2b2ae35 ^ uint32(name[n-1]|0x20)*0x27d4eb2f
}

// define adds a to the record's attributes.
func (d *definitions) define(a ast.Attr) {
	sc := d.sc
	table := sc.tables[d.level] // index+1 of an attribute in attrs[from:], 0 for a free slot
	var h uint32
	if d.cheap {
		h = cheapHash(a.Name)
	} else {
		h = ast.FoldHash(a.Name)
	}
	mask := uint32(len(table) - 1)
	p := h & mask
	for ; table[p] != 0; p = (p + 1) & mask {
		if i := int(table[p]) - 1; sc.hashes[d.hfrom+i] == h && ast.EqualFold(sc.attrs[d.from+i].Name, a.Name) {
			sc.attrs[d.from+i].Value = a.Value
			return
		}
	}
	sc.attrs = append(sc.attrs, a)
	sc.hashes = append(sc.hashes, h)
	n := len(sc.attrs) - d.from
	table[p] = int32(n)
	if 2*n > len(table) {
		if d.cheap {
			d.cheap = false
			for i := range n {
				sc.hashes[d.hfrom+i] = ast.FoldHash(sc.attrs[d.from+i].Name)
			}
		}
		sc.tables[d.level] = rehash(sc.hashes[d.hfrom:], 2*len(table))
	}
}

// rehash returns a table of size slots holding the names of hashes.
func rehash(hashes []uint32, size int) []int32 {
	table := make([]int32, size)
	mask := uint32(size - 1)
	for i, h := range hashes {
		p := h & mask
		for table[p] != 0 {
			p = (p + 1) & mask
		}
		table[p] = int32(i + 1)
	}
	return table
}

// attrs returns the record's attributes so far and their names'
// ast.FoldHash (nil if they were hashed cheaply), in the scratch: valid
// until the record ends.
func (d *definitions) attrs() ([]ast.Attr, []uint32) {
	if d.cheap {
		return d.sc.attrs[d.from:], nil
	}
	return d.sc.attrs[d.from:], d.sc.hashes[d.hfrom:]
}

// take ends the record and returns its attributes as a slice of their
// own (nil for none).
func (d *definitions) take() []ast.Attr {
	var attrs []ast.Attr
	if len(d.sc.attrs) > d.from {
		attrs = slices.Clone(d.sc.attrs[d.from:])
	}
	d.end()
	return attrs
}

// end ends the record: its attributes are forgotten and the table of its
// level cleared for the next record there.
func (d *definitions) end() {
	sc := d.sc
	clear(sc.attrs[d.from:])
	sc.attrs = sc.attrs[:d.from]
	sc.hashes = sc.hashes[:d.hfrom]
	clear(sc.tables[d.level])
	sc.levels--
}
