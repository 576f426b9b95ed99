package ast

import (
	"math"
	"testing"
)

func TestPrintLiterals(t *testing.T) {
	tests := []struct {
		e    Expr
		want string
	}{
		{Int(-5), "-5"},
		{Real(2.5), "2.500000000000000E+00"},
		{Real(0), "0.0"},
		{Real(math.Copysign(0, -1)), "-0.0"},
		{Real(math.NaN()), `real("NaN")`},
		{Real(math.Inf(-1)), `real("-INF")`},
		{Str("a\"b\\c\n\t\x01é"), `"a\"b\\c\n\t\001é"`},
		{Bool(true), "true"},
		{Undefined(), "undefined"},
		{Error(), "error"},
		{&AttrRef{Name: "plain_Name1"}, "plain_Name1"},
		{&AttrRef{Name: "with space"}, "'with space'"},
		{&AttrRef{Name: "true"}, "'true'"},
		{&AttrRef{Name: "it's"}, `'it\'s'`},
		{&Select{X: Int(1), Name: "a"}, "1 .a"},
		{&Binary{Op: OpIs, X: Int(1), Y: Int(2)}, "1 is 2"},
		{&Binary{Op: OpIsnt, X: Int(1), Y: Int(2)}, "1 isnt 2"},
		{&Call{Name: "strcat", Args: []Expr{Str("a"), Int(1)}}, `strcat("a",1)`},
		{&List{}, "{  }"},
		{&Record{}, "[  ]"},
	}
	for _, tt := range tests {
		if got := String(tt.e); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}

func TestPrettyAndOld(t *testing.T) {
	r := &Record{Attrs: []Attr{{Name: "x", Value: Int(1)}, {Name: "l", Value: &List{Elems: []Expr{Int(1), Str("a")}}}}}
	want := "\n    [\n        x = 1; \n        l = \n           {\n              1,\n              \"a\"\n           }\n    ]"
	if got := string(AppendPretty(nil, r)); got != want {
		t.Errorf("pretty:\n%q\nwant\n%q", got, want)
	}
	if got := string(AppendOldAttr(nil, "Cmd", Str(`C:\bin\"x"`))); got != `Cmd = "C:\bin\\"x\""` {
		t.Errorf("old: %s", got)
	}
}

func TestJSONNumbers(t *testing.T) {
	tenth := 0.1 // a variable: constant arithmetic would be exact
	tests := []struct {
		e    Expr
		want string
	}{
		{Real(100), "100.0"},
		{Real(0.1), "0.1"},
		{Real(1e308), "1E+308"},
		{Real(tenth + 0.2), "0.30000000000000004"},
		{&Unary{Op: OpNeg, X: Int(7)}, "-7"},
		{&Unary{Op: OpNeg, X: &AttrRef{Name: "a"}}, `"\/Expr(-a)\/"`},
		{Real(math.Inf(1)), `"\/Expr(real(\"INF\"))\/"`},
		{Str("\x00\xff"), `"\u0000\ufffd"`},
	}
	for _, tt := range tests {
		if got := string(AppendJSON(nil, tt.e, false)); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}

func TestNames(t *testing.T) {
	if !EqualFold("Memory", "mEMORY") || EqualFold("Memory", "Memor") || EqualFold("é", "É") {
		t.Error("EqualFold")
	}
	if FoldHash("RequestCpus") != FoldHash("requestcpus") {
		t.Error("FoldHash differs by case")
	}
	if Lower("AbC") != "abc" || Lower("abc") != "abc" {
		t.Error("Lower")
	}
}
