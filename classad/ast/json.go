package ast

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HTCondor's JSON form of ads (condor_q -json): a record is an object, a
// list an array, literals are JSON values (UNDEFINED is null), and any other
// expression is a string "\/Expr(<canonical text>)\/". ERROR, and reals that
// JSON cannot hold (NaN, infinities), are written as expressions too.

// AppendJSON appends e in JSON form. With indent, objects and arrays are
// laid out one member per line, indented by two spaces per level, as
// HTCondor prints them; otherwise on one line.
func AppendJSON(buf []byte, e Expr, indent bool) []byte {
	j := jsonWriter{buf: buf, indent: indent}
	j.expr(e)
	return j.buf
}

type jsonWriter struct {
	buf    []byte
	indent bool
	level  int
}

func (j *jsonWriter) expr(e Expr) {
	switch x := e.(type) {
	case *Record:
		j.record(x)
	case *List:
		j.list(x)
	case *Literal:
		j.literal(x)
	default:
		if lit := negativeNumber(e); lit != nil {
			j.literal(lit)
			return
		}
		j.quoteExpr(AppendExpr(nil, e))
	}
}

// negativeNumber returns -n for the expression -n (n a number literal), so
// that negative numbers are JSON numbers.
func negativeNumber(e Expr) *Literal {
	u, ok := e.(*Unary)
	if !ok || u.Op != OpNeg {
		return nil
	}
	l, ok := u.X.(*Literal)
	switch {
	case !ok:
		return nil
	case l.Kind == IntLit:
		return &Literal{Kind: IntLit, Int: -l.Int}
	case l.Kind == RealLit:
		return &Literal{Kind: RealLit, Real: -l.Real}
	}
	return nil
}

func (j *jsonWriter) literal(x *Literal) {
	switch x.Kind {
	case UndefinedLit:
		j.buf = append(j.buf, "null"...)
	case ErrorLit:
		j.quoteExpr([]byte("error"))
	case BoolLit:
		j.buf = strconv.AppendBool(j.buf, x.Bool)
	case IntLit:
		j.buf = strconv.AppendInt(j.buf, x.Int, 10)
	case RealLit:
		j.real(x.Real)
	case StringLit:
		j.buf = append(j.buf, '"')
		j.buf = appendJSONEscaped(j.buf, x.Str)
		j.buf = append(j.buf, '"')
	}
}

// real writes a real as %.16G (%.17G when 16 digits would not read back
// as the same number), with ".0" added when that looks like an integer;
// zero is 0.0 or -0.0.
func (j *jsonWriter) real(f float64) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		j.quoteExpr(AppendReal(nil, f))
	case f == 0:
		if math.Signbit(f) {
			j.buf = append(j.buf, "-0.0"...)
		} else {
			j.buf = append(j.buf, "0.0"...)
		}
	default:
		s := strconv.FormatFloat(f, 'G', 16, 64)
		if back, _ := strconv.ParseFloat(s, 64); back != f {
			s = strconv.FormatFloat(f, 'G', 17, 64)
		}
		j.buf = append(j.buf, s...)
		if !strings.ContainsAny(s, ".Ee") {
			j.buf = append(j.buf, ".0"...)
		}
	}
}

func (j *jsonWriter) quoteExpr(text []byte) {
	j.buf = append(j.buf, `"\/Expr(`...)
	j.buf = appendJSONEscaped(j.buf, string(text))
	j.buf = append(j.buf, `)\/"`...)
}

func (j *jsonWriter) newline() {
	if !j.indent {
		return
	}
	j.buf = append(j.buf, '\n')
	for range j.level * 2 {
		j.buf = append(j.buf, ' ')
	}
}

func (j *jsonWriter) record(r *Record) {
	j.buf = append(j.buf, '{')
	j.level++
	for i, a := range r.Attrs {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.newline()
		j.buf = append(j.buf, '"')
		j.buf = appendJSONEscaped(j.buf, a.Name)
		j.buf = append(j.buf, `": `...)
		j.expr(a.Value)
	}
	j.level--
	if len(r.Attrs) > 0 {
		j.newline()
	}
	j.buf = append(j.buf, '}')
}

func (j *jsonWriter) list(l *List) {
	j.buf = append(j.buf, '[')
	j.level++
	for i, e := range l.Elems {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.newline()
		j.expr(e)
	}
	j.level--
	if len(l.Elems) > 0 {
		j.newline()
	}
	j.buf = append(j.buf, ']')
}

// appendJSONEscaped escapes s for a JSON string: quotes, backslashes and
// control characters; invalid UTF-8 becomes U+FFFD so the output is valid.
func appendJSONEscaped(buf []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, `\ufffd`...)
			} else {
				buf = append(buf, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		default:
			if c < 0x20 {
				buf = append(buf, `\u00`...)
				buf = append(buf, "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
			} else {
				buf = append(buf, c)
			}
		}
		i++
	}
	return buf
}
