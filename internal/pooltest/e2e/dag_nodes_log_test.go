package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
)

// Every node job's events go to the DAG's node log, FILE.dag.nodes.log
// beside the DAG file, as well as to the job's own log (the HTCondor
// manual, dagman-reference.rst, "<Primary DAG>.nodes.log: shared job event
// log file for all jobs managed by DAGMan"): the diamond's four node jobs
// each log their submit (with the "DAG Node:" note), execute and
// termination there, and node A's own log holds A's events only.
func TestDAGNodesLog(t *testing.T) {
	dir := dagDir(t, nil)
	pl := newPool(t, 2, "a")
	own := filepath.Join(dir, "own.log")
	sub, err := os.ReadFile(filepath.Join(dir, "job.sub"))
	if err != nil {
		t.Fatal(err)
	}
	logged := "log = " + own + "\n" + string(sub)
	files := map[string]string{
		"logged.sub":  logged,
		"diamond.dag": "JOB A logged.sub\nJOB B job.sub\nJOB C job.sub\nJOB D job.sub\nPARENT A CHILD B C\nPARENT B C CHILD D\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := pl.submitDAG(dir, "diamond.dag", "")
	ad, nodes := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 {
		t.Fatalf("the DAG: %v", ad)
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// events returns the clusters of a log's events of a code, in order.
	events := func(log, code string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`(?m)^`+code+` \(0*(\d+)\.`).FindAllStringSubmatch(log, -1) {
			out = append(out, m[1])
		}
		return out
	}
	nodesLog := read(filepath.Join(dir, "diamond.dag.nodes.log"))
	for _, n := range nodes {
		c := strconv.FormatInt(n.Cluster, 10)
		for _, code := range []string{"000", "001", "005"} {
			if got := strings.Join(events(nodesLog, code), " "); strings.Count(" "+got+" ", " "+c+" ") != 1 {
				t.Errorf("node %s (cluster %s): events %s in the node log: %q", n.Name, c, code, got)
			}
		}
		if !strings.Contains(nodesLog, "DAG Node: "+n.Name+"\n") {
			t.Errorf("no submit event of node %s notes it", n.Name)
		}
	}
	a := strconv.FormatInt(nodes[0].Cluster, 10)
	ownLog := read(own)
	if got := strings.Join(append(events(ownLog, "000"), events(ownLog, "005")...), " "); got != a+" "+a {
		t.Errorf("node A's own log holds the submits and ends of clusters %q, want A's (%s) alone:\n%s", got, a, ownLog)
	}
	if t.Failed() {
		t.Logf("the node log:\n%s", nodesLog)
	}
}
