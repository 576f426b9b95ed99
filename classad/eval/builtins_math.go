package eval

import (
	"math"
	"math/rand/v2"
)

// Numeric functions: floor, ceiling, round, pow, quantize, random, and the
// list aggregates sum, avg, min, max.

func init() {
	register(
		fn("floor", 1, 1, func(_ *Call, a []Value) Value { return rounding(a[0], math.Floor) }),
		fn("ceiling", 1, 1, func(_ *Call, a []Value) Value { return rounding(a[0], math.Ceil) }),
		fn("round", 1, 1, func(_ *Call, a []Value) Value { return rounding(a[0], math.RoundToEven) }),
		fn("pow", 2, 2, builtinPow),
		fn("quantize", 2, 2, builtinQuantize),
		impure("random", 0, 1, builtinRandom),
		fn("sum", 1, 1, func(c *Call, a []Value) Value { return aggregate(c.st, a[0], aggSum) }),
		fn("avg", 1, 1, func(c *Call, a []Value) Value { return aggregate(c.st, a[0], aggAvg) }),
		fn("min", 1, 1, func(c *Call, a []Value) Value { return aggregate(c.st, a[0], aggMin) }),
		fn("max", 1, 1, func(c *Call, a []Value) Value { return aggregate(c.st, a[0], aggMax) }),
	)
}

// rounding implements floor, ceiling and round: integers are themselves,
// anything else goes through real() and the rounded value is an integer;
// UNDEFINED is ERROR, as the manual says.
func rounding(v Value, f func(float64) float64) Value {
	switch v.kind {
	case IntKind, ErrorKind:
		return v
	}
	r := toReal(v)
	if r.kind != RealKind {
		return Error()
	}
	return Int(realToInt(f(r.r())))
}

// builtinPow is pow(base, exponent): an integer when both are integers and
// the exponent is not negative, else a real. UNDEFINED arguments are ERROR.
func builtinPow(_ *Call, a []Value) Value {
	b, e := number(a[0]), number(a[1])
	if !b.IsNumber() || !e.IsNumber() {
		return Error()
	}
	if b.kind == IntKind && e.kind == IntKind && e.i() >= 0 {
		return Int(ipow(b.i(), e.i()))
	}
	x, _ := b.NumberValue()
	y, _ := e.NumberValue()
	return Real(math.Pow(x, y))
}

// ipow raises b to e with 64-bit wraparound.
func ipow(b, e int64) int64 {
	r := int64(1)
	for e > 0 {
		if e&1 == 1 {
			r *= b
		}
		b *= b
		e >>= 1
	}
	return r
}

// builtinQuantize rounds a up to a multiple of b, or to the first element
// of the list b that is at least a.
func builtinQuantize(c *Call, a []Value) Value {
	x := number(a[0])
	if !x.IsNumber() {
		return Error()
	}
	switch b := number(a[1]); b.kind {
	case IntKind, RealKind:
		return quantize(x, b)
	case ListKind:
		l := b.o.(*List)
		var last Value
		for i := 0; i < l.Len(); i++ {
			last = number(l.elem(c.st, i))
			if !last.IsNumber() {
				return Error()
			}
			if compare(opGE, last, x).IsTrue() {
				return last
			}
		}
		if l.Len() == 0 {
			return Error()
		}
		return quantize(x, last)
	}
	return Error()
}

// quantize returns the multiple of b at or above a, in b's type. For
// integers this is HTCondor's (a/b + (a%b != 0)) * b.
func quantize(a, b Value) Value {
	if a.kind == IntKind && b.kind == IntKind {
		x, y := a.i(), b.i()
		if y == 0 {
			return Error()
		}
		q := x / y
		if x%y != 0 {
			q++
		}
		return Int(q * y)
	}
	x, _ := a.NumberValue()
	y, _ := b.NumberValue()
	if y == 0 {
		return Error()
	}
	r := math.Ceil(x/y) * y
	if b.kind == IntKind {
		return Int(realToInt(r))
	}
	return Real(r)
}

func builtinRandom(_ *Call, a []Value) Value {
	if len(a) == 0 {
		return Real(rand.Float64())
	}
	switch v := a[0]; v.kind {
	case IntKind:
		if v.i() <= 0 {
			return Error()
		}
		return Int(rand.Int64N(v.i()))
	case RealKind:
		return Real(rand.Float64() * v.r())
	}
	return Error()
}

type aggKind uint8

const (
	aggSum aggKind = iota
	aggAvg
	aggMin
	aggMax
)

// aggregate implements sum, avg, min and max over a list: UNDEFINED
// elements are dropped, booleans count as 1 and 0, any other non-number is
// ERROR. With nothing left, sum and avg are 0 and min and max UNDEFINED.
func aggregate(st *State, v Value, kind aggKind) Value {
	switch v.kind {
	case UndefinedKind:
		return Undefined()
	case ListKind:
	default:
		return Error()
	}
	l := v.o.(*List)
	var acc Value
	n := 0
	for i := 0; i < l.Len(); i++ {
		e := l.elem(st, i)
		if e.kind == UndefinedKind {
			continue
		}
		e = number(e)
		if !e.IsNumber() {
			return Error()
		}
		if n == 0 {
			acc = e
		} else {
			acc = combine(kind, acc, e)
		}
		n++
	}
	switch {
	case n == 0 && (kind == aggMin || kind == aggMax):
		return Undefined()
	case n == 0:
		return Int(0)
	case kind == aggAvg:
		s, _ := acc.NumberValue()
		return Real(s / float64(n))
	}
	return acc
}

func combine(kind aggKind, acc, e Value) Value {
	switch kind {
	case aggMin:
		if compare(opLT, e, acc).IsTrue() {
			return promote(e, acc)
		}
		return promote(acc, e)
	case aggMax:
		if compare(opGT, e, acc).IsTrue() {
			return promote(e, acc)
		}
		return promote(acc, e)
	}
	return arithmetic(opAdd, acc, e)
}

// promote returns v as a real if either v or w is a real.
func promote(v, w Value) Value {
	if v.kind == IntKind && w.kind == RealKind {
		return Real(float64(v.i()))
	}
	return v
}
