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

func intArithmetic(op ast.Op, x, y int64) Value {
	switch op {
	case ast.OpAdd:
		return Int(x + y)
	case ast.OpSub:
		return Int(x - y)
	case ast.OpMul:
		return Int(x * y)
	case ast.OpDiv:
		if y == 0 {
			return Error()
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

// timeArithmetic: absolute ± relative is absolute, absolute − absolute is
// relative, relative ± relative is relative, and a relative time scales by
// a number.
func timeArithmetic(op ast.Op, a, b Value) Value {
	switch {
	case a.kind == AbsTimeKind && b.kind == RelTimeKind && (op == ast.OpAdd || op == ast.OpSub):
		d := int64(b.r())
		if op == ast.OpSub {
			d = -d
		}
		return AbsTime(a.i()+d, a.tz)
	case a.kind == RelTimeKind && b.kind == AbsTimeKind && op == ast.OpAdd:
		return AbsTime(b.i()+int64(a.r()), b.tz)
	case a.kind == AbsTimeKind && b.kind == AbsTimeKind && op == ast.OpSub:
		return RelTime(float64(a.i() - b.i()))
	case a.kind == RelTimeKind && b.kind == RelTimeKind && (op == ast.OpAdd || op == ast.OpSub):
		if op == ast.OpSub {
			return RelTime(a.r() - b.r())
		}
		return RelTime(a.r() + b.r())
	case a.kind == RelTimeKind && (op == ast.OpMul || op == ast.OpDiv):
		y, ok := number(b).NumberValue()
		if !ok || (op == ast.OpDiv && y == 0) {
			return Error()
		}
		if op == ast.OpDiv {
			return RelTime(a.r() / y)
		}
		return RelTime(a.r() * y)
	case b.kind == RelTimeKind && op == ast.OpMul:
		x, ok := number(a).NumberValue()
		if !ok {
			return Error()
		}
		return RelTime(x * b.r())
	}
	return Error()
}

func shift(op ast.Op, a, b Value) Value {
	if a.kind != IntKind || b.kind != IntKind {
		return Error()
	}
	x, n := a.i(), uint(b.i())&63 // the machine's shift, as in HTCondor on x86-64
	switch op {
	case ast.OpShl:
		return Int(x << n)
	case ast.OpShr:
		return Int(x >> n)
	}
	return Int(int64(uint64(x) >> n))
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
		c = compareFold(a.s, b.s)
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
