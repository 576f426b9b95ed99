package dag

// Depths gives each of n nodes its depth: the longest path to it from a
// node without parents (0). parents(i) lists node i's parents, each in
// [0, n). It reports false when the parents make a cycle. It walks the
// nodes in a topological order (Kahn's), so a DAG of any depth costs no
// stack: O(nodes + edges).
func Depths(n int, parents func(i int) []int) ([]int, bool) {
	children := make([][]int, n)
	waiting := make([]int, n)
	for c := range n {
		for _, p := range parents(c) {
			children[p] = append(children[p], c)
			waiting[c]++
		}
	}
	depth := make([]int, n)
	next := make([]int, 0, n)
	for i := range n {
		if waiting[i] == 0 {
			next = append(next, i)
		}
	}
	for k := 0; k < len(next); k++ {
		p := next[k]
		for _, c := range children[p] {
			depth[c] = max(depth[c], depth[p]+1)
			if waiting[c]--; waiting[c] == 0 {
				next = append(next, c)
			}
		}
	}
	return depth, len(next) == n
}
