package dashboard

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

// MaxDrawnNodes bounds the DAGs drawn node by node: a larger one is
// shown as counts of its nodes by depth and state.
const MaxDrawnNodes = 2000

// The DAG picture's geometry, in SVG units: a node is a box NodeW by
// NodeH; boxes are ColW apart in a layer and layers RowH apart.
const (
	NodeW  = 120
	NodeH  = 34
	ColW   = 140
	RowH   = 80
	margin = 10
)

// The states a node is coloured by.
const (
	StateDone     = "done"
	StateRunning  = "running"  // its job runs
	StateIdle     = "idle"     // its job is submitted and waits (or is held)
	StateScript   = "script"   // its PRE or POST script runs
	StateFailed   = "failed"   // failed for good
	StateFutile   = "futile"   // an ancestor failed: it will not run
	StateRemoved  = "removed"  // its job was removed (kite rm of it or of the DAG)
	StateNotReady = "notready" // waits for its parents (or its turn); in a finished DAG, never ran
)

// DAGSummary is one DAG in the list of a schedd's DAGs. Finished,
// Result (DAGResults) and ExitCode are its end, once it is over.
type DAGSummary struct {
	Schedd  string `json:"schedd"`
	ID      int64  `json:"id"`
	Owner   string `json:"owner"`
	File    string `json:"file"`
	Batch   string `json:"batch,omitempty"`
	Held    bool   `json:"held,omitempty"`
	Total   int64  `json:"total"`
	Done    int64  `json:"done"`
	Queued  int64  `json:"queued"`
	Failed  int64  `json:"failed"`
	Futile  int64  `json:"futile"`
	Unready int64  `json:"unready"`
	// Finished: the DAG is over (its ad has an ExitCode).
	Finished bool   `json:"finished,omitempty"`
	Result   string `json:"result,omitempty"`
	ExitCode int64  `json:"exit_code,omitempty"`
}

// DAGResults names a finished DAG's DAG_Status (dag.DAGOK ...), as the
// pages show it.
var DAGResults = map[int64]string{dag.DAGOK: "succeeded", dag.DAGError: "error", dag.DAGFailed: "failed",
	dag.DAGAborted: "aborted", dag.DAGRemoved: "removed"}

// DAGList is the DAGs page: every schedd's DAGs in its queue, and those
// it finished last (Finished set), newest first.
type DAGList struct {
	DAGs   []DAGSummary `json:"dags"`
	Errors []string     `json:"errors"`
}

// Summarize reads a DAG's list row from its ad.
func Summarize(schedd string, info *wire.DAGInfo) (DAGSummary, error) {
	ad, err := classad.ParseJSON(info.Ad)
	if err != nil {
		return DAGSummary{}, fmt.Errorf("the DAG's ad: %w", err)
	}
	n := func(name string) int64 { return int64(num(ad, name)) }
	sum := DAGSummary{
		Schedd: schedd, ID: n(attr.ClusterID), Owner: str(ad, attr.Owner), File: str(ad, attr.DAGFile),
		Batch: str(ad, attr.JobBatchName), Held: n(attr.JobStatus) == attr.Held,
		Total: n(attr.DAGNodesTotal), Done: n(attr.DAGNodesDone), Queued: n(attr.DAGNodesQueued),
		Failed: n(attr.DAGNodesFailed), Futile: n(attr.DAGNodesFutile), Unready: n(attr.DAGNodesUnready),
	}
	if _, over := ad.Lookup(attr.ExitCode); over {
		sum.Finished, sum.ExitCode = true, n(attr.ExitCode)
		sum.Result = cmp.Or(DAGResults[n(attr.DAGStatus)], fmt.Sprintf("DAG_Status %d", n(attr.DAGStatus)))
	}
	return sum, nil
}

