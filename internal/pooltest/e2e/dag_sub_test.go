package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

// A SUBDAG EXTERNAL node runs a whole DAG as its job, and succeeds when
// that DAG does (the HTCondor manual, dagman-using-other-dags.rst "A DAG
// Within a DAG Is a SUBDAG"). Its rescue semantics are DAGMan's
// ("SUBDAGs and Rescue"): the nested DAG that fails writes its own rescue
// DAG and fails its node; the outer DAG run again from its rescue DAG
// submits the node again, whose nested DAG applies its newest rescue DAG,
// so that only what failed runs again. The nested DAG's paths start in
// the node's DIR ("SUBDAG Working Directory").
func TestDAGSubDAG(t *testing.T) {
	dir := dagDir(t, map[string]string{
		"outer.dag": "JOB A job.sub\nSUBDAG EXTERNAL S sub/inner.dag\nJOB C job.sub\nPARENT A CHILD S\nPARENT S CHILD C\n",
		"inner.dag": "JOB X job.sub\nJOB Y job.sub\nVARS Y rc=\"1\"\nPARENT X CHILD Y\n",
	})
	pl := newPool(t, 2, "a")
	// The nested DAG is sub/inner.dag; without DIR its paths start in the
	// outer DAG's directory: its job.sub is dir's, not sub's.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "inner.dag"), filepath.Join(sub, "inner.dag")); err != nil {
		t.Fatal(err)
	}
	id := pl.submitDAG(dir, "outer.dag", "")
	ad, nodes := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 1 || nodes[1].Status != "STATUS_ERROR" || nodes[1].Return != 1 || nodes[2].Status != "STATUS_FUTILE" {
		t.Fatalf("outer DAG with a failing nested DAG: %v %+v", ad, nodes)
	}
	inner, innerNodes := pl.dagInfo(nodes[1].Cluster)
	if intAttr(t, inner, attr.DAGManJobID) != id || str(inner, attr.DAGNodeName) != "S" || intAttr(t, inner, attr.ExitCode) != 1 ||
		innerNodes[0].Status != "STATUS_DONE" || innerNodes[1].Status != "STATUS_ERROR" {
		t.Fatalf("the nested DAG: %v %+v", inner, innerNodes)
	}
	for _, f := range []string{"outer.dag.rescue001", "sub/inner.dag.rescue001"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("no rescue DAG: %v", err)
		}
	}

	// Fixed, the outer DAG runs again from its rescue DAG: A and X do not
	// run again, Y and C do.
	if err := os.WriteFile(filepath.Join(sub, "inner.dag"), []byte("JOB X job.sub\nJOB Y job.sub\nPARENT X CHILD Y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id = pl.submitDAG(dir, "outer.dag", filepath.Join(dir, dag.RescueName("outer.dag", 1)))
	ad, _ = pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGNodesDone) != 3 {
		t.Fatalf("the outer DAG from its rescue DAG: %v", ad)
	}
	count := map[string]int{}
	for _, n := range ran(t, dir) {
		count[n]++
	}
	if want := map[string]int{"A": 1, "X": 1, "Y": 2, "C": 1}; !mapsEqual(count, want) {
		t.Errorf("runs %v, want %v", count, want)
	}
}

// Removing the outer DAG removes its nested DAGs (condor_rm of the DAGMan
// job removes its node jobs, nested DAGMan jobs among them:
// dagman-interaction.rst "Removing a DAG").
func TestDAGSubDAGRemoved(t *testing.T) {
	dir := dagDir(t, map[string]string{
		"slow.sub":  "executable = /bin/sleep\narguments = 60\nshould_transfer_files = IF_NEEDED\nqueue\n",
		"outer.dag": "SUBDAG EXTERNAL S inner.dag\n",
		"inner.dag": "JOB Z slow.sub\n",
	})
	pl := newPool(t, 2, "a")
	id := pl.submitDAG(dir, "outer.dag", "")
	innerID := waitNodeSubmitted(t, pl, id, 0)
	waitNodeSubmitted(t, pl, innerID, 0)
	var res wire.ActResult
	in := wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{strconv.FormatInt(id, 10)}}}
	if err := pl.user.Call(context.Background(), "POST", wire.PathAct, in, &res); err != nil || res.DAGs != 1 {
		t.Fatalf("rm: %+v %v", res, err)
	}
	ad, _ := pl.waitDAG(id)
	inner, _ := pl.waitDAG(innerID)
	if intAttr(t, ad, attr.DAGStatus) != dag.DAGRemoved || intAttr(t, inner, attr.DAGStatus) != dag.DAGRemoved {
		t.Errorf("outer %v; nested %v", ad, inner)
	}
}

// waitNodeSubmitted waits until node i of a DAG has its job (or nested
// DAG) and returns its id.
func waitNodeSubmitted(t *testing.T, pl *pool, id int64, i int) int64 {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(20 * time.Second); ; <-tick.C {
		if _, nodes := pl.dagInfo(id); nodes[i].Cluster != 0 {
			return nodes[i].Cluster
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %d of DAG %d was not submitted", i, id)
		}
	}
}
