package eval

import (
	"math"

	"github.com/kite-sched/kite/classad/ast"
)

// Strict operators (all but && || ?: =?= =!=) yield ERROR if an operand is
// ERROR, else UNDEFINED if an operand is UNDEFINED, before looking at types.

func unary(op ast.Op, v Value) Value {
	switch v.kind {
	case ErrorKind:
		return Error()
	case UndefinedKind:
		return Undefined()
	}
	switch op {
	case ast.OpNot:
		if b, ok := logical(v); ok {
			return Bool(!b)
		}
	case ast.OpNeg:
		switch v.kind {
		case IntKind:
			return Int(-v.i())
		case RealKind:
			return Real(-v.r())
		case RelTimeKind:
			return RelTime(-v.r())
		}
	case ast.OpPlus:
		switch v.kind {
		case IntKind, RealKind, RelTimeKind:
			return v
		}
	case ast.OpBitNot:
		if v.kind == IntKind {
			return Int(^v.i())
		}
	}
	return Error()
}

func binary(op ast.Op, a, b Value) Value {
	switch {
	case a.kind == ErrorKind || b.kind == ErrorKind:
		return Error()
	case a.kind == UndefinedKind || b.kind == UndefinedKind:
		return Undefined()
	}
	switch {
	case op <= ast.OpSub:
		return arithmetic(op, a, b)
	case op <= ast.OpUshr:
		return shift(op, a, b)
	case op <= ast.OpNe:
		return compare(op, a, b)
	}
	return bitwise(op, a, b)
}

// number coerces a boolean to an integer, as HTCondor's arithmetic does.
func number(v Value) Value {
	if v.kind == BoolKind {
		return Value{kind: IntKind, n: v.n}
	}
	return v
}

func arithmetic(op ast.Op, a, b Value) Value {
	if a.kind == AbsTimeKind || a.kind == RelTimeKind || b.kind == AbsTimeKind || b.kind == RelTimeKind {
		return timeArithmetic(op, a, b)
	}
	a, b = number(a), number(b)
	switch {
	case a.kind == IntKind && b.kind == IntKind:
		return intArithmetic(op, a.i(), b.i())
	case a.IsNumber() && b.IsNumber():
		x, _ := a.NumberValue()
		y, _ := b.NumberValue()
		return realArithmetic(op, x, y)
	}
	return Error()
}

// intArithmetic is 64-bit two's-complement arithmetic. Division and
// modulus by zero are ERROR; the most negative integer divided by -1 is the
// largest integer (HTCondor's guard against the machine trap) and its
// modulus by -1 is 0.
func intArithmetic(op ast.Op, x, y int64) Value {
	switch op {
	case ast.OpAdd:
		return Int(x + y)
	case ast.OpSub:
		return Int(x - y)
	case ast.OpMul:
		return Int(x * y)
	case ast.OpDiv:
		switch {
		case y == 0:
			return Error()
		case x == math.MinInt64 && y == -1:
			return Int(math.MaxInt64)
		}
		return Int(x / y)
	case ast.OpMod:
		if y == 0 {
			return Error()
		}
		return Int(x % y)
	}
	return Error()
}

// realArithmetic follows IEEE arithmetic, except that HTCondor turns a
// result of positive infinity into ERROR (negative infinity and NaN are kept)
// and has no modulus of reals.
func realArithmetic(op ast.Op, x, y float64) Value {
	var r float64
	switch op {
	case ast.OpAdd:
		r = x + y
	case ast.OpSub:
		r = x - y
	case ast.OpMul:
		r = x * y
	case ast.OpDiv:
		r = x / y
	default:
		return Error()
	}
	if math.IsInf(r, 1) {
		return Error()
	}
	return Real(r)
}

// timeArithmetic follows HTCondor's doTimeArithmetic: absolute ± relative
// is absolute (the relative time cut to a C int first), absolute −
// absolute is relative, relative ± relative is relative, and a relative
// time multiplies or divides by an integer or a real (dividing by zero
// gives an infinite or NaN time, not ERROR), or is multiplied by one.
// Booleans are not numbers here, and nothing else is defined.
func timeArithmetic(op ast.Op, a, b Value) Value {
	switch op {
	case ast.OpAdd, ast.OpSub:
		return timeSum(op == ast.OpSub, a, b)
	case ast.OpMul, ast.OpDiv:
		return timeScale(op == ast.OpDiv, a, b)
	}
	return Error()
}

func timeSum(sub bool, a, b Value) Value {
	switch {
	case a.kind == AbsTimeKind && b.kind == RelTimeKind:
		d := int64(realToInt32(b.r()))
		if sub {
			d = -d
		}
		return AbsTime(a.i()+d, a.tz)
	case a.kind == RelTimeKind && b.kind == AbsTimeKind && !sub:
		return AbsTime(b.i()+int64(realToInt32(a.r())), b.tz)
	case a.kind == AbsTimeKind && b.kind == AbsTimeKind && sub:
		return RelTime(float64(a.i() - b.i()))
	case a.kind == RelTimeKind && b.kind == RelTimeKind && sub:
		return RelTime(a.r() - b.r())
	case a.kind == RelTimeKind && b.kind == RelTimeKind:
		return RelTime(a.r() + b.r())
	}
	return Error()
}

