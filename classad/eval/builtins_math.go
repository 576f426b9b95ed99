package eval

import (
	"math"
	"math/big"
	"math/rand/v2"
)

// Numeric functions: floor, ceil, ceiling, round, pow, quantize, random,
// and the list aggregates sum, avg, min, max.

func init() {
	register(
		rounding("floor", math.Floor),
		rounding("ceil", math.Ceil),
		rounding("ceiling", math.Ceil),
		rounding("round", math.RoundToEven),
		fn("pow", 2, 2, builtinPow),
		fn("quantize", 2, 2, builtinQuantize),
		impure("random", 0, 1, builtinRandom),
		fn("sum", 1, 1, func(c *Call, a []Value) Value { return aggregate(c.st, a[0], aggSum) }),
		fn("avg", 1, 1, func(c *Call, a []Value) Value { return aggregate(c.st, a[0], aggAvg) }),
		fn("min", 1, 1, func(c *Call, a []Value) Value { return aggregate(c.st, a[0], aggMin) }),
		fn("max", 1, 1, func(c *Call, a []Value) Value { return aggregate(c.st, a[0], aggMax) }),
	)
}

// rounding builds floor, ceiling and round: an integer is itself; anything
// else is converted as real() converts it (UNDEFINED too is ERROR here) and
// the rounded real is cast to an integer. round rounds halves to even, as
// C's rint does.
func rounding(name string, f func(float64) float64) *Builtin {
	return fn(name, 1, 1, func(_ *Call, a []Value) Value {
		v := a[0]
		if v.kind == IntKind {
			return v
		}
		r, _, ok := toRealValue(v)
		if !ok {
			return Error()
		}
		return Int(realToInt(f(r)))
	})
}

// builtinPow is pow(base, exponent). Two integers with a non-negative
// exponent give an integer: the real power plus 0.5, truncated, so
// pow(-2, 3) is -7 and results past 2^63 are the most negative integer.
// Otherwise both arguments are converted as real() converts them (strings
// included; UNDEFINED is ERROR) and the result is a real.
func builtinPow(_ *Call, a []Value) Value {
	b, e := a[0], a[1]
	if b.kind == IntKind && e.kind == IntKind && e.i() >= 0 {
		return Int(realToInt(intPower(b.i(), e.i()) + 0.5))
	}
	x, _, okx := toRealValue(b)
	y, _, oky := toRealValue(e)
	if !okx || !oky {
		return Error()
	}
	return Real(math.Pow(x, y))
}

// intPower returns float64(b) raised to e, correctly rounded as C's pow
// gives it for these exact cases. Magnitudes of 2^64 and more are returned
// as infinity: the caller only casts them to an integer.
func intPower(b, e int64) float64 {
	x := float64(b)
	switch {
	case e == 0 || x == 1:
		return 1
	case x == 0:
		return 0
	case x == -1:
		return float64(1 - 2*(e&1))
	case e >= 64 || math.Abs(x) >= 1<<63:
		return math.Inf(1)
	}
	p := new(big.Int).Exp(big.NewInt(int64(x)), big.NewInt(e), nil)
	f, _ := new(big.Float).SetInt(p).Float64()
	return f
}

// builtinQuantize is quantize(a, b): a rounded up to a multiple of b, or,
// when b is a list, the first element that is at least a (as it is), else
// a multiple of the last element. A zero base gives a back unchanged.
// Arguments convert as real() converts them; integer a and b give an
// integer, otherwise the result is a real.
func builtinQuantize(c *Call, a []Value) Value {
	x, base := a[0], a[1]
	rval, _, ok := toRealValue(x)
	if !ok {
		return Error()
	}
	var rbase float64
	if base.kind == ListKind {
		var found bool
		if base, rbase, found, ok = quantizeList(c.st, base.list(), rval); found || !ok {
			return base
		}
	} else if rbase, _, ok = toRealValue(base); !ok {
		return Error()
	}
	if base.kind == IntKind {
		ib := base.i()
		switch {
		case ib == 0:
			return x
		case x.kind == IntKind:
			return Int((x.i() + ib - 1) / ib * ib)
		}
		return Real(math.Ceil(rval/float64(ib)) * float64(ib))
	}
	if rbase >= -1e-8 && rbase <= 1e-8 {
		return x
	}
	return Real(math.Ceil(rval/rbase) * rbase)
}

