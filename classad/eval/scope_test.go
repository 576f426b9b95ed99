package eval_test

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/parser"
)

func mustAd(t *testing.T, src string) *eval.Ad {
	t.Helper()
	if src == "" {
		return nil
	}
	r, err := parser.ParseRecord(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return eval.FromRecord(r)
}

func evalIn(t *testing.T, expr string, my, target *eval.Ad) (eval.Value, error) {
	t.Helper()
	e, err := parser.ParseExpr(expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return eval.Evaluate(eval.Compile(e), my, target)
}

// TestScoping covers how names are resolved: MY, TARGET (and OTHER),
// PARENT, nested records, unscoped names in MY then TARGET, and the
// symmetric binding of a match.
func TestScoping(t *testing.T) {
	my := `[ Memory = 1; A = 10; Nested = [ A = 20; B = A + 1; C = PARENT.A; D = MY.A; E = Memory ]; Self = MY; Tgt = TARGET.Cpus ]`
	target := `[ Memory = 4096; Cpus = 8; Back = TARGET.A; Loop = A; Own = MY.Memory ]`
	tests := []struct{ expr, want string }{
		{"Memory", "1"},                   // MY first
		{"Cpus", "8"},                     // then TARGET
		{"MY.Cpus", "undefined"},          // MY.x never falls back to TARGET
		{"TARGET.Memory", "4096"},         //
		{"OTHER.Memory", "4096"},          // OTHER is TARGET
		{"target.memory", "4096"},         // scope names and attributes ignore case
		{"Nested.B", "21"},                // a nested record's own attributes first
		{"Nested.C", "10"},                // PARENT is the enclosing record
		{"Nested.D", "20"},                // MY inside a nested record is that record
		{"Nested.E", "1"},                 // enclosing records are searched
		{"Nested.Missing", "undefined"},   //
		{"Self.A", "10"},                  // MY as a value is the ad itself
		{"Tgt", "8"},                      //
		{"TARGET.Back", "10"},             // in the target ad, TARGET is MY's ad
		{"TARGET.Loop", "10"},             // and unscoped names fall back to MY's ad
		{"TARGET.Own", "4096"},            // while MY is the target ad itself
		{"PARENT", "undefined"},           // a top-level ad has no parent
		{".A", "10"},                      // absolute reference from the outermost ad
		{"[ A = 5; X = .A ].X", "10"},     // absolute from inside a literal
		{"[ A = 5; X = A ].X", "5"},       //
		{"[ X = A ].X", "10"},             // a record literal is nested in MY
		{`Nested["B"]`, "21"},             // subscripting a record by name
		{`Nested["Memory"]`, "undefined"}, // looks only in that record
		{"{1} =?= {1}", "error"},          // two lists are not comparable
		{"{1} =?= split(\"1\")", "false"}, // a literal and a built list differ in type
		{"absTime(10, 0) =?= absTime(10, 3600)", "false"},
		{"relTime(65)", `relTime("01:05")`},
		{"relTime(90061)", `relTime("1+01:01:01")`},
		{`{ [ a = 1 ], [ a = 2 ], 3 }.a`, "{ 1,2,error }"},
	}
	m, tg := mustAd(t, my), mustAd(t, target)
	for _, tt := range tests {
		v, err := evalIn(t, tt.expr, m, tg)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got := v.String(); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
}

// TestShadowedScopeNames: an attribute called like a scope keyword is
// found as an attribute first.
func TestShadowedScopeNames(t *testing.T) {
	m := mustAd(t, `[ Target = [ X = 1 ]; Parent = 7 ]`)
	tg := mustAd(t, `[ X = 2 ]`)
	for expr, want := range map[string]string{"TARGET.X": "1", "PARENT": "7", "MY.Parent": "7"} {
		v, _ := evalIn(t, expr, m, tg)
		if v.String() != want {
			t.Errorf("%s = %s, want %s", expr, v, want)
		}
	}
}

// TestCycles: a reference back to an attribute being evaluated is
// UNDEFINED, however long the loop.
func TestCycles(t *testing.T) {
	m := mustAd(t, `[ A = B + 1; B = C; C = A; R = R + 1; D = isUndefined(R); L = { L } ]`)
	for expr, want := range map[string]string{
		"A": "undefined", "R": "undefined", "D": "true",
		"size(L)": "1", "member(1, L)": "false",
	} {
		v, err := evalIn(t, expr, m, nil)
		if err != nil || v.String() != want {
			t.Errorf("%s = %s (%v), want %s", expr, v, err, want)
		}
	}
}

// TestLimits: exponential or deep evaluations stop with a failure, not a
// hang or a crash.
func TestLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("[ A0 = 1")
	for i := 1; i <= 30; i++ {
		b.WriteString("; A" + itoa(i) + " = A" + itoa(i-1) + " + A" + itoa(i-1))
	}
	b.WriteString(" ]")
	v, err := evalIn(t, "A30", mustAd(t, b.String()), nil)
	if err == nil || !v.IsError() {
		t.Errorf("2^30 evaluation: %v, %v; want a step-limit failure", v, err)
	}
	b.Reset()
	b.WriteString("[ D0 = 1")
	for i := 1; i <= 500; i++ {
		b.WriteString("; D" + itoa(i) + " = D" + itoa(i-1) + " + 1")
	}
	b.WriteString(" ]")
	v, err = evalIn(t, "D500", mustAd(t, b.String()), nil)
	if err == nil || !v.IsError() {
		t.Errorf("deep chain: %v, %v; want a depth-limit failure", v, err)
	}
	v, err = evalIn(t, "D50", mustAd(t, b.String()), nil)
	if err != nil || v.String() != "51" {
		t.Errorf("shallow chain: %v, %v", v, err)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestListsAreLazy: a list literal keeps its expressions and evaluates
// them where it was written.
func TestListsAreLazy(t *testing.T) {
	m := mustAd(t, `[ A = 2; L = { A, A * 10, 1 / 0 } ]`)
	for expr, want := range map[string]string{
		"L":           "{ A,A * 10,1 / 0 }",
		"L[1]":        "20",
		"L[2]":        "error",
		"size(L)":     "3",
		"sum({A, 3})": "5",
	} {
		v, err := evalIn(t, expr, m, nil)
		if err != nil || v.String() != want {
			t.Errorf("%s = %s (%v), want %s", expr, v, err, want)
		}
	}
}

func TestAdAPI(t *testing.T) {
	a := eval.NewAd()
	for i := range 20 {
		a.Set("Attr"+itoa(i), mustAd(t, "[ v = "+itoa(i)+" ]").Expr(0))
	}
	v, _ := eval.EvaluateAttr(a, "attr7", nil)
	if v.String() != "7" {
		t.Fatalf("attr7 = %s", v)
	}
	a.Set("ATTR7", mustAd(t, "[ v = Attr8 * 2 ]").Expr(0))
	if v, _ := eval.EvaluateAttr(a, "Attr7", nil); v.String() != "16" || a.Name(7) != "Attr7" {
		t.Fatalf("after Set: %s (name %s)", v, a.Name(7))
	}
	c := a.Clone()
	if !a.Delete("attr0") || a.Delete("attr0") || a.Len() != 19 {
		t.Fatalf("Delete: len %d", a.Len())
	}
	if v, _ := eval.EvaluateAttr(a, "Attr19", nil); v.String() != "19" {
		t.Errorf("after Delete, Attr19 = %s", v)
	}
	if c.Len() != 20 || c.Index("Attr0") != 0 {
		t.Errorf("the clone changed with the original")
	}
	data, err := a.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back eval.Ad
	if err := back.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	if back.String() != a.String() {
		t.Errorf("JSON round trip:\n %s\n %s", back.String(), a.String())
	}
	if v, _ := eval.EvaluateAttr(&back, "Attr7", nil); v.String() != "16" {
		t.Errorf("decoded ad evaluates Attr7 = %s", v)
	}
}

// TestConcurrentEvaluation: an ad is compiled lazily; evaluating it from
// many goroutines at once is safe (run with -race).
func TestConcurrentEvaluation(t *testing.T) {
	m := mustAd(t, `[ A = 1; B = A + 1; C = B * 10 ]`)
	done := make(chan string)
	for range 8 {
		go func() {
			v, _ := eval.EvaluateAttr(m, "C", nil)
			done <- v.String()
		}()
	}
	for range 8 {
		if got := <-done; got != "20" {
			t.Errorf("C = %s", got)
		}
	}
}
