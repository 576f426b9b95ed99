package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// gateScripts are a node job and a PRE script that record their start in
// ran.txt ("<what> <node>") and then wait until the file gate exists.
func gateScripts(dir string) map[string]string {
	wait := "while [ ! -e " + filepath.Join(dir, "gate") + " ]; do sleep 0.02; done\n"
	rec := "echo \"$1 $2\" >> " + filepath.Join(dir, "ran.txt") + "\n"
	return map[string]string{
		"gate.sh":  "#!/bin/sh\n" + rec + wait,
		"gate.sub": "executable = " + filepath.Join(dir, "gate.sh") + "\narguments = job $(JOB)\nshould_transfer_files = IF_NEEDED\nqueue\n",
	}
}

// lines returns ran.txt's lines.
func lines(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ran.txt"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// waitLines waits until ran.txt holds every one of want.
func waitLines(t *testing.T, dir string, want ...string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("ran.txt to hold all of %q", want), func() (string, bool) {
		got := lines(t, dir)
		return fmt.Sprint(got), !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(got, w) })
	})
}

// openGate opens the gate the scripts wait at.
func openGate(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// kite hold of a DAG suspends it and kite release resumes it, as
// condor_hold and condor_release of the DAGMan job do (the HTCondor
// manual, dagman-interaction.rst "Suspending a Running DAG"): while it is
// held no node job is submitted, a PRE script that runs is killed (it
// runs again after the release), the node jobs in the queue go on, and
// the DAG stays in the queue though nothing of it runs, across a
// restart of the schedd.
func TestDAGHoldRelease(t *testing.T) {
	pl, restart := restartablePool(t)
	dir := dagDir(t, nil)
	files := gateScripts(dir)
	files["hold.dag"] = "JOB A gate.sub\nJOB B job.sub\nPARENT A CHILD B\n" +
		"JOB C job.sub\nSCRIPT PRE C gate.sh pre C\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	id := pl.submitDAG(dir, "hold.dag", "")
	dagID := strconv.FormatInt(id, 10)
	waitLines(t, dir, "job A", "pre C")

	var res wire.ActResult
	in := wire.Act{Action: wire.ActHold, JobSelection: wire.JobSelection{IDs: []string{dagID}}, Reason: "the load is high"}
	if err := pl.user.Call(context.Background(), "POST", wire.PathAct, in, &res); err != nil || res.DAGs != 1 {
		t.Fatalf("hold: %+v %v", res, err)
	}
	ad, nodes := pl.dagInfo(id)
	if intAttr(t, ad, attr.JobStatus) != attr.Held || str(ad, attr.HoldReason) != "the load is high" {
		t.Fatalf("the held DAG's ad: %v", ad)
	}
	jobA := strconv.FormatInt(nodes[0].Cluster, 10) + ".0"
	openGate(t, dir) // A's job ends while the DAG is held; the killed PRE script would end too
	tick := time.NewTicker(5 * time.Millisecond)
	for deadline := time.Now().Add(20 * time.Second); intAttr(t, ad, attr.DAGNodesDone) < 1; <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("node A's end was not recorded while the DAG was held: %v", ad)
		}
		ad, nodes = pl.dagInfo(id)
	}
	tick.Stop()
	if status(pl.job(jobA)) != attr.Completed {
		t.Errorf("node A's job: %v", pl.job(jobA))
	}
	if nodes[1].Status != "STATUS_NOT_READY" || nodes[1].Cluster != 0 || nodes[2].Status != "STATUS_PRERUN" {
		t.Errorf("while held, B was submitted or C's PRE script was recorded: %+v", nodes)
	}
	if _, over := ad.Lookup(attr.ExitCode); over || intAttr(t, ad, attr.JobStatus) != attr.Held {
		t.Errorf("the held DAG finished or was released: %v", ad)
	}
	// The hold is durable: a restarted schedd keeps the DAG held.
	restart(func() {})
	if ad, nodes = pl.dagInfo(id); intAttr(t, ad, attr.JobStatus) != attr.Held || nodes[1].Cluster != 0 {
		t.Errorf("after a restart, the DAG is not held: %v %+v", ad, nodes)
	}

	in.Action = wire.ActRelease
	if err := pl.user.Call(context.Background(), "POST", wire.PathAct, in, &res); err != nil || res.DAGs != 1 {
		t.Fatalf("release: %+v %v", res, err)
	}
	ad, _ = pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGNodesDone) != 3 {
		t.Errorf("the released DAG: %v", ad)
	}
	got := lines(t, dir)
	if n := countOf(got, "pre C"); n != 2 {
		t.Errorf("C's PRE script ran %d times, want 2 (killed by the hold, run again after the release): %q", n, got)
	}
	for _, want := range []string{"job A", "B", "C"} {
		if countOf(got, want) != 1 {
			t.Errorf("%q ran %d times, want once: %q", want, countOf(got, want), got)
		}
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// A node job that goes on hold runs the node's HOLD script, with DAGMan's
// macros (dagman-introduction.rst "Scripts": it runs when
// any job of the node is held, best effort, and decides nothing); the
// node waits for its job, which runs once released.
func TestDAGHoldScript(t *testing.T) {
	dir := dagDir(t, nil)
	pl := newPool(t, 2, "a")
	files := gateScripts(dir)
	files["held.sh"] = "#!/bin/sh\necho \"held $1 $2 $3\" >> " + filepath.Join(dir, "ran.txt") + "\nexit 7\n"
	files["h.dag"] = "JOB H gate.sub\nSCRIPT HOLD H held.sh $JOB $JOBID $RETRY\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	id := pl.submitDAG(dir, "h.dag", "")
	waitLines(t, dir, "job H")
	_, nodes := pl.dagInfo(id)
	job := strconv.FormatInt(nodes[0].Cluster, 10) + ".0"
	pl.act(wire.ActHold, job, "look at it")
	waitLines(t, dir, "held H "+job+" 0")
	if _, nodes = pl.dagInfo(id); nodes[0].Status != "STATUS_SUBMITTED" {
		t.Errorf("node H after its job's hold: %+v", nodes[0])
	}
	openGate(t, dir)
	pl.act(wire.ActRelease, job, "")
	ad, _ := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 {
		t.Errorf("the DAG: %v", ad)
	}
	if n := countOf(lines(t, dir), "held H "+job+" 0"); n != 1 {
		t.Errorf("the HOLD script ran %d times, want once: %q", n, lines(t, dir))
	}
}
