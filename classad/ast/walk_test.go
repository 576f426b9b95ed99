package ast_test

import (
	"slices"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/parser"
)

// Children and EachChild give the same direct sub-expressions, in source
// order; a leaf has none, and asking costs nothing.
func TestChildren(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`x`, nil},
		{`1`, nil},
		{`-x`, []string{"x"}},
		{`a + b`, []string{"a", "b"}},
		{`a ? b : c`, []string{"a", "b", "c"}},
		{`(a)`, []string{"a"}},
		{`a[1]`, []string{"a", "1"}},
		{`a.b`, []string{"a"}},
		{`f(1, 2, 3, 4)`, []string{"1", "2", "3", "4"}},
		{`{1, x}`, []string{"1", "x"}},
		{`[p = 1; q = r; s = 2; u = 3]`, []string{"1", "r", "2", "3"}},
	}
	for _, tc := range tests {
		e, err := parser.ParseExpr(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		var got, each []string
		for _, c := range ast.Children(e) {
			got = append(got, ast.String(c))
		}
		ast.EachChild(e, func(c ast.Expr) { each = append(each, ast.String(c)) })
		if !slices.Equal(got, tc.want) || !slices.Equal(each, tc.want) {
			t.Errorf("%s: Children %q, EachChild %q, want %q", tc.src, got, each, tc.want)
		}
		if tc.want == nil {
			if ast.Children(e) != nil {
				t.Errorf("%s: Children of a leaf is not nil", tc.src)
			}
			if n := testing.AllocsPerRun(100, func() { ast.Children(e) }); n != 0 {
				t.Errorf("%s: Children of a leaf allocates %v times", tc.src, n)
			}
		}
	}
}
