package ast

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
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

// Attrs is a sequence of attributes, as an evaluation ad holds them.
type Attrs interface {
	Len() int
	Name(i int) string
	Expr(i int) Expr
}

// AppendJSONAttrs appends the attributes as a JSON object, exactly as
// AppendJSON appends a record of them.
func AppendJSONAttrs(buf []byte, attrs Attrs, indent bool) []byte {
	j := jsonWriter{buf: buf, indent: indent}
	j.buf = append(j.buf, '{')
	j.level++
	n := attrs.Len()
	for i := range n {
		j.member(i, attrs.Name(i), attrs.Expr(i))
	}
	j.endObject(n)
	return j.buf
}

type jsonWriter struct {
	buf    []byte
	indent bool
	level  int
	tmp    []byte // an expression's text while it is escaped
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
		if lit, ok := negativeNumber(e); ok {
			j.literal(&lit)
			return
		}
		j.buf = append(j.buf, `"\/Expr(`...)
		start := len(j.buf)
		j.buf = AppendExpr(j.buf, e)
		j.escapeFrom(start)
		j.buf = append(j.buf, `)\/"`...)
	}
}

// escapeFrom escapes for a JSON string the text appended from start on.
func (j *jsonWriter) escapeFrom(start int) {
	i := start
	for i < len(j.buf) && !jsonEscape[j.buf[i]] {
		i++
	}
	if i == len(j.buf) {
		return
	}
	// The text moves aside, to be escaped back into place; tmp is not
	// changed while the string made of it is read.
	j.tmp = append(j.tmp[:0], j.buf[i:]...)
	j.buf = appendJSONEscaped(j.buf[:i], unsafe.String(unsafe.SliceData(j.tmp), len(j.tmp)))
}

// negativeNumber returns -n for the expression -n (n a number literal), so
// that negative numbers are JSON numbers.
func negativeNumber(e Expr) (Literal, bool) {
	u, ok := e.(*Unary)
	if !ok || u.Op != OpNeg {
		return Literal{}, false
	}
	l, ok := u.X.(*Literal)
	switch {
	case !ok:
		return Literal{}, false
	case l.Kind == IntLit:
		return Literal{Kind: IntLit, Int: -l.Int}, true
	case l.Kind == RealLit:
		return Literal{Kind: RealLit, Real: -l.Real}, true
	}
	return Literal{}, false
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
		start := len(j.buf)
		j.buf = strconv.AppendFloat(j.buf, f, 'G', 16, 64)
		if back, _ := strconv.ParseFloat(string(j.buf[start:]), 64); back != f {
			j.buf = strconv.AppendFloat(j.buf[:start], f, 'G', 17, 64)
		}
		if bytes.IndexAny(j.buf[start:], ".Ee") < 0 {
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
		j.member(i, a.Name, a.Value)
	}
	j.endObject(len(r.Attrs))
}

// member writes the i-th member of an object.
func (j *jsonWriter) member(i int, name string, value Expr) {
	if i > 0 {
		j.buf = append(j.buf, ',')
	}
	j.newline()
	j.buf = append(j.buf, '"')
	j.buf = appendJSONEscaped(j.buf, name)
	j.buf = append(j.buf, `": `...)
	j.expr(value)
}

// endObject closes an object of n members.
func (j *jsonWriter) endObject(n int) {
	j.level--
	if n > 0 {
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

// jsonEscape marks the bytes appendJSONEscaped does not copy as they are:
// quotes, backslashes, control characters and the bytes of multi-byte
// characters (which must be checked to be UTF-8).
var jsonEscape = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// appendJSONEscaped escapes s for a JSON string: quotes, backslashes and
// control characters; invalid UTF-8 becomes U+FFFD so the output is valid.
func appendJSONEscaped(buf []byte, s string) []byte {
	for i := 0; i < len(s); {
		// Bytes that need nothing, in one copy.
		j := i
		for j < len(s) && !jsonEscape[s[j]] {
			j++
		}
		buf = append(buf, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
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
