package ast

import (
	"math"
	"testing"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{3, "3"},
		{-2, "-2"},
		{0, "0"},
		{1.5, "1.500000000000000E+00"},
		{1 << 60, "1152921504606846976"},
		{math.Ldexp(1, 63), "9.223372036854776E+18"},
		{math.Inf(1), `real("INF")`},
		{math.NaN(), `real("NaN")`},
	}
	for _, tt := range tests {
		if got := String(Number(tt.v)); got != tt.want {
			t.Errorf("Number(%v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}
