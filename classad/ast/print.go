package ast

import (
	"math"
	"strconv"
	"strings"
)

// Style selects how expressions are printed.
type Style uint8

const (
	// Canonical is HTCondor's canonical unparse: `a + b`, `{ 1,2 }`, `[ a = 1; b = 2 ]`.
	Canonical Style = iota
	// Pretty is the layout of HTCondor's PrettyPrint, which the unparse()
	// function uses: records and lists on indented lines.
	Pretty
)

// String returns e printed canonically.
func String(e Expr) string {
	return string(AppendExpr(nil, e))
}

// AppendExpr appends the canonical text of e to buf.
func AppendExpr(buf []byte, e Expr) []byte {
	p := printer{buf: buf}
	p.expr(e)
	return p.buf
}

// AppendPretty appends e in HTCondor's PrettyPrint layout to buf.
func AppendPretty(buf []byte, e Expr) []byte {
	p := printer{buf: buf, style: Pretty}
	p.expr(e)
	return p.buf
}

type printer struct {
	buf    []byte
	style  Style
	indent int
	old    bool // strings in the old syntax: only " is escaped
	long   bool // HTCondor's long form: see AppendLongAttr
}

const (
	prettyRecordIndent = 4
	prettyListIndent   = 3
)

func (p *printer) expr(e Expr) {
	switch x := e.(type) {
	case *Literal:
		if p.old && x.Kind == StringLit {
			p.buf = appendOldQuoted(p.buf, x.Str, '"')
		} else if p.long && x.Kind == RealLit {
			p.buf = AppendLongReal(p.buf, x.Real)
		} else {
			p.buf = AppendLiteral(p.buf, x)
		}
	case *AttrRef:
		if x.Absolute {
			p.buf = append(p.buf, '.')
		}
		p.name(x.Name)
	case *Select:
		p.expr(x.X)
		if l, ok := x.X.(*Literal); ok && l.Kind == IntLit {
			p.buf = append(p.buf, ' ') // 1.a would read as a number
		}
		p.buf = append(p.buf, '.')
		p.name(x.Name)
	case *Index:
		p.expr(x.X)
		p.buf = append(p.buf, '[')
		p.expr(x.Index)
		p.buf = append(p.buf, ']')
	case *Unary:
		p.buf = append(p.buf, x.Op.String()...)
		p.expr(x.X)
	case *Binary:
		p.expr(x.X)
		p.buf = append(p.buf, ' ')
		p.buf = append(p.buf, p.opText(x.Op)...)
		p.buf = append(p.buf, ' ')
		p.expr(x.Y)
	case *Cond:
		p.expr(x.Cond)
		p.buf = append(p.buf, " ? "...)
		p.expr(x.Then)
		p.buf = append(p.buf, " : "...)
		p.expr(x.Else)
	case *Paren:
		p.buf = append(p.buf, '(')
		p.expr(x.X)
		p.buf = append(p.buf, ')')
	case *Call:
		p.buf = append(p.buf, x.Name...)
		p.buf = append(p.buf, '(')
		for i, a := range x.Args {
			if i > 0 {
				p.buf = append(p.buf, ',')
			}
			p.expr(a)
		}
		p.buf = append(p.buf, ')')
	case *List:
		p.list(x)
	case *Record:
		p.record(x)
	case nil:
		p.buf = append(p.buf, "<nil>"...)
	}
}

func (p *printer) list(x *List) {
	if p.style != Pretty {
		p.buf = append(p.buf, "{ "...)
		for i, e := range x.Elems {
			if i > 0 {
				p.buf = append(p.buf, ',')
			}
			p.expr(e)
		}
		p.buf = append(p.buf, " }"...)
		return
	}
	p.indent += prettyListIndent
	p.newline()
	p.buf = append(p.buf, '{')
	p.indent += prettyListIndent
	for i, e := range x.Elems {
		p.newline()
		p.expr(e)
		if i+1 < len(x.Elems) {
			p.buf = append(p.buf, ',')
		}
	}
	p.indent -= prettyListIndent
	p.newline()
	p.buf = append(p.buf, '}')
	p.indent -= prettyListIndent
}

func (p *printer) record(x *Record) {
	if p.style != Pretty {
		p.buf = append(p.buf, "[ "...)
		for i, a := range x.Attrs {
			if i > 0 {
				p.buf = append(p.buf, "; "...)
			}
			p.attr(a)
		}
		p.buf = append(p.buf, " ]"...)
		return
	}
	p.indent += prettyRecordIndent
	p.newline()
	p.buf = append(p.buf, '[')
	p.indent += prettyRecordIndent
	for i, a := range x.Attrs {
		p.newline()
		p.attr(a)
		if i+1 < len(x.Attrs) {
			p.buf = append(p.buf, "; "...)
		}
	}
	p.indent -= prettyRecordIndent
	p.newline()
	p.buf = append(p.buf, ']')
	p.indent -= prettyRecordIndent
}

func (p *printer) attr(a Attr) {
	p.name(a.Name)
	p.buf = append(p.buf, " = "...)
	p.expr(a.Value)
}

