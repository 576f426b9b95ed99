package eval_test

import (
	"fmt"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
)

// An ad made from attributes, with their names' hashes or without, is
// the ad Set would make of them one by one: the order of first
// definition, the first spelling, the last value, names looked up without
// case, scope keywords as attributes (HTCondor manual, "ClassAd Syntax").
func TestFromAttrs(t *testing.T) {
	lit := func(i int64) ast.Expr { return &ast.Literal{At: ast.NoPos, Kind: ast.IntLit, Int: i} }
	cases := map[string][]string{
		"small":       {"a", "B", "c"},
		"redefined":   {"a", "b", "A", "c", "B"},
		"scope names": {"My", "x", "TARGET", "parent"},
		"indexed":     {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "N3", "fresh_name_for_the_intern_table"},
	}
	for name, names := range cases {
		attrs := make([]ast.Attr, len(names))
		hashes := make([]uint32, len(names))
		for i, n := range names {
			attrs[i] = ast.Attr{At: ast.NoPos, Name: n, Value: lit(int64(i))}
			hashes[i] = ast.FoldHash(n)
		}
		want := eval.NewAd()
		for _, a := range attrs {
			want.Set(a.Name, a.Value)
		}
		for _, hashed := range []bool{false, true} {
			h := hashes
			if !hashed {
				h = nil
			}
			got := eval.FromAttrs(attrs, h)
			if got.String() != want.String() {
				t.Errorf("%s, hashed %v: got %s, want %s", name, hashed, got, want)
			}
			for i, n := range names {
				if got.Index(n) != want.Index(n) {
					t.Errorf("%s, hashed %v: Index(%q) = %d, want %d", name, hashed, n, got.Index(n), want.Index(n))
				}
				v, err := eval.EvaluateAttr(got, n, nil)
				w, _ := eval.EvaluateAttr(want, n, nil)
				if err != nil || v.String() != w.String() {
					t.Errorf("%s, hashed %v: attribute %d (%s) = %v, %v; want %v", name, hashed, i, n, v, err, w)
				}
			}
			got.Set("added", lit(99))
			if v, _ := eval.EvaluateAttr(got, "ADDED", nil); v.String() != "99" {
				t.Errorf("%s, hashed %v: an attribute set afterwards = %v", name, hashed, v)
			}
		}
	}
}

// UnmarshalJSON replaces everything the ad had.
func TestUnmarshalJSONReplaces(t *testing.T) {
	ad := eval.NewAd()
	for i := range 12 {
		ad.Set(fmt.Sprintf("old%d", i), &ast.Literal{At: ast.NoPos, Kind: ast.IntLit, Int: int64(i)})
	}
	if err := ad.UnmarshalJSON([]byte(`{"a": 1, "B": "/Expr(a + 1)/", "A": 5}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := ad.String(), `[ a = 5; B = a + 1 ]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if v, _ := eval.EvaluateAttr(ad, "b", nil); v.String() != "6" {
		t.Errorf("b = %v, want 6", v)
	}
	if ad.Index("old3") >= 0 {
		t.Error("an old attribute is left")
	}
	if err := ad.UnmarshalJSON([]byte(`{"a": }`)); err == nil || ad.String() != `[ a = 5; B = a + 1 ]` {
		t.Errorf("bad JSON: error %v, ad %s", err, ad)
	}
}
