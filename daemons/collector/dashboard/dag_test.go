package dashboard

import (
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// dagAd is a DAG's ad as the schedd sends it.
func dagAd(t *testing.T, id, total int) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		attr.ClusterID: id, attr.Owner: "alice", attr.DAGFile: "/home/alice/diamond.dag",
		attr.JobStatus: attr.Running, attr.DAGNodesTotal: total, attr.DAGNodesDone: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// diamond is the DAGMan manual's diamond DAG (automated-workflows/
// dagman-introduction.rst, "Example: Diamond DAG"): A before B and C,
// both before D; A done, B running, C idle, D waiting.
func diamond(t *testing.T) *wire.DAGInfo {
	return &wire.DAGInfo{Ad: dagAd(t, 7, 4), Nodes: []wire.DAGNode{
		{Name: "A", Status: "STATUS_DONE", Cluster: 8},
		{Name: "B", Status: "STATUS_SUBMITTED", Cluster: 9, Parents: []int{0}, JobStatus: attr.Running},
		{Name: "C", Status: "STATUS_SUBMITTED", Cluster: 10, Parents: []int{0}, JobStatus: attr.Idle},
		{Name: "D", Status: "STATUS_NOT_READY", Parents: []int{1, 2}},
	}}
}

// finishedDiamond is the diamond DAG over: A done, B's job removed, C
// failed, so D never ran (futile); its ad says so (DAG_Status 2, a node
// failed; ExitCode 1).
func finishedDiamond(t *testing.T) *wire.DAGInfo {
	t.Helper()
	ad, err := json.Marshal(map[string]any{
		attr.ClusterID: 7, attr.Owner: "alice", attr.DAGFile: "/home/alice/diamond.dag",
		attr.JobStatus: attr.Completed, attr.DAGNodesTotal: 4, attr.DAGNodesDone: 1, attr.DAGNodesFailed: 2,
		attr.DAGNodesFutile: 1, attr.DAGStatus: dag.DAGFailed, attr.ExitCode: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &wire.DAGInfo{Ad: ad, Nodes: []wire.DAGNode{
		{Name: "A", Status: "STATUS_DONE", Cluster: 8},
		{Name: "B", Status: "STATUS_ERROR", Cluster: 9, Parents: []int{0}, Return: dag.ReturnRemoved, Detail: "Job failed"},
		{Name: "C", Status: "STATUS_ERROR", Cluster: 10, Parents: []int{0}, Return: 1, Detail: "Job failed"},
		{Name: "D", Status: "STATUS_FUTILE", Parents: []int{1, 2}, Detail: "Had an ancestor node fail"},
	}}
}

// TestGraphFinishedGolden: a finished DAG is drawn with each node's final
// state (a failed node whose job was removed as removed) and its end.
func TestGraphFinishedGolden(t *testing.T) {
	g, err := Graph("schedd@h", finishedDiamond(t), MaxDrawnNodes)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "dag_diamond_finished.json", g)
}

// TestGraphNotKept: a finished DAG whose nodes the schedd no longer keeps
// (its ad from the history alone) is said to be missing, not drawn empty.
func TestGraphNotKept(t *testing.T) {
	info := finishedDiamond(t)
	info.Nodes = []wire.DAGNode{}
	g, err := Graph("schedd@h", info, MaxDrawnNodes)
	if err != nil || !g.Missing || !g.Finished || len(g.Nodes) != 0 {
		t.Errorf("graph %+v, %v: want missing", g, err)
	}
}

func TestGraphDiamondGolden(t *testing.T) {
	g, err := Graph("schedd@h", diamond(t), MaxDrawnNodes)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "dag_diamond.json", g)
}

// TestGraphTooLarge: a DAG over the limit is counted by depth and state,
// not drawn.
func TestGraphTooLarge(t *testing.T) {
	g, err := Graph("schedd@h", diamond(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "dag_diamond_counts.json", g)
}

// TestGraphFromScheddLayers: a DAG the schedd counted by depth and status
// (wire.DAGQuery.MaxNodes) is shown by state: its submitted nodes split
// into running and idle.
func TestGraphFromScheddLayers(t *testing.T) {
	info := &wire.DAGInfo{Ad: dagAd(t, 7, 5003), Layers: []wire.DAGLayer{
		{Depth: 0, Statuses: map[string]int{"STATUS_DONE": 1}},
		{Depth: 1, Statuses: map[string]int{"STATUS_SUBMITTED": 3000, "STATUS_PRERUN": 1, "STATUS_POSTRUN": 1}, Running: 2998},
		{Depth: 2, Statuses: map[string]int{"STATUS_SUBMITTED": 2, "STATUS_NOT_READY": 1999, "STATUS_READY": 1}, Deeper: true},
	}}
	g, err := Graph("schedd@h", info, MaxDrawnNodes)
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]int{
		{StateDone: 1},
		{StateRunning: 2998, StateIdle: 2, StateScript: 2},
		{StateIdle: 2, StateNotReady: 2000},
	}
	for i, l := range g.Layers {
		if l.Depth != i || !maps.Equal(l.States, want[i]) {
			t.Errorf("layer %d: %+v, want %v", i, l, want[i])
		}
	}
	total := map[string]int{StateDone: 1, StateRunning: 2998, StateIdle: 4, StateScript: 2, StateNotReady: 2000}
	if len(g.Layers) != 3 || len(g.Nodes) != 0 || !maps.Equal(g.States, total) || !g.Layers[2].Deeper || g.Layers[1].Deeper {
		t.Errorf("graph %+v, want states %v", g, total)
	}
}

// TestGraphLayers: depth is the longest path from a node without parents,
// and the rows keep children under their parents.
func TestGraphLayers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		parents [][]int
		depths  []int
		xs      []int // node boxes' X
	}{
		{"chain", [][]int{nil, {0}, {1}}, []int{0, 1, 2}, []int{10, 10, 10}},
		{"shortcut", [][]int{nil, {0}, {0, 1}}, []int{0, 1, 2}, []int{10, 10, 10}},
		{"two roots crossed", [][]int{nil, nil, {1}, {0}}, []int{0, 0, 1, 1}, []int{10, 150, 150, 10}},
		{"fan-out", [][]int{nil, {0}, {0}, {0}}, []int{0, 1, 1, 1}, []int{150, 10, 150, 290}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := &wire.DAGInfo{Ad: dagAd(t, 1, len(tc.parents))}
			for i, p := range tc.parents {
				info.Nodes = append(info.Nodes, wire.DAGNode{Name: string(rune('A' + i)), Status: "STATUS_NOT_READY", Parents: p})
			}
			g, err := Graph("s", info, MaxDrawnNodes)
			if err != nil {
				t.Fatal(err)
			}
			for i, n := range g.Nodes {
				if n.Depth != tc.depths[i] || n.X != tc.xs[i] || n.Y != 10+tc.depths[i]*RowH {
					t.Errorf("node %s at depth %d (%d, %d), want depth %d x %d", n.Name, n.Depth, n.X, n.Y, tc.depths[i], tc.xs[i])
				}
			}
		})
	}
}

// TestGraphBadEdges: a parent out of range or a cycle is an error, not a
// picture.
func TestGraphBadEdges(t *testing.T) {
	for _, tc := range []struct {
		parents [][]int
		want    string
	}{
		{[][]int{nil, {5}}, "names parent 5"},
		{[][]int{{1}, {0}}, "cycle"},
	} {
		info := &wire.DAGInfo{Ad: dagAd(t, 1, 2)}
		for i, p := range tc.parents {
			info.Nodes = append(info.Nodes, wire.DAGNode{Name: string(rune('A' + i)), Parents: p})
		}
		if _, err := Graph("s", info, MaxDrawnNodes); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.parents, err, tc.want)
		}
	}
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, got)
	}
}
