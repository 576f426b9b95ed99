package ast

import (
	"math"
	"testing"
)

// Reals in long form are C's %.16G with ".0" added to what reads as an
// integer, as HTCondor's ClassAdUnParser writes them in old-ClassAd mode
// (what condor_q -long and condor_submit -dry-run print). The expected
// texts are C printf's.
func TestLongReal(t *testing.T) {
	tenth := 0.1 // a variable: constant arithmetic would be exact
	tests := []struct {
		f    float64
		want string
	}{
		{0.25, "0.25"},
		{2.5, "2.5"},
		{-7, "-7.0"},
		{3, "3.0"},
		{123456, "123456.0"},
		{1e15, "1000000000000000.0"},
		{1e16, "1E+16"},
		{1e20, "1E+20"},
		{1e-4, "0.0001"},
		{0.00012345, "0.00012345"},
		{1e-5, "1E-05"},
		{2.5e-300, "2.5E-300"},
		{tenth + 0.2, "0.3"},
		{1.0 / 3, "0.3333333333333333"},
		{math.MaxFloat64, "1.797693134862316E+308"},
		{5e-324, "4.940656458412465E-324"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{math.NaN(), `real("NaN")`},
		{math.Inf(1), `real("INF")`},
		{math.Inf(-1), `real("-INF")`},
	}
	for _, tt := range tests {
		if got := string(AppendLongReal(nil, tt.f)); got != tt.want {
			t.Errorf("AppendLongReal(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

// The long form of whole attributes: the examples of issue 16 item 11
// (+Ratio = 0.25 and on_exit_hold = ExitCode =!= 0, which condor_q -long
// prints as written), at every depth, with the old syntax's strings.
func TestLongAttr(t *testing.T) {
	bin := func(op Op, x, y Expr) Expr { return &Binary{Op: op, X: x, Y: y} }
	ref := func(n string) Expr { return &AttrRef{Name: n} }
	tests := []struct {
		name string
		e    Expr
		want string
	}{
		{"Ratio", Real(0.25), "Ratio = 0.25"},
		{"OnExitHold", bin(OpIsnt, ref("ExitCode"), Int(0)), "OnExitHold = ExitCode =!= 0"},
		{"X", bin(OpIs, ref("a"), Undefined()), "X = a =?= undefined"},
		{"Rank", &Paren{X: bin(OpMul, ref("Memory"), Real(1.5))}, "Rank = (Memory * 1.5)"},
		{"L", &List{Elems: []Expr{Real(1), Real(0.5)}}, "L = { 1.0,0.5 }"},
		{"R", &Record{Attrs: []Attr{{Name: "a", Value: bin(OpIsnt, Real(2), ref("b"))}}}, "R = [ a = 2.0 =!= b ]"},
		{"F", &Call{Name: "ifThenElse", Args: []Expr{bin(OpIs, ref("a"), Int(1)), Real(1e20), Str(`C:\x`)}}, `F = ifThenElse(a =?= 1,1E+20,"C:\x")`},
		{"with space", Int(1), "'with space' = 1"},
	}
	for _, tt := range tests {
		if got := string(AppendLongAttr(nil, tt.name, tt.e)); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
	// The canonical printer is unchanged.
	if got := String(bin(OpIsnt, ref("ExitCode"), Real(0.25))); got != "ExitCode isnt 2.500000000000000E-01" {
		t.Errorf("canonical: %s", got)
	}
}
