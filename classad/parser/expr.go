package parser

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kite-sched/kite/classad/ast"
)

// MaxDepth bounds the nesting of expressions, as HTCondor's parser does
// (MAX_PARSER_DEPTH), so that hostile input cannot exhaust the stack.
const MaxDepth = 500

// exprParser parses one expression from participle's token stream by
// precedence climbing. It is registered with participle.ParseTypeWith for
// ast.Expr: participle drives the document grammar (grammar.go), this
// function the expression grammar, which has a dozen precedence levels that
// a struct per level would make deep and slow.
type exprParser struct {
	lex      tokenSource
	depth    int
	maxDepth int
}

// tokenSource is where the expression parser reads tokens: participle's
// PeekingLexer inside the document grammar, or a streaming scanner.
type tokenSource interface {
	// Peek returns the next token without consuming it; the pointer is
	// valid until the next call of Next.
	Peek() *lexer.Token
	// Next consumes the next token and returns it.
	Next() lexer.Token
}

// peeking adapts participle's PeekingLexer to tokenSource.
type peeking struct{ *lexer.PeekingLexer }

func (p peeking) Next() lexer.Token { return *p.PeekingLexer.Next() }

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

// parseExpr is the participle.ParseTypeWith entry point.
func parseExpr(lex *lexer.PeekingLexer) (ast.Expr, error) {
	return parseFrom(peeking{lex}, MaxDepth)
}

