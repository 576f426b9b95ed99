package dag

import (
	"slices"
	"testing"
)

// Depths: the longest path from a node without parents, as the
// dashboard's picture of a DAG layers it; a cycle is reported.
func TestDepths(t *testing.T) {
	for _, tc := range []struct {
		name    string
		parents [][]int
		want    []int
		ok      bool
	}{
		{"diamond", [][]int{nil, {0}, {0}, {1, 2}}, []int{0, 1, 1, 2}, true},
		{"shortcut", [][]int{nil, {0}, {0, 1}}, []int{0, 1, 2}, true},
		{"child listed first", [][]int{{1}, nil}, []int{1, 0}, true},
		{"two roots", [][]int{nil, nil, {1}}, []int{0, 0, 1}, true},
		{"cycle", [][]int{{1}, {0}}, nil, false},
	} {
		got, ok := Depths(len(tc.parents), func(i int) []int { return tc.parents[i] })
		if ok != tc.ok || ok && !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
