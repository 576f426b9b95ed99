package eval

import "testing"

// The depth of an expression's tree, taken each time an expression is
// compiled (every job's ad at every activation), counts every kind of
// node and allocates nothing.
func TestTreeDepth(t *testing.T) {
	tests := []struct {
		src   string
		depth int
	}{
		{`1`, 1},
		{`-x`, 2},
		{`(a + b) * c`, 4},
		{`a ? b : (c[1] + d.e)`, 5},
		{`member(x, {1, 2, [y = z + 1]})`, 5},
		{`strcat("a", "b")`, 2},
	}
	for _, tc := range tests {
		e := mustExpr(t, tc.src)
		if got := treeDepth(e); got != tc.depth {
			t.Errorf("treeDepth(%s) = %d, want %d", tc.src, got, tc.depth)
		}
		if n := testing.AllocsPerRun(100, func() { treeDepth(e) }); n != 0 {
			t.Errorf("treeDepth(%s) allocates %v times", tc.src, n)
		}
	}
}