// parseFrom parses one expression from src, nested at most maxDepth
// deep, converting a bailout into an error.
func parseFrom(src tokenSource, maxDepth int) (x ast.Expr, err error) {
	p := exprParser{lex: src, maxDepth: maxDepth}
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

func (p *exprParser) fail(t lexer.Token, format string, args ...any) {
	panic(bailout{&syntaxError{pos: t.Pos, msg: fmt.Sprintf(format, args...)}})
}

func (p *exprParser) enter() {
	p.depth++
	if p.depth > p.maxDepth {
		t := p.lex.Peek()
		panic(bailout{&syntaxError{pos: t.Pos, msg: fmt.Sprintf("expression nested more than %d levels deep", p.maxDepth), limit: LimitDepth}})
	}
}

func (p *exprParser) leave() { p.depth-- }

func (p *exprParser) isPunct(s string) bool {
	t := p.lex.Peek()
	return t.Type == tokPunct && t.Value == s
}

func (p *exprParser) expect(s string, opening *lexer.Token) {
	t := p.lex.Peek()
	if t.Type != tokPunct || t.Value != s {
		if opening != nil {
			p.fail(*t, "expected %q to close %q at %d:%d, found %s", s, opening.Value, opening.Pos.Line, opening.Pos.Column, describe(t))
		}
		p.fail(*t, "expected %q, found %s", s, describe(t))
	}
	p.lex.Next()
}

// expr parses
//
//	Expr = Binary [ "?" Expr ":" Expr ] .
func (p *exprParser) expr() ast.Expr {
	p.enter()
	defer p.leave()
	x := p.binary(1)
	if !p.isPunct("?") {
		return x
	}
	q := p.lex.Next()
	then := p.expr()
	p.expect(":", &q)
	return &ast.Cond{At: x.Pos(), Cond: x, Then: then, Else: p.expr()}
}

// binary parses operators of precedence minPrec and above, left to right:
//
//	Binary = Unary { BinaryOp Unary } .
func (p *exprParser) binary(minPrec int) ast.Expr {
	x := p.unary()
	for {
		op := binaryOp(p.lex.Peek())
		prec := op.Precedence()
		if prec < minPrec {
			return x
		}
		p.lex.Next()
		y := p.binary(prec + 1)
		x = &ast.Binary{At: x.Pos(), Op: op, X: x, Y: y}
	}
}

var binaryOps = map[string]ast.Op{
	"*": ast.OpMul, "/": ast.OpDiv, "%": ast.OpMod,
	"+": ast.OpAdd, "-": ast.OpSub,
	"<<": ast.OpShl, ">>": ast.OpShr, ">>>": ast.OpUshr,
	"<": ast.OpLT, "<=": ast.OpLE, ">=": ast.OpGE, ">": ast.OpGT,
	"==": ast.OpEq, "!=": ast.OpNe, "=?=": ast.OpIs, "=!=": ast.OpIsnt,
	"&": ast.OpBitAnd, "^": ast.OpBitXor, "|": ast.OpBitOr,
	"&&": ast.OpAnd, "||": ast.OpOr,
}

func binaryOp(t *lexer.Token) ast.Op {
	switch t.Type {
	case tokPunct:
		return binaryOps[t.Value]
	case tokIdent:
		if strings.EqualFold(t.Value, "is") {
			return ast.OpIs
		}
		if strings.EqualFold(t.Value, "isnt") {
			return ast.OpIsnt
		}
	}
	return ast.OpInvalid
}

var unaryOps = map[string]ast.Op{"-": ast.OpNeg, "+": ast.OpPlus, "!": ast.OpNot, "~": ast.OpBitNot}

// unary parses
//
//	Unary = ( "-" | "+" | "!" | "~" ) Unary | Postfix .
func (p *exprParser) unary() ast.Expr {
	if t := p.lex.Peek(); t.Type != tokPunct || unaryOps[t.Value] == ast.OpInvalid {
		return p.postfix()
	}
	p.enter()
	defer p.leave()
	t := p.lex.Next()
	op := unaryOps[t.Value]
	if n := p.lex.Peek(); op == ast.OpNeg && n.Type == tokInt && n.Value == "9223372036854775808" {
		// The magnitude of the most negative integer is only valid negated.
		p.lex.Next()
		return &ast.Literal{At: ast.Pos(t.Pos.Offset), Kind: ast.IntLit, Int: math.MinInt64}
	}
	return &ast.Unary{At: ast.Pos(t.Pos.Offset), Op: op, X: p.unary()}
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
	for p.isPunct("?:") {
		p.lex.Next()
		y := p.elvisOperand()
		x = &ast.Binary{At: x.Pos(), Op: ast.OpElvis, X: x, Y: y}
	}
	return x
}

// elvisOperand parses
//
//	ElvisOperand = ( "-" | "+" ) ( Int | Real ) | Primary { "." Name | "[" Expr "]" } .
func (p *exprParser) elvisOperand() ast.Expr {
	t := p.lex.Peek()
	if t.Type != tokPunct || (t.Value != "-" && t.Value != "+") {
		return p.selections(p.primary())
	}
	sign := p.lex.Next()
	if n := p.lex.Peek(); n.Type != tokInt && n.Type != tokReal {
		p.fail(*n, "expected a number after %q on the right of ?:, found %s", sign.Value, describe(n))
	}
	return &ast.Unary{At: ast.Pos(sign.Pos.Offset), Op: unaryOps[sign.Value], X: p.primary()}
}

// selections parses the selections and subscripts after a primary.
func (p *exprParser) selections(x ast.Expr) ast.Expr {
	for {
		switch {
		case p.isPunct("."):
			p.lex.Next()
			name := p.name("after '.'")
			x = &ast.Select{At: x.Pos(), X: x, Name: name}
		case p.isPunct("["):
			open := p.lex.Next()
			i := p.expr()
			p.expect("]", &open)
			x = &ast.Index{At: x.Pos(), X: x, Index: i}
		default:
			return x
		}
	}
}

// name parses an attribute name: an identifier that is not a reserved word,
// or a quoted name.
func (p *exprParser) name(context string) string {
	t := p.lex.Peek()
	if t.Type == tokQName || (t.Type == tokIdent && !ast.IsReserved(t.Value)) {
		return p.lex.Next().Value
	}
	p.fail(*t, "expected an attribute name %s, found %s", context, describe(t))
	return ""
}

// primary parses
//
//	Primary = Literal | Name | "." Name | Ident "(" [ Expr { "," Expr } ] ")"
//	        | "(" Expr ")" | List | Record .
func (p *exprParser) primary() ast.Expr {
	if p.lex.Peek().Type == tokIdent {
		return p.ident()
	}
	t := p.lex.Next()
	at := ast.Pos(t.Pos.Offset)
	switch t.Type {
	case tokInt:
		v, err := strconv.ParseInt(t.Value, 10, 64)
		if err != nil {
			p.fail(t, "integer %s is out of range", t.Value)
		}
		return &ast.Literal{At: at, Kind: ast.IntLit, Int: v}
	case tokReal:
		v, err := strconv.ParseFloat(t.Value, 64)
		if err != nil && !math.IsInf(v, 0) {
			p.fail(t, "invalid real %s", t.Value)
		}
		return &ast.Literal{At: at, Kind: ast.RealLit, Real: v}
	case tokString:
		return &ast.Literal{At: at, Kind: ast.StringLit, Str: t.Value}
	case tokQName:
		return &ast.AttrRef{At: at, Name: t.Value}
	case tokPunct:
		switch t.Value {
		case "(":
			x := p.expr()
			p.expect(")", &t)
			return &ast.Paren{At: at, X: x}
		case "{":
			return p.list(t)
		case "[":
			return p.record(t)
		case ".":
			return &ast.AttrRef{At: at, Name: p.name("after '.'"), Absolute: true}
		}
	}
	p.fail(t, "expected an expression, found %s", describe(&t))
	return nil
}

func (p *exprParser) ident() ast.Expr {
	t := p.lex.Next()
	at := ast.Pos(t.Pos.Offset)
	if lit := keywordLiteral(t.Value); lit != nil {
		lit.At = at
		return lit
	}
	if ast.IsReserved(t.Value) {
		p.fail(t, "expected an expression, found operator %q", t.Value)
	}
	if !p.isPunct("(") {
		return &ast.AttrRef{At: at, Name: t.Value}
	}
	open := p.lex.Next()
	call := &ast.Call{At: at, Name: t.Value}
	if p.isPunct(")") {
		p.lex.Next()
		return call
	}
	for {
		call.Args = append(call.Args, p.expr())
		if !p.isPunct(",") {
			p.expect(")", &open)
			return call
		}
		p.lex.Next()
	}
}

func keywordLiteral(s string) *ast.Literal {
	switch len(s) {
	case 4:
		if strings.EqualFold(s, "true") {
			return &ast.Literal{Kind: ast.BoolLit, Bool: true}
		}
	case 5:
		if strings.EqualFold(s, "false") {
			return &ast.Literal{Kind: ast.BoolLit}
		}
		if strings.EqualFold(s, "error") {
			return &ast.Literal{Kind: ast.ErrorLit}
		}
	case 9:
		if strings.EqualFold(s, "undefined") {
			return &ast.Literal{Kind: ast.UndefinedLit}
		}
	}
	return nil
}

// list parses
//
//	List = "{" [ Expr { "," Expr } ] "}" .
func (p *exprParser) list(open lexer.Token) ast.Expr {
	p.enter()
	defer p.leave()
	l := &ast.List{At: ast.Pos(open.Pos.Offset)}
	if p.isPunct("}") {
		p.lex.Next()
		return l
	}
	for {
		l.Elems = append(l.Elems, p.expr())
		if !p.isPunct(",") {
			p.expect("}", &open)
			return l
		}
		p.lex.Next()
	}
}

// record parses
//
//	Record = "[" [ AttrDef { ";" AttrDef } [ ";" ] ] "]" .
//	AttrDef = Name "=" Expr .
func (p *exprParser) record(open lexer.Token) ast.Expr {
	p.enter()
	defer p.leave()
	r := &ast.Record{At: ast.Pos(open.Pos.Offset)}
	var defs definitions
	for !p.isPunct("]") {
		nt := p.lex.Peek()
		name := p.name("in record")
		p.expect("=", nil)
		defs.define(r, ast.Attr{At: ast.Pos(nt.Pos.Offset), Name: name, Value: p.expr()})
		if !p.isPunct(";") {
			break
		}
		p.lex.Next()
	}
	p.expect("]", &open)
	return r
}

func describe(t *lexer.Token) string {
	switch t.Type {
	case lexer.EOF:
		return "end of input"
	case tokNewline:
		return "end of line"
	case tokString:
		return "string " + strconv.Quote(t.Value)
	case tokQName:
		return "name '" + t.Value + "'"
	}
	return strconv.Quote(t.Value)
}

// definitions adds attribute definitions to a record, a later definition of
// a name replacing the earlier one in place. Large records get a hash index
// so that parsing stays linear.
type definitions struct {
	index map[uint32]int32
}

const linearDefinitions = 16

func (d *definitions) define(r *ast.Record, a ast.Attr) {
	if i := d.find(r, a.Name); i >= 0 {
		r.Attrs[i].Value = a.Value
		return
	}
	r.Attrs = append(r.Attrs, a)
	n := len(r.Attrs)
	switch {
	case n == linearDefinitions+1:
		d.index = make(map[uint32]int32, 2*n)
		for i := range r.Attrs {
			d.add(r.Attrs[i].Name, i)
		}
	case n > linearDefinitions+1:
		d.add(a.Name, n-1)
	}
}

func (d *definitions) add(name string, i int) {
	h := ast.FoldHash(name)
	if _, taken := d.index[h]; !taken {
		d.index[h] = int32(i)
	}
}

func (d *definitions) find(r *ast.Record, name string) int {
	if d.index == nil {
		return r.Lookup(name)
	}
	i, ok := d.index[ast.FoldHash(name)]
	if !ok {
		return -1
	}
	if ast.EqualFold(r.Attrs[i].Name, name) {
		return int(i)
	}
	return r.Lookup(name) // hash collision: rare
}
