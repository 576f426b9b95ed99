package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

// specialDAG is a DAG with a PROVISIONER node P, whose job records "prov
// P" and waits at the gate, a SERVICE node S, whose job records "svc S"
// and runs until it is removed, and a chain A -> B of job.sh nodes.
func specialDAG(t *testing.T) string {
	t.Helper()
	files := map[string]string{
		"special.dag": "PROVISIONER P prov.sub\nSERVICE S svc.sub\nJOB A job.sub\nJOB B job.sub\nPARENT A CHILD B\n",
	}
	dir := dagDir(t, files)
	more := map[string]string{
		"gate.sh":  gateScripts(dir)["gate.sh"],
		"prov.sub": "executable = " + filepath.Join(dir, "gate.sh") + "\narguments = prov $(JOB)\nshould_transfer_files = IF_NEEDED\nqueue\n",
		"svc.sh":   "#!/bin/sh\necho \"svc $1\" >> " + filepath.Join(dir, "ran.txt") + "\nwhile :; do sleep 0.05; done\n",
		"svc.sub":  "executable = " + filepath.Join(dir, "svc.sh") + "\narguments = $(JOB)\nshould_transfer_files = IF_NEEDED\nqueue\n",
	}
	for name, text := range more {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// PROVISIONER and SERVICE nodes (the HTCondor manual,
// dagman-advance-functionality.rst, "PROVISIONER Node" and "SERVICE
// Node"): both start first; the other nodes wait until the provisioner's
// job sets ProvisionerState to 2 (PROVISIONING_COMPLETE, here by kite
// qedit), which survives a restart of the schedd; the DAG waits for the
// provisioner's job to end but not for the SERVICE node, whose job is
// removed when the DAG is over without failing it.
func TestDAGProvisionerAndService(t *testing.T) {
	pl, restart := restartablePoolSlots(t, 4)
	dir := specialDAG(t)
	id := pl.submitDAG(dir, "special.dag", "")
	waitLines(t, dir, "prov P", "svc S")
	_, nodes := pl.dagInfo(id)
	if nodes[2].Name != "A" || nodes[2].Status != "STATUS_NOT_READY" || nodes[2].Cluster != 0 {
		t.Fatalf("A started before the provisioner was ready: %+v", nodes)
	}
	prov, svc := strconv.FormatInt(nodes[0].Cluster, 10)+".0", strconv.FormatInt(nodes[1].Cluster, 10)+".0"
	var res wire.ActResult
	edit := wire.Edit{JobSelection: wire.JobSelection{IDs: []string{prov}}, Attrs: map[string]string{"ProvisionerState": "2"}}
	if err := pl.user.Call(context.Background(), "POST", wire.PathEdit, edit, &res); err != nil {
		t.Fatalf("qedit ProvisionerState: %v", err)
	}
	restart(func() {}) // readiness survives (the DAG's record keeps it; the job's ad says it too)
	waitLines(t, dir, "A", "B")
	if ad, _ := pl.dagInfo(id); ad != nil {
		if _, over := ad.Lookup(attr.ExitCode); over {
			t.Fatalf("the DAG ended while its provisioner's job ran: %v", ad)
		}
	}
	openGate(t, dir)
	ad, nodes := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGStatus) != 0 || intAttr(t, ad, attr.DAGNodesTotal) != 3 {
		t.Errorf("the DAG's ad: %v", ad)
	}
	if status(pl.job(svc)) != attr.Removed || status(pl.job(prov)) != attr.Completed {
		t.Errorf("the service's job (removed) %v, the provisioner's (completed) %v; nodes %+v", pl.job(svc), pl.job(prov), nodes)
	}
}

// A provisioner whose job ends before it says it is ready stops the DAG
// (the manual: "DAGMan will exit immediately"): no other node runs.
func TestDAGProvisionerNeverReady(t *testing.T) {
	pl := newPool(t, 4, "a")
	dir := specialDAG(t)
	openGate(t, dir)
	id := pl.submitDAG(dir, "special.dag", "")
	ad, nodes := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 1 || nodes[0].Status != "STATUS_ERROR" {
		t.Errorf("the DAG: %v, nodes %+v", ad, nodes)
	}
	for _, l := range lines(t, dir) {
		if l == "A" || l == "B" {
			t.Errorf("node %s ran though the provisioner never was ready", l)
		}
	}
}

// A PROVISIONER node runs one job (the HTCondor manual,
// dagman-advance-functionality.rst "PROVISIONER Node": "If more than one
// job is detected at the node's job submission time DAGMan will exit
// without writing a Rescue file or running the FINAL node"; DAGMan's
// ProvisionerState comes from that one job). A provisioner whose submit
// file queues two jobs ends the DAG at once with exit code 1: no other
// node runs, the FINAL node neither, and no rescue DAG is written. Kite
// refuses the submit itself, so no job of the provisioner is left in the
// queue (DAGMan submits them, then exits).
func TestDAGProvisionerQueuesTwo(t *testing.T) {
	pl := newPool(t, 4, "a")
	dir := dagDir(t, map[string]string{
		"prov.dag": "PROVISIONER P two.sub\nJOB A job.sub\nJOB B job.sub\nPARENT A CHILD B\nFINAL F job.sub\n",
		"two.sub":  "executable = /bin/true\nqueue 2\n",
	})
	ad, nodes := pl.waitDAG(pl.submitDAG(dir, "prov.dag", ""))
	if intAttr(t, ad, attr.ExitCode) != 1 {
		t.Errorf("the DAG's exit code %d, want 1: %v", intAttr(t, ad, attr.ExitCode), ad)
	}
	byName := map[string]wire.DAGNode{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	if p := byName["P"]; p.Status != "STATUS_ERROR" || p.Cluster != 0 || !strings.Contains(p.Detail, "a PROVISIONER node runs one job, not 2") {
		t.Errorf("the provisioner node: %+v, want failed, no job queued, the reason", p)
	}
	for _, name := range []string{"A", "B", "F"} {
		if n := byName[name]; n.Status != "STATUS_NOT_READY" || n.Cluster != 0 {
			t.Errorf("node %s: %+v, want never started", name, n)
		}
	}
	if got := ran(t, dir); len(got) != 0 {
		t.Errorf("nodes ran: %v, want none", got)
	}
	if _, err := os.Stat(dag.RescueName(filepath.Join(dir, "prov.dag"), 1)); !os.IsNotExist(err) {
		t.Errorf("a rescue DAG was written (%v), want none", err)
	}
}

// Save point files (the HTCondor manual, dagman-completion.rst "DAG Save
// Point Files"): as a node with SAVE_POINT_FILE first starts, the DAG's
// state is written in the rescue DAG's format, in save_files/ for a bare
// name (the default NODE-DAGFILE.save) or at a path from the DAG's
// directory; an older file of the name is renamed .old. A DAG submitted
// with a save file (-load_save) runs from there.
func TestDAGSavePoints(t *testing.T) {
	dir := dagDir(t, map[string]string{
		"save.dag": "JOB A job.sub\nJOB B job.sub\nJOB C job.sub\nPARENT A CHILD B\nPARENT B CHILD C\n" +
			"SAVE_POINT_FILE B\nSAVE_POINT_FILE C mine/c.save\n",
	})
	pl := newPool(t, 2, "a")
	ad, _ := pl.waitDAG(pl.submitDAG(dir, "save.dag", ""))
	if intAttr(t, ad, attr.ExitCode) != 0 {
		t.Fatalf("the DAG: %v", ad)
	}
	atB := filepath.Join(dir, "save_files", "B-save.dag.save")
	atC := filepath.Join(dir, "mine", "c.save")
	// the files are written once their transactions commit: wait for them
	waitFile(t, atB, regexp.MustCompile(`(?s)\A# Rescue DAG file.*\n\nDONE A\n\z`))
	waitFile(t, atC, regexp.MustCompile(`(?s)\A# Rescue DAG file.*\n\nDONE A\nDONE B\n\z`))
	ad, _ = pl.waitDAG(pl.submitDAG(dir, "save.dag", atB))
	if got := strings.Join(ran(t, dir), " "); intAttr(t, ad, attr.ExitCode) != 0 || got != "A B C B C" {
		t.Errorf("run from B's save point: exit %d, ran %q, want B and C again", intAttr(t, ad, attr.ExitCode), got)
	}
	waitFile(t, atB+".old", regexp.MustCompile(`\n\nDONE A\n\z`)) // the first run's
}
