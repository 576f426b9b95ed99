package dag

import (
	"slices"
	"strings"
)

// check refuses a DAG that cannot run: one without nodes, a node with
// no submit description, and a cycle (named by its nodes).
func (d *DAG) check() error {
	if len(d.Nodes) == 0 {
		return ErrorList{{Pos: Pos{File: d.File}, Msg: "the DAG has no nodes"}}
	}
	if cycle := d.cycle(); cycle != nil {
		names := make([]string, len(cycle))
		for i, n := range cycle {
			names[i] = d.Nodes[n].Name
		}
		return ErrorList{{Pos: d.Nodes[cycle[0]].Pos, Msg: "the DAG has a cycle: " + strings.Join(names, " -> ")}}
	}
	return nil
}

// cycle returns the nodes of a cycle, the first repeated at the end, or
// nil when there is none. It walks the parents of every node depth first
// without recursion, so that a chain of a million nodes is fine.
func (d *DAG) cycle() []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(d.Nodes))
	type frame struct{ node, next int }
	var stack []frame
	parents := func(n int) []int {
		nd := d.Nodes[n]
		if len(nd.Weak) == 0 {
			return nd.Parents
		}
		return append(slices.Clip(nd.Parents), nd.Weak...)
	}
	for root := range d.Nodes {
		if color[root] != white {
			continue
		}
		stack = append(stack[:0], frame{root, 0})
		color[root] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ps := parents(top.node)
			if top.next == len(ps) {
				color[top.node] = black
				stack = stack[:len(stack)-1]
				continue
			}
			p := ps[top.next]
			top.next++
			switch color[p] {
			case white:
				color[p] = grey
				stack = append(stack, frame{p, 0})
			case grey: // p is on the stack: the cycle is from p up to here
				var cyc []int
				for i := len(stack) - 1; i >= 0; i-- {
					cyc = append(cyc, stack[i].node)
					if stack[i].node == p {
						break
					}
				}
				// each frame's node is a parent of the one below it:
				// cyc runs parent -> child. It starts at its first node
				// in file order.
				first := slices.Index(cyc, slices.Min(cyc))
				cyc = append(cyc[first:], cyc[:first]...)
				return append(cyc, cyc[0])
			}
		}
	}
	return nil
}
