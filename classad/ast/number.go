package ast

import "math"

// Number returns a number literal for v: an integer when v is whole and
// fits an int64, as ClassAds print counts and sizes, else a real.
func Number(v float64) *Literal {
	if v == math.Trunc(v) && v >= math.MinInt64 && v < math.MaxInt64 {
		return Int(int64(v))
	}
	return Real(v)
}
