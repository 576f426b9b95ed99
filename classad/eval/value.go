package eval

import (
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/kite-sched/kite/classad/ast"
)

// Kind is the type of a Value.
type Kind uint8

// The ClassAd value types.
const (
	UndefinedKind Kind = iota
	ErrorKind
	BoolKind
	IntKind
	RealKind
	StringKind
	AbsTimeKind
	RelTimeKind
	ListKind
	RecordKind
)

var kindNames = [...]string{"undefined", "error", "boolean", "integer", "real", "string", "absolute time", "relative time", "list", "classad"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Value is the result of evaluating an expression. The zero Value is
// UNDEFINED. Values are small (24 bytes) and passed by value; evaluating
// scalar expressions allocates nothing.
type Value struct {
	kind Kind
	tz   int32  // AbsTime: offset east of UTC, seconds
	n    uint64 // Bool, Int, Real bits, AbsTime seconds, RelTime bits; String length
	// p is a String's bytes, a List's *List or a Record's *Scope. One
	// pointer for all three keeps Value at 24 bytes: evaluation copies
	// values at every node, and this halves what it copies.
	p unsafe.Pointer
}

// str returns a String value's text ("" for any other kind).
func (v Value) str() string {
	if v.kind != StringKind {
		return ""
	}
	return unsafe.String((*byte)(v.p), int(v.n))
}

// list returns a List value's list (nil for any other kind).
func (v Value) list() *List {
	if v.kind != ListKind {
		return nil
	}
	return (*List)(v.p)
}

// scope returns a Record value's scope (nil for any other kind).
func (v Value) scope() *Scope {
	if v.kind != RecordKind {
		return nil
	}
	return (*Scope)(v.p)
}

func listOf(l *List) Value    { return Value{kind: ListKind, p: unsafe.Pointer(l)} }
func recordOf(s *Scope) Value { return Value{kind: RecordKind, p: unsafe.Pointer(s)} }

// Constructors.

// Undefined returns UNDEFINED.
func Undefined() Value { return Value{} }

// Error returns ERROR.
func Error() Value { return Value{kind: ErrorKind} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	v := Value{kind: BoolKind}
	if b {
		v.n = 1
	}
	return v
}

// Int returns an integer value.
func Int(i int64) Value { return Value{kind: IntKind, n: uint64(i)} }

// Real returns a real value.
func Real(f float64) Value { return Value{kind: RealKind, n: math.Float64bits(f)} }

// String returns a string value.
func String(s string) Value {
	return Value{kind: StringKind, n: uint64(len(s)), p: unsafe.Pointer(unsafe.StringData(s))}
}

// AbsTime returns an absolute time: seconds since the epoch and the time
// zone offset (seconds east of UTC) it is shown in.
func AbsTime(secs int64, tzOffset int32) Value {
	return Value{kind: AbsTimeKind, n: uint64(secs), tz: tzOffset}
}

// RelTime returns a relative time (a duration) in seconds.
func RelTime(secs float64) Value { return Value{kind: RelTimeKind, n: math.Float64bits(secs)} }

// ListOf returns a list holding the given values.
func ListOf(vals ...Value) Value { return listOf(&List{vals: vals}) }

// RecordValue returns a record value for a top-level ad.
func RecordValue(ad *Ad) Value { return recordOf(ad.Scope()) }

// Accessors.

// Kind returns the value's type.
func (v Value) Kind() Kind { return v.kind }

// IsUndefined reports whether v is UNDEFINED.
func (v Value) IsUndefined() bool { return v.kind == UndefinedKind }

// IsError reports whether v is ERROR.
func (v Value) IsError() bool { return v.kind == ErrorKind }

// IsNumber reports whether v is an integer or a real.
func (v Value) IsNumber() bool { return v.kind == IntKind || v.kind == RealKind }

// BoolValue returns v's boolean and whether v is a boolean.
func (v Value) BoolValue() (bool, bool) { return v.n != 0, v.kind == BoolKind }

// IntValue returns v's integer and whether v is an integer.
func (v Value) IntValue() (int64, bool) { return int64(v.n), v.kind == IntKind }

// RealValue returns v's real and whether v is a real.
func (v Value) RealValue() (float64, bool) { return math.Float64frombits(v.n), v.kind == RealKind }

// StringValue returns v's string and whether v is a string.
func (v Value) StringValue() (string, bool) { return v.str(), v.kind == StringKind }

// AbsTimeValue returns v's seconds since the epoch, time zone offset, and
// whether v is an absolute time.
func (v Value) AbsTimeValue() (int64, int32, bool) { return int64(v.n), v.tz, v.kind == AbsTimeKind }

// RelTimeValue returns v's duration in seconds and whether v is a relative time.
func (v Value) RelTimeValue() (float64, bool) {
	return math.Float64frombits(v.n), v.kind == RelTimeKind
}

// ListValue returns v's list and whether v is a list.
func (v Value) ListValue() (*List, bool) {
	l := v.list()
	return l, l != nil
}

// RecordValue returns v's record scope and whether v is a record.
func (v Value) RecordValue() (*Scope, bool) {
	s := v.scope()
	return s, s != nil
}

// NumberValue returns v as a float64 if it is an integer, a real or a
// boolean (1 or 0).
func (v Value) NumberValue() (float64, bool) {
	switch v.kind {
	case IntKind:
		return float64(int64(v.n)), true
	case RealKind:
		return math.Float64frombits(v.n), true
	case BoolKind:
		return float64(v.n), true
	}
	return 0, false
}

// IsTrue reports whether v is boolean true or a non-zero number, as a
// Requirements or policy expression is judged.
func (v Value) IsTrue() bool {
	switch v.kind {
	case BoolKind, IntKind:
		return v.n != 0
	case RealKind:
		return math.Float64frombits(v.n) != 0
	}
	return false
}

// i returns the integer payload.
func (v Value) i() int64 { return int64(v.n) }

// r returns the real payload.
func (v Value) r() float64 { return math.Float64frombits(v.n) }

// String returns v printed canonically, as HTCondor prints values.
func (v Value) String() string { return string(v.Append(nil)) }

// Append appends v printed canonically to buf.
func (v Value) Append(buf []byte) []byte { return v.appendStyle(buf, ast.Canonical) }

func (v Value) appendStyle(buf []byte, style ast.Style) []byte {
	switch v.kind {
	case UndefinedKind:
		return append(buf, "undefined"...)
	case ErrorKind:
		return append(buf, "error"...)
	case BoolKind:
		return strconv.AppendBool(buf, v.n != 0)
	case IntKind:
		return strconv.AppendInt(buf, v.i(), 10)
	case RealKind:
		return ast.AppendReal(buf, v.r())
	case StringKind:
		return ast.AppendQuoted(buf, v.str())
	case AbsTimeKind:
		buf = append(buf, `absTime("`...)
		buf = AppendAbsTime(buf, v.i(), v.tz)
		return append(buf, `")`...)
	case RelTimeKind:
		buf = append(buf, `relTime("`...)
		buf = append(buf, FormatRelTime(v.r())...)
		return append(buf, `")`...)
	case ListKind:
		l := v.list()
		return l.appendTo(buf, style)
	case RecordKind:
		s := v.scope()
		return appendExpr(buf, s.ad.Record(), style)
	}
	return buf
}

func appendExpr(buf []byte, e ast.Expr, style ast.Style) []byte {
	if style == ast.Pretty {
		return ast.AppendPretty(buf, e)
	}
	return ast.AppendExpr(buf, e)
}

// AppendAbsTime appends an absolute time as HTCondor prints it,
// "2004-01-01T00:00:00-06:00", in the time's own zone offset.
func AppendAbsTime(buf []byte, secs int64, tz int32) []byte {
	t := time.Unix(secs, 0).In(time.FixedZone("", int(tz)))
	buf = strconv.AppendInt(buf, int64(t.Year()), 10) // strftime's %Y does not pad
	buf = t.AppendFormat(buf, "-01-02T15:04:05")
	off := tz
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	if tz == 0 {
		sign = '-' // HTCondor prints UTC as -00:00
	}
	buf = append(buf, sign)
	buf = appendTwo(buf, int(off/3600))
	buf = append(buf, ':')
	return appendTwo(buf, int(off%3600/60))
}

func appendTwo(buf []byte, n int) []byte {
	if n < 10 {
		buf = append(buf, '0')
	}
	return strconv.AppendInt(buf, int64(n), 10)
}

// Identical reports whether a =?= b is true: same type and same value,
// strings compared case-sensitively, UNDEFINED identical to UNDEFINED and
// ERROR to ERROR (see identical for lists, records and times).
func Identical(a, b Value) bool {
	r := identical(a, b)
	return r.kind == BoolKind && r.n != 0
}

// sameScalar compares two values of the same scalar kind without type
// promotion.
func sameScalar(a, b Value) bool {
	switch a.kind {
	case UndefinedKind, ErrorKind:
		return true
	case BoolKind, IntKind:
		return a.n == b.n
	case RealKind, RelTimeKind:
		return a.r() == b.r()
	case StringKind:
		return a.str() == b.str()
	case AbsTimeKind:
		return a.n == b.n && a.tz == b.tz
	}
	return false
}