func timeScale(div bool, a, b Value) Value {
	if a.kind == RelTimeKind && (b.kind == IntKind || b.kind == RealKind) {
		y, _ := b.NumberValue()
		if div {
			return RelTime(a.r() / y)
		}
		return RelTime(a.r() * y)
	}
	if b.kind == RelTimeKind && (a.kind == IntKind || a.kind == RealKind) && !div {
		x, _ := a.NumberValue()
		return RelTime(x * b.r())
	}
	return Error()
}

// shift implements << >> >>> on integers as HTCondor computes them on
// x86-64: << and a shift of a non-negative number take the count modulo
// 64; >> of a negative number shifts by the count capped at 64 (none for a
// count below 1), filling with the sign; >>> of a negative number clears
// the sign after one shift and shifts the rest by (count-1) modulo 64.
func shift(op ast.Op, a, b Value) Value {
	if a.kind != IntKind || b.kind != IntKind {
		return Error()
	}
	x, n := a.i(), b.i()
	switch {
	case op == ast.OpShl:
		return Int(x << (uint64(n) & 63))
	case x >= 0:
		return Int(x >> (uint64(n) & 63))
	case op == ast.OpShr && n <= 0:
		return Int(x)
	case op == ast.OpShr:
		return Int(x >> uint64(min(n, 63)))
	}
	return Int(int64(uint64(x)>>1) >> (uint64(n-1) & 63))
}

// bitwise implements & | ^ on integers only.
func bitwise(op ast.Op, a, b Value) Value {
	if a.kind != IntKind || b.kind != IntKind {
		return Error()
	}
	x, y := a.i(), b.i()
	switch op {
	case ast.OpBitAnd:
		return Int(x & y)
	case ast.OpBitOr:
		return Int(x | y)
	}
	return Int(x ^ y)
}

// compare implements < <= >= > == != : strings case-insensitively, numbers
// (booleans as 1 and 0) by value, times of the same kind by value.
// Comparing a string with a non-string, or a list or record, is ERROR.
func compare(op ast.Op, a, b Value) Value {
	var c int
	switch {
	case a.kind == StringKind && b.kind == StringKind:
		c = compareFold(a.str(), b.str())
	case a.kind == StringKind || b.kind == StringKind:
		return Error()
	case a.kind == AbsTimeKind && b.kind == AbsTimeKind:
		c = cmpInt(a.i(), b.i())
	case a.kind == RelTimeKind && b.kind == RelTimeKind:
		return compareReals(op, a.r(), b.r())
	default:
		a, b = number(a), number(b)
		switch {
		case a.kind == IntKind && b.kind == IntKind:
			c = cmpInt(a.i(), b.i())
		case a.IsNumber() && b.IsNumber():
			x, _ := a.NumberValue()
			y, _ := b.NumberValue()
			return compareReals(op, x, y)
		default:
			return Error()
		}
	}
	return Bool(holds(op, c))
}

// compareReals compares with IEEE semantics: every comparison with NaN is
// false except !=.
func compareReals(op ast.Op, x, y float64) Value {
	switch op {
	case ast.OpLT:
		return Bool(x < y)
	case ast.OpLE:
		return Bool(x <= y)
	case ast.OpGE:
		return Bool(x >= y)
	case ast.OpGT:
		return Bool(x > y)
	case ast.OpEq:
		return Bool(x == y)
	}
	return Bool(x != y)
}

func holds(op ast.Op, c int) bool {
	switch op {
	case ast.OpLT:
		return c < 0
	case ast.OpLE:
		return c <= 0
	case ast.OpGE:
		return c >= 0
	case ast.OpGT:
		return c > 0
	case ast.OpEq:
		return c == 0
	}
	return c != 0
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// compareFold compares ASCII case-insensitively, as strcasecmp does.
func compareFold(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := lowerByte(a[i]), lowerByte(b[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return cmpInt(int64(len(a)), int64(len(b)))
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c | 0x20
	}
	return c
}

// identical implements =?= as HTCondor's doComparison does for its meta
// operators: values of different types are not identical (a list written
// as a literal and a list built by a function count as different types),
// UNDEFINED is identical to UNDEFINED and ERROR to ERROR, strings compare
// case-sensitively, absolute times by instant and zone, numbers without
// promotion (so 1 =?= 1.0 is false and NaN is not identical to itself).
// Two lists of the same kind, or two records, are ERROR.
func identical(a, b Value) Value {
	if a.kind != b.kind {
		return Bool(false)
	}
	switch a.kind {
	case ListKind:
		if literalList(a) != literalList(b) {
			return Bool(false)
		}
		return Error()
	case RecordKind:
		return Error()
	case AbsTimeKind:
		return Bool(a.n == b.n && a.tz == b.tz)
	}
	return Bool(sameScalar(a, b))
}

// notIdentical implements =!=, the negation of =?= (ERROR stays ERROR).
func notIdentical(a, b Value) Value {
	r := identical(a, b)
	if r.kind == BoolKind {
		r.n ^= 1
	}
	return r
}

// literalList reports whether a list value is a list literal evaluated
// (HTCondor's LIST_VALUE) rather than one built by a function
// (SLIST_VALUE).
func literalList(v Value) bool {
	l := v.list()
	return l != nil && l.src != nil
}
