package schedd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// submitDAGText submits a DAG file's text as alice, from dir.
func (h *harness) submitDAGText(dir, text string) int64 {
	h.t.Helper()
	c := h.client("alice", auth.Write)
	file := writeFile(h.t, dir, "flow.dag", text)
	var nc wire.NewCluster
	if err := c.Call(context.Background(), "POST", wire.PathNewCluster, nil, &nc); err != nil {
		h.t.Fatal(err)
	}
	var res wire.SubmitResult
	body := wire.DAGSubmit{File: file, Files: map[string]string{file: text}}
	if err := c.Call(context.Background(), "POST", wire.PathSubmitDAG+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res); err != nil {
		h.t.Fatal(err)
	}
	return res.Cluster
}

// dags asks the schedd for DAGs.
func (h *harness) dags(q wire.DAGQuery) []wire.DAGInfo {
	h.t.Helper()
	var out []wire.DAGInfo
	if err := h.client("viewer", auth.Read).Call(context.Background(), "POST", wire.PathDAGs, q, &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// waitFinished waits until a DAG is over and retired.
func (h *harness) waitFinished(id int64) {
	h.t.Helper()
	eventually(h.t, fmt.Sprintf("DAG %d to finish", id), func() bool {
		running := h.dags(wire.DAGQuery{IDs: []int64{id}})
		return len(running) == 0
	})
}

// finishedDiamond is the manual's diamond DAG (dagman-introduction.rst,
// "Example: Diamond DAG") run on a schedd without machines: A marked
// DONE, B's submit file missing (its submit fails), C a NOOP node, so D is
// futile.
const finishedDiamond = "JOB A a.sub DONE\nJOB B missing.sub\nJOB C c.sub NOOP\nJOB D d.sub NOOP\n" +
	"PARENT A CHILD B C\nPARENT B C CHILD D\n"

// graphOf renders a DAG's nodes as "name status parents" lines.
func graphOf(nodes []wire.DAGNode) string {
	var b strings.Builder
	for _, n := range nodes {
		fmt.Fprintf(&b, "%s %s %v\n", n.Name, n.Status, n.Parents)
	}
	return b.String()
}

// A finished DAG's graph is kept: the DAG query (Graph, Finished) answers
// it after the DAG left the live store, from memory and, after a restart,
// from the record its retirement wrote; the recently finished DAGs are
// listed with their final status (the HTCondor manual,
// dagman-interaction.rst "DAG Monitoring": the DAGMan job's final ad).
func TestDagFinishedGraph(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	h := startSchedd(t, p, cfg)
	id := h.submitDAGText(t.TempDir(), finishedDiamond)
	h.waitFinished(id)
	want := "A STATUS_DONE []\nB STATUS_ERROR [0]\nC STATUS_DONE [0]\nD STATUS_FUTILE [1 2]\n"
	q := wire.DAGQuery{IDs: []int64{id}, Finished: true, Graph: true, MaxNodes: 2000}
	check := func(when string) {
		t.Helper()
		got := h.dags(q)
		if len(got) != 1 || graphOf(got[0].Nodes) != want {
			t.Fatalf("%s: the finished DAG's graph %+v, want\n%s", when, got, want)
		}
		if b := got[0].Nodes[1]; b.Return != -1001 || !strings.Contains(b.Detail, "missing.sub") {
			t.Errorf("%s: node B %+v, want its submit failure", when, b)
		}
		ad, err := classad.ParseJSON(got[0].Ad)
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := classad.EvalInt(ad, attr.DAGStatus); st != 2 {
			t.Errorf("%s: DAG_Status %d, want 2 (a node failed)", when, st)
		}
		list := h.dags(wire.DAGQuery{Finished: true, AdsOnly: true})
		if len(list) != 1 || list[0].Nodes != nil || !strings.Contains(string(list[0].Ad), `"ExitCode":1`) {
			t.Errorf("%s: the recently finished DAGs %+v", when, list)
		}
		if small := h.dags(wire.DAGQuery{IDs: []int64{id}, Finished: true, Graph: true, MaxNodes: 3}); len(small) != 1 ||
			len(small[0].Nodes) != 0 || len(small[0].Layers) != 3 || small[0].Layers[2].Statuses["STATUS_FUTILE"] != 1 {
			t.Errorf("%s: over MaxNodes, the DAG %+v, want counted in 3 layers", when, small)
		}
	}
	check("from memory")
	h.stop()
	h = startSchedd(t, p, cfg)
	check("after a restart")
	if running := h.dags(wire.DAGQuery{}); len(running) != 0 {
		t.Errorf("the running DAGs: %+v, want none", running)
	}
}

// A finished DAG of more nodes than a record keeps one by one is kept
// counted by depth and status, and a deep one in at most maxDAGLayers
// layers: neither its record nor the answer grows with it.
func TestDagFinishedLargeBounded(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	h := startSchedd(t, p, cfg)
	var b strings.Builder
	const chain = maxDAGLayers + 500
	for i := range chain {
		fmt.Fprintf(&b, "JOB N%d n.sub DONE\n", i)
		if i > 0 {
			fmt.Fprintf(&b, "PARENT N%d CHILD N%d\n", i-1, i)
		}
	}
	fmt.Fprintf(&b, "JOB Z z.sub NOOP\nPARENT N%d CHILD Z\n", chain-1)
	id := h.submitDAGText(t.TempDir(), b.String())
	h.waitFinished(id)
	h.stop()
	h = startSchedd(t, p, cfg)
	for _, q := range []wire.DAGQuery{
		{IDs: []int64{id}, Finished: true, Graph: true, MaxNodes: 2000},
		{IDs: []int64{id}, Finished: true},
	} {
		got := h.dags(q)
		if len(got) != 1 || len(got[0].Nodes) != 0 || len(got[0].Layers) != maxDAGLayers {
			t.Fatalf("%+v: %d DAG(s), want one in %d layers", q, len(got), maxDAGLayers)
		}
		last := got[0].Layers[maxDAGLayers-1]
		if !last.Deeper || last.Statuses["STATUS_DONE"] != chain+1-(maxDAGLayers-1) {
			t.Errorf("the last layer %+v, want the %d deepest nodes", last, chain+1-(maxDAGLayers-1))
		}
	}
	size := 0
	if err := h.s.q.Aux(finGraphPrefix, func(_ string, v []byte) error { size += len(v); return nil }); err != nil {
		t.Fatal(err)
	}
	if size == 0 || size > 64<<10 {
		t.Errorf("the finished DAG's graph record is %d bytes, want under 64 KiB", size)
	}
}

// The store keeps the last dagKeepFinished finished DAGs' records: a DAG
// that retires deletes the oldest, after a restart too; the list is
// newest first.
func TestDagFinishedKeepsLast(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	var ids []int64
	retire := func(n int) {
		for range n {
			id := h.submitDAGText(dir, "JOB A a.sub NOOP\n")
			h.waitFinished(id)
			ids = append(ids, id)
		}
		var kept []int64
		stored := func() bool { // the last retirement commits after the DAG left memory's running ones
			refs, err := h.s.finishedRefs()
			if err != nil {
				t.Fatal(err)
			}
			kept = kept[:0]
			for _, r := range refs {
				kept = append(kept, r.id)
			}
			return slices.Contains(kept, ids[len(ids)-1])
		}
		eventually(t, "the last DAG's record to commit", stored)
		if want := ids[max(0, len(ids)-dagKeepFinished):]; !slices.Equal(kept, want) {
			t.Errorf("the store keeps DAGs %v, want the last %d of %v", kept, dagKeepFinished, ids)
		}
	}
	retire(dagKeepFinished + 2)
	h.stop()
	h = startSchedd(t, p, cfg)
	retire(2)
	list := h.dags(wire.DAGQuery{Finished: true, AdsOnly: true})
	if len(list) != dagKeepFinished || !strings.Contains(string(list[0].Ad), fmt.Sprintf(`"ClusterId":%d,`, ids[len(ids)-1])) {
		t.Errorf("%d finished DAGs listed, the first %s; want %d, newest first", len(list), list[0].Ad, dagKeepFinished)
	}
	// memory keeps the last dagKeepFinished too: the oldest is in the
	// history alone, without its nodes
	if got := h.dags(wire.DAGQuery{IDs: []int64{ids[0]}, Finished: true}); len(got) != 1 || len(got[0].Nodes) != 0 {
		t.Errorf("the oldest DAG, from the history: %+v", got)
	}
}

// A chain of NOOP nodes runs to its end: a NOOP node is done as it
// starts, and its children start next (the HTCondor manual,
// dagman-introduction.rst, JOB's NOOP keyword: the node's job is not
// submitted, and the node succeeds).
func TestDagNoopChain(t *testing.T) {
	p := pooltest.New(t)
	h := startSchedd(t, p, testConfig(t))
	id := h.submitDAGText(t.TempDir(), "JOB A a.sub NOOP\nJOB B b.sub NOOP\nJOB C c.sub NOOP\nPARENT A CHILD B\nPARENT B CHILD C\n")
	h.waitFinished(id)
	got := h.dags(wire.DAGQuery{IDs: []int64{id}, Finished: true})
	if len(got) != 1 || !strings.Contains(string(got[0].Ad), `"DAG_NodesDone":3`) {
		t.Errorf("the NOOP chain: %+v, want its three nodes done", got)
	}
}

// The record of a finished DAG of a million nodes is as small as one of
// a few thousand: a wide one (a fan-out) and a deep one (a chain) are
// kept as at most maxDAGLayers layers of counts.
func TestDagFinishedRecordMillionNodes(t *testing.T) {
	const n = 1_000_000
	for _, shape := range []struct {
		name   string
		parent func(i int) []int
		layers int
	}{
		{"fan-out", func(i int) []int { return []int{0} }, 2},
		{"chain", func(i int) []int { return []int{i - 1} }, maxDAGLayers},
	} {
		t.Run(shape.name, func(t *testing.T) {
			d := &dag.DAG{Nodes: make([]*dag.Node, n), Final: -1, Provisioner: -1}
			for i := range d.Nodes {
				d.Nodes[i] = &dag.Node{Name: "N" + strconv.Itoa(i)}
				if i > 0 {
					d.Nodes[i].Parents = shape.parent(i)
				}
			}
			st := &dagState{rec: dagRecord{ID: 1, DAG: d}, run: &dag.Run{DAG: d, Nodes: make([]dag.NodeState, n)}}
			for i := range st.run.Nodes {
				st.run.Nodes[i].Status = dag.Done
			}
			g := finishedGraphOf(st)
			b, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, l := range g.wireLayers() {
				total += l.Statuses["STATUS_DONE"]
			}
			if len(g.Nodes) != 0 || len(g.Layers) != shape.layers || total != n || len(b) > 64<<10 {
				t.Errorf("%d nodes, %d layers counting %d, %d bytes: want %d layers counting %d in under 64 KiB",
					len(g.Nodes), len(g.Layers), total, len(b), shape.layers, n)
			}
		})
	}
}