// quantizeList scans a list base: found is true (with the element) when an
// element is at least rval; otherwise it returns the last element (0.0 for
// an empty list) to quantize by. ok is false (with ERROR) when an element
// does not convert to a real.
func quantizeList(st *State, l *List, rval float64) (Value, float64, bool, bool) {
	base, rbase := Real(0), 0.0
	for i := 0; i < l.Len(); i++ {
		base = l.elem(st, i)
		r, _, ok := toRealValue(base)
		if !ok {
			return Error(), 0, false, false
		}
		if rbase = r; rbase >= rval {
			return base, rbase, true, true
		}
	}
	return base, rbase, false, true
}

// builtinRandom is random() (a real in [0, 1]), random(n) for an integer n
// (an integer in [0, n), n taken as a C int) or random(x) for a real x (a
// real in [0, x]). A bound that is not positive makes the evaluation fail,
// as in HTCondor; any other argument is ERROR.
func builtinRandom(c *Call, a []Value) Value {
	if len(a) == 0 {
		return Real(rand.Float64())
	}
	switch v := a[0]; v.kind {
	case IntKind:
		n := int32(v.i())
		if n <= 0 {
			return c.st.fail("random(%d): the bound must be positive", n)
		}
		return Int(int64(rand.Int32N(n)))
	case RealKind:
		if v.r() <= 0 {
			return c.st.fail("random(%g): the bound must be positive", v.r())
		}
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

// aggregate implements sum, avg, min and max over a list, as HTCondor's
// sumAvg and minMax do: UNDEFINED elements are skipped, booleans, integers
// and reals are numbers, anything else is ERROR. The first number is taken
// as it is (sum({true}) is true); later ones are combined with + or
// compared with < and >, which promote booleans to integers and integers to
// reals. With no numbers, sum and avg are 0 and min and max UNDEFINED. An
// UNDEFINED list is UNDEFINED, anything else not a list ERROR.
func aggregate(st *State, v Value, kind aggKind) Value {
	switch v.kind {
	case UndefinedKind:
		return Undefined()
	case ListKind:
	default:
		return Error()
	}
	l := v.list()
	acc, n := Int(0), 0
	for i := 0; i < l.Len(); i++ {
		e := l.elem(st, i)
		switch {
		case e.kind == UndefinedKind:
			continue
		case e.kind != BoolKind && !e.IsNumber():
			return Error()
		case n == 0:
			acc = e
		default:
			acc = combine(kind, acc, e)
		}
		n++
	}
	switch {
	case n == 0 && (kind == aggMin || kind == aggMax):
		return Undefined()
	case n > 0 && kind == aggAvg:
		return binary(opDiv, acc, Real(float64(n)))
	}
	return acc
}

// combine folds one more number into an aggregate.
func combine(kind aggKind, acc, e Value) Value {
	op := opLT
	switch kind {
	case aggSum, aggAvg:
		return binary(opAdd, acc, e)
	case aggMax:
		op = opGT
	}
	x, y := coerceNumbers(e, acc)
	if r := compare(op, x, y); r.kind == BoolKind && r.n != 0 {
		return x
	}
	return y
}

// coerceNumbers promotes two numbers as HTCondor's comparisons do in place:
// booleans to integers, then an integer to a real if the other is a real.
func coerceNumbers(a, b Value) (Value, Value) {
	a, b = number(a), number(b)
	switch {
	case a.kind == IntKind && b.kind == RealKind:
		a = Real(float64(a.i()))
	case a.kind == RealKind && b.kind == IntKind:
		b = Real(float64(b.i()))
	}
	return a, b
}
