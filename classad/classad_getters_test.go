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