// GraphNode is a node of a drawn DAG: its box's top-left corner.
type GraphNode struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Depth   int    `json:"depth"`
	X       int    `json:"x"`
	Y       int    `json:"y"`
	Cluster int64  `json:"cluster,omitempty"`
	Retries int    `json:"retries,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// LayerCount counts a layer's nodes by state (a DAG too large to draw);
// Deeper: the last layer of a DAG deeper than the layers the schedd
// counts (wire.DAGLayer), holding the deeper nodes too.
type LayerCount struct {
	Depth  int            `json:"depth"`
	States map[string]int `json:"states"`
	Deeper bool           `json:"deeper,omitempty"`
}

// DAGGraph is the DAG page: a DAG laid out in layers by depth (a node's
// longest path from a node without parents), parents above children.
type DAGGraph struct {
	DAGSummary
	// Nodes and Edges ([parent, child] indexes into Nodes) are the
	// picture, Width by Height; for a DAG of more than Limit nodes they
	// are empty and Layers counts the nodes instead.
	Nodes  []GraphNode    `json:"nodes"`
	Edges  [][2]int       `json:"edges"`
	Width  int            `json:"width"`
	Height int            `json:"height"`
	Layers []LayerCount   `json:"layers,omitempty"`
	States map[string]int `json:"states"`
	Limit  int            `json:"limit"`
	// Missing: the schedd sent no node of a DAG that has some, one that
	// finished before the last ones whose graphs it keeps.
	Missing bool `json:"missing,omitempty"`
}

// Graph lays a DAG out, or counts its layers when it has more than limit
// nodes (or the schedd counted them: wire.DAGQuery.MaxNodes). It fails
// on a node naming a parent that does not exist, or a cycle.
func Graph(schedd string, info *wire.DAGInfo, limit int) (DAGGraph, error) {
	sum, err := Summarize(schedd, info)
	if err != nil {
		return DAGGraph{}, err
	}
	g := DAGGraph{DAGSummary: sum, Nodes: []GraphNode{}, Edges: [][2]int{}, States: map[string]int{}, Limit: limit}
	if info.Layers != nil {
		g.Layers = fromSchedd(info.Layers, g.States)
		return g, nil
	}
	if len(info.Nodes) == 0 && sum.Total > 0 {
		g.Missing = true
		return g, nil
	}
	depth, err := depths(info.Nodes)
	if err != nil {
		return DAGGraph{}, err
	}
	for i := range info.Nodes {
		g.States[NodeState(&info.Nodes[i])]++
	}
	if len(info.Nodes) > limit {
		g.Layers = countLayers(info.Nodes, depth)
		return g, nil
	}
	g.layout(info.Nodes, depth)
	return g, nil
}

// NodeState is the colour a node is drawn in: a failed node whose job
// was removed is drawn removed.
func NodeState(n *wire.DAGNode) string {
	if n.Status == "STATUS_ERROR" && n.Return == dag.ReturnRemoved {
		return StateRemoved
	}
	return stateOf(n.Status, n.JobStatus == attr.Running)
}

// stateOf is the colour of a node of a status (STATUS_DONE ...) whose job
// runs or not.
func stateOf(status string, running bool) string {
	switch status {
	case "STATUS_DONE":
		return StateDone
	case "STATUS_ERROR":
		return StateFailed
	case "STATUS_FUTILE":
		return StateFutile
	case "STATUS_PRERUN", "STATUS_POSTRUN":
		return StateScript
	case "STATUS_SUBMITTED":
		if running {
			return StateRunning
		}
		return StateIdle
	}
	return StateNotReady
}

// fromSchedd turns the schedd's counts of a DAG's layers by status into
// counts by state, adding them to total.
func fromSchedd(in []wire.DAGLayer, total map[string]int) []LayerCount {
	out := make([]LayerCount, len(in))
	for i, l := range in {
		out[i] = LayerCount{Depth: l.Depth, States: map[string]int{}, Deeper: l.Deeper}
		for status, n := range l.Statuses {
			if status == "STATUS_SUBMITTED" {
				out[i].States[StateRunning] += l.Running
				n -= l.Running
			}
			if n > 0 {
				out[i].States[stateOf(status, false)] += n
			}
		}
		for k, n := range out[i].States {
			if n == 0 {
				delete(out[i].States, k)
			}
			total[k] += n
		}
	}
	return out
}

// depths gives each node its depth (dag.Depths), checking the parents
// the schedd sent.
func depths(nodes []wire.DAGNode) ([]int, error) {
	n := len(nodes)
	for c := range nodes {
		for _, p := range nodes[c].Parents {
			if p < 0 || p >= n {
				return nil, fmt.Errorf("node %s names parent %d of %d nodes", nodes[c].Name, p, n)
			}
		}
	}
	depth, ok := dag.Depths(n, func(i int) []int { return nodes[i].Parents })
	if !ok {
		return nil, fmt.Errorf("the DAG's edges make a cycle")
	}
	return depth, nil
}

func countLayers(nodes []wire.DAGNode, depth []int) []LayerCount {
	var layers []LayerCount
	for i := range nodes {
		for len(layers) <= depth[i] {
			layers = append(layers, LayerCount{Depth: len(layers), States: map[string]int{}})
		}
		layers[depth[i]].States[NodeState(&nodes[i])]++
	}
	return layers
}

// layout places each layer's nodes in a row, ordered by the mean place of
// their parents in the row above (ties by the order of the DAG file), and
// centres each row on the widest.
func (g *DAGGraph) layout(nodes []wire.DAGNode, depth []int) {
	var rows [][]int
	for i := range nodes {
		for len(rows) <= depth[i] {
			rows = append(rows, nil)
		}
		rows[depth[i]] = append(rows[depth[i]], i)
	}
	place := make([]float64, len(nodes))
	widest := 0
	for _, row := range rows {
		key := func(i int) float64 {
			if len(nodes[i].Parents) == 0 {
				return float64(i)
			}
			sum := 0.0
			for _, p := range nodes[i].Parents {
				sum += place[p]
			}
			return sum / float64(len(nodes[i].Parents))
		}
		keys := make(map[int]float64, len(row))
		for _, i := range row {
			keys[i] = key(i)
		}
		slices.SortStableFunc(row, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
		for k, i := range row {
			place[i] = float64(k)
		}
		widest = max(widest, len(row))
	}
	g.Nodes = make([]GraphNode, len(nodes))
	for d, row := range rows {
		off := (widest - len(row)) * ColW / 2
		for k, i := range row {
			n := &nodes[i]
			g.Nodes[i] = GraphNode{Name: n.Name, State: NodeState(n), Depth: d, X: margin + off + k*ColW, Y: margin + d*RowH,
				Cluster: n.Cluster, Retries: n.Retries, Detail: n.Detail}
		}
	}
	for c := range nodes {
		for _, p := range nodes[c].Parents {
			g.Edges = append(g.Edges, [2]int{p, c})
		}
	}
	g.Width = 2*margin + max(0, widest-1)*ColW + NodeW
	g.Height = 2*margin + max(0, len(rows)-1)*RowH + NodeH
}
