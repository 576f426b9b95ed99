package classad

import "testing"

// The typed getters evaluate an attribute alone and say whether it has
// the type asked for, so that callers need not repeat the evaluation.
func TestTypedGetters(t *testing.T) {
	ad, err := Parse(`[ S = "a" + ""; Q = strcat("x", "y"); B = 1 < 2; N = 3; R = 1.5; U = Missing; E = 1 / "x" ]`)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := EvalString(ad, "Q"); !ok || s != "xy" {
		t.Errorf("EvalString(Q) = %q, %v", s, ok)
	}
	if b, ok := EvalBool(ad, "B"); !ok || !b {
		t.Errorf("EvalBool(B) = %v, %v", b, ok)
	}
	for _, tc := range []struct {
		name string
		want float64
		ok   bool
	}{{"N", 3, true}, {"R", 1.5, true}, {"B", 1, true}, {"U", 0, false}, {"E", 0, false}, {"Absent", 0, false}} {
		if f, ok := EvalNumber(ad, tc.name); ok != tc.ok || ok && f != tc.want {
			t.Errorf("EvalNumber(%s) = %v, %v; want %v, %v", tc.name, f, ok, tc.want, tc.ok)
		}
	}
	for _, name := range []string{"N", "U", "E", "Absent", "B"} {
		if _, ok := EvalString(ad, name); ok {
			t.Errorf("EvalString(%s) says it is a string", name)
		}
	}
}

// A literal attribute is read without evaluation and answers as its
// evaluation would; the ...Or forms give the default where ok is false.
func TestTypedGettersLiteralsAndDefaults(t *testing.T) {
	ad, err := Parse(`[ N = 3; NE = 1 + 2; R = -2.7; RE = 0 - 2.7; B = true; BE = 1 < 2; S = "s"; SE = strcat("s");
		Big = 9007199254740993; U = undefined; E = error; Str = "7" ]`)
	if err != nil {
		t.Fatal(err)
	}
	ints := []struct {
		name string
		want int64
		ok   bool
	}{{"N", 3, true}, {"NE", 3, true}, {"R", -2, true}, {"RE", -2, true}, {"B", 1, true}, {"BE", 1, true},
		{"Big", 9007199254740993, true}, {"U", 0, false}, {"E", 0, false}, {"Str", 0, false}, {"Absent", 0, false}}
	for _, tc := range ints {
		if i, ok := EvalInt(ad, tc.name); ok != tc.ok || i != tc.want {
			t.Errorf("EvalInt(%s) = %v, %v; want %v, %v", tc.name, i, ok, tc.want, tc.ok)
		}
		want := tc.want
		if !tc.ok {
			want = -1
		}
		if got := EvalIntOr(ad, tc.name, -1); got != want {
			t.Errorf("EvalIntOr(%s, -1) = %v, want %v", tc.name, got, want)
		}
	}
	for _, pair := range [][2]string{{"N", "NE"}, {"R", "RE"}, {"B", "BE"}, {"S", "SE"}} {
		lit, ev := pair[0], pair[1]
		f1, ok1 := EvalNumber(ad, lit)
		f2, ok2 := EvalNumber(ad, ev)
		b1, bok1 := EvalBool(ad, lit)
		b2, bok2 := EvalBool(ad, ev)
		s1, sok1 := EvalString(ad, lit)
		s2, sok2 := EvalString(ad, ev)
		if f1 != f2 || ok1 != ok2 || bok1 != bok2 || bok1 && b1 != b2 || s1 != s2 || sok1 != sok2 {
			t.Errorf("literal %s and evaluated %s differ: %v %v %v %v %q %v / %v %v %v %v %q %v",
				lit, ev, f1, ok1, b1, bok1, s1, sok1, f2, ok2, b2, bok2, s2, sok2)
		}
	}
	if EvalStringOr(ad, "N", "def") != "def" || EvalStringOr(ad, "S", "def") != "s" {
		t.Error("EvalStringOr")
	}
	if EvalBoolOr(ad, "U", true) != true || EvalBoolOr(ad, "B", false) != true || EvalBoolOr(ad, "N", false) != false {
		t.Error("EvalBoolOr")
	}
	if EvalNumberOr(ad, "E", 0.5) != 0.5 || EvalNumberOr(ad, "R", 0) != -2.7 {
		t.Error("EvalNumberOr")
	}
	if _, ok := EvalNumber(nil, "N"); ok || EvalNumberOr(nil, "N", 4) != 4 || EvalStringOr(nil, "S", "x") != "x" {
		t.Error("a nil ad has attributes")
	}
}

// The Literal getters read literals only: an expression, even one that
// evaluates to the type asked for, and a boolean are not numbers.
func TestLiteralGetters(t *testing.T) {
	tests := []struct {
		src string
		s   string
		sok bool
		i   int64
		iok bool
		f   float64
		fok bool
	}{
		{`"x"`, "x", true, 0, false, 0, false},
		{`7`, "", false, 7, true, 7, true},
		{`9007199254740993`, "", false, 9007199254740993, true, 9007199254740992, true},
		{`2.5`, "", false, 2, true, 2.5, true},
		{`true`, "", false, 0, false, 0, false},
		{`1 + 1`, "", false, 0, false, 0, false},
		{`strcat("x")`, "", false, 0, false, 0, false},
		{`undefined`, "", false, 0, false, 0, false},
	}
	for _, tc := range tests {
		e, err := ParseExpr(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		s, sok := LiteralString(e)
		i, iok := LiteralInt(e)
		f, fok := LiteralNumber(e)
		if s != tc.s || sok != tc.sok || i != tc.i || iok != tc.iok || f != tc.f || fok != tc.fok {
			t.Errorf("%s: %q %v, %d %v, %v %v", tc.src, s, sok, i, iok, f, fok)
		}
	}
	if _, ok := LiteralString(nil); ok {
		t.Error("nil is a string literal")
	}
}