// name appends an attribute name, quoted if need be in the printer's syntax.
func (p *printer) name(n string) {
	switch {
	case IsPlainName(n):
		p.buf = append(p.buf, n...)
	case p.old:
		p.buf = appendOldQuoted(p.buf, n, '\'')
	default:
		p.buf = appendQuotedName(p.buf, n)
	}
}

func (p *printer) newline() {
	p.buf = append(p.buf, '\n')
	for range p.indent {
		p.buf = append(p.buf, ' ')
	}
}

// AppendOldAttr appends one attribute in the old syntax, `Name = Expr`,
// as HTCondor's long output prints it. In the old syntax a backslash in a
// string escapes only a double quote, so strings are written with just
// their quotes escaped.
func AppendOldAttr(buf []byte, name string, e Expr) []byte {
	if IsPlainName(name) {
		buf = append(buf, name...)
	} else {
		buf = appendOldQuoted(buf, name, '\'')
	}
	buf = append(buf, " = "...)
	p := printer{buf: buf, old: true}
	p.expr(e)
	return p.buf
}

func appendOldQuoted(buf []byte, s string, quote byte) []byte {
	buf = append(buf, quote)
	for {
		i := strings.IndexByte(s, quote)
		if i < 0 {
			break
		}
		buf = append(buf, s[:i]...)
		buf = append(buf, '\\', quote)
		s = s[i+1:]
	}
	buf = append(buf, s...)
	return append(buf, quote)
}

// AppendLiteral appends the canonical text of a literal.
func AppendLiteral(buf []byte, x *Literal) []byte {
	switch x.Kind {
	case UndefinedLit:
		return append(buf, "undefined"...)
	case ErrorLit:
		return append(buf, "error"...)
	case BoolLit:
		return strconv.AppendBool(buf, x.Bool)
	case IntLit:
		return strconv.AppendInt(buf, x.Int, 10)
	case RealLit:
		return AppendReal(buf, x.Real)
	case StringLit:
		return AppendQuoted(buf, x.Str)
	}
	return buf
}

// AppendReal appends a real as HTCondor prints it: `%.15E`, except that zero
// prints as `0.0` (or `-0.0`) and the non-finite values as `real("NaN")`,
// `real("INF")` and `real("-INF")`, which parse back to the same value.
func AppendReal(buf []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, `real("NaN")`...)
	case math.IsInf(f, 1):
		return append(buf, `real("INF")`...)
	case math.IsInf(f, -1):
		return append(buf, `real("-INF")`...)
	case f == 0:
		if math.Signbit(f) {
			return append(buf, "-0.0"...)
		}
		return append(buf, "0.0"...)
	}
	return strconv.AppendFloat(buf, f, 'E', 15, 64)
}

// AppendQuoted appends s as a double-quoted ClassAd string literal with
// backslash escapes for quotes, backslashes and control characters.
func AppendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	buf = appendEscaped(buf, s, '"')
	return append(buf, '"')
}

func appendEscaped(buf []byte, s string, quote byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			buf = append(buf, `\\`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\t':
			buf = append(buf, `\t`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case quote:
			buf = append(buf, '\\', quote)
		default:
			if c < 0x20 || c == 0x7f {
				buf = append(buf, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
			} else {
				buf = append(buf, c)
			}
		}
	}
	return buf
}

// AppendName appends an attribute name, in single quotes when it is not a
// plain identifier or is a reserved word.
func AppendName(buf []byte, name string) []byte {
	if IsPlainName(name) {
		return append(buf, name...)
	}
	return appendQuotedName(buf, name)
}

// appendQuotedName appends name in single quotes, escaped.
func appendQuotedName(buf []byte, name string) []byte {
	buf = append(buf, '\'')
	buf = appendEscaped(buf, name, '\'')
	return append(buf, '\'')
}

// Character classes of names: letters and '_' start one, digits may
// follow.
const (
	nameStart = 1 << iota
	nameRest
)

var nameClass = func() (t [256]uint8) {
	for c := range 256 {
		if c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') {
			t[c] = nameStart | nameRest
		} else if c >= '0' && c <= '9' {
			t[c] = nameRest
		}
	}
	return t
}()

// IsPlainName reports whether name can be written without quotes: an
// identifier ([A-Za-z_][A-Za-z0-9_]*) that is not a reserved word.
func IsPlainName(name string) bool {
	if name == "" || nameClass[name[0]]&nameStart == 0 {
		return false
	}
	for i := 1; i < len(name); i++ {
		if nameClass[name[i]]&nameRest == 0 {
			return false
		}
	}
	return !IsReserved(name)
}

// IsReserved reports whether name is one of the case-insensitive reserved
// words of the language: true, false, undefined, error, is, isnt.
func IsReserved(name string) bool {
	switch len(name) {
	case 2:
		return EqualFold(name, "is")
	case 4:
		return EqualFold(name, "isnt") || EqualFold(name, "true")
	case 5:
		return EqualFold(name, "false") || EqualFold(name, "error")
	case 9:
		return EqualFold(name, "undefined")
	}
	return false
}
