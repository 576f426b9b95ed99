package eval_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/parser"
)

// adOp sets an attribute (expr not empty) or deletes it.
type adOp struct{ name, expr string }

// roomCases are ad histories: small and indexed ads, names redefined in
// another spelling, deleted, and named like scope keywords (HTCondor
// manual, "ClassAd Syntax": attribute names are case-insensitive, and a
// redefinition keeps the attribute's place).
var roomCases = map[string][]adOp{
	"empty": nil,
	"small": {{"a", "1"}, {"B", "a + 1"}, {"c", `"x"`}},
	"redefined and deleted": {{"a", "1"}, {"b", "2"}, {"A", "3"}, {"c", "b"}, {"B", ""}, {"d", "c + a"},
		{"missing", ""}, {"b", "10"}},
	"scope names": {{"My", "[ x = 4 ]"}, {"x", "My.x + 1"}, {"TARGET", "7"}, {"y", "target + x"}, {"my", ""},
		{"z", "my.x"}},
	"indexed":    setOps(40, ""),
	"grown past": append(setOps(20, ""), append(setOps(20, "n"), adOp{"N3", ""}, adOp{"n7", ""}, adOp{"late", "N9 + 1"})...),
}

// setOps sets n attributes v0..v(n-1), each its index, spelt with prefix p.
func setOps(n int, p string) []adOp {
	ops := make([]adOp, n)
	for i := range ops {
		ops[i] = adOp{fmt.Sprintf("%sv%d", p, i), fmt.Sprint(i)}
	}
	return ops
}

func apply(t *testing.T, ad *eval.Ad, ops []adOp) *eval.Ad {
	t.Helper()
	for _, op := range ops {
		if op.expr == "" {
			ad.Delete(op.name)
			continue
		}
		e, err := parser.ParseExpr(op.expr)
		if err != nil {
			t.Fatal(err)
		}
		ad.Set(op.name, e)
	}
	return ad
}

// sameAd fails unless got has want's attributes in want's order and
// spelling, finds each by any spelling, and evaluates each the same.
func sameAd(t *testing.T, what string, got, want *eval.Ad) {
	t.Helper()
	if got.String() != want.String() || got.Len() != want.Len() {
		t.Fatalf("%s: got %s, want %s", what, got, want)
	}
	for i := range want.Len() {
		n := want.Name(i)
		for _, spelt := range []string{n, strings.ToUpper(n), strings.ToLower(n)} {
			if got.Index(spelt) != i {
				t.Errorf("%s: Index(%q) = %d, want %d", what, spelt, got.Index(spelt), i)
			}
		}
		g, gerr := eval.EvaluateAttr(got, n, nil)
		w, werr := eval.EvaluateAttr(want, n, nil)
		if g.String() != w.String() || (gerr == nil) != (werr == nil) {
			t.Errorf("%s: %s = %v (%v), want %v (%v)", what, n, g, gerr, w, werr)
		}
	}
	if got.Index("never_set") >= 0 {
		t.Errorf("%s: an attribute never set is found", what)
	}
}

// An ad made with room, cloned with room, or reset and rebuilt is the ad
// NewAd and Set make of the same history.
func TestAdRoom(t *testing.T) {
	for name, ops := range roomCases {
		t.Run(name, func(t *testing.T) {
			want := apply(t, eval.NewAd(), ops)
			for _, n := range []int{0, 1, len(ops), 100} {
				sameAd(t, fmt.Sprintf("NewAdRoom(%d)", n), apply(t, eval.NewAdRoom(n), ops), want)
			}
			for _, old := range []int{0, 5, 40} {
				scratch := apply(t, eval.NewAd(), setOps(old, "old"))
				apply(t, scratch, []adOp{{"My", "1"}}) // a scope name the reset forgets
				scratch.Reset()
				sameAd(t, fmt.Sprintf("reset from %d attributes", old), apply(t, scratch, ops), want)
			}
			for split := range len(ops) + 1 {
				base := apply(t, eval.NewAd(), ops[:split])
				for _, room := range []int{0, len(ops) - split, 64} {
					c := base.CloneRoom(room)
					sameAd(t, fmt.Sprintf("CloneRoom(%d) after %d", room, split), apply(t, c, ops[split:]), want)
					sameAd(t, fmt.Sprintf("the ad cloned after %d", split), base, apply(t, eval.NewAd(), ops[:split]))
				}
			}
		})
	}
}

// A clone of a scratch ad keeps its attributes when the scratch ad is
// reset and rebuilt.
func TestResetKeepsClones(t *testing.T) {
	scratch := eval.NewAdRoom(40)
	apply(t, scratch, setOps(40, ""))
	kept := scratch.Clone()
	want := kept.String()
	if _, err := eval.EvaluateAttr(scratch, "v39", nil); err != nil { // compiled before the reset
		t.Fatal(err)
	}
	scratch.Reset()
	apply(t, scratch, setOps(40, "other"))
	if kept.String() != want {
		t.Errorf("the clone changed with the scratch ad: %s", kept)
	}
	if v, _ := eval.EvaluateAttr(kept, "V39", nil); v.String() != "39" {
		t.Errorf("the clone's v39 = %v", v)
	}
	if scratch.Index("v0") >= 0 || scratch.Len() != 40 {
		t.Errorf("the scratch ad after its reset: %s", scratch)
	}
}

// Ads made with room allocate once: an ad of known size, a merge of two,
// a scratch ad rebuilt, an attribute deleted.
func TestAdRoomAllocations(t *testing.T) {
	attrs := make([]ast.Attr, 75)
	for i := range attrs {
		attrs[i] = ast.Attr{Name: fmt.Sprintf("room_attr_%d", i), Value: ast.Int(int64(i))}
	}
	setAll := func(ad *eval.Ad, attrs []ast.Attr) {
		for _, a := range attrs {
			ad.Set(a.Name, a.Value)
		}
	}
	base := eval.NewAd()
	setAll(base, attrs[:60])
	scratch := eval.NewAdRoom(len(attrs))
	for _, tt := range []struct {
		name string
		max  float64
		f    func()
	}{
		{"NewAdRoom and Set", 3, func() { setAll(eval.NewAdRoom(len(attrs)), attrs) }},
		{"CloneRoom and Set", 3, func() { setAll(base.CloneRoom(15), attrs[50:]) }},
		{"Reset and Set", 0, func() { scratch.Reset(); setAll(scratch, attrs) }},
		{"Delete and Set", 0, func() { scratch.Delete(attrs[3].Name); scratch.Set(attrs[3].Name, attrs[3].Value) }},
	} {
		if got := testing.AllocsPerRun(100, tt.f); got > tt.max {
			t.Errorf("%s: %v allocations, want at most %v", tt.name, got, tt.max)
		}
	}
}
