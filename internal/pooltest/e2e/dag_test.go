package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// DAGs run by the schedd (HTCondor's DAGMan; the manual's
// docs/automated-workflows/dagman-*.rst). Each node job runs job.sh,
// which appends the node's name to ran.txt and exits with its second
// argument, so a test reads which jobs ran, in what order, how often.

// dagDir writes job.sh, a submit file for it, and the files given.
func dagDir(t *testing.T, files map[string]string) string {
	t.Helper()
	return dagDirIn(t, t.TempDir(), files)
}

// dagDirIn is dagDir in a directory of the caller's (made if missing):
// one made before the pool outlives the pool, whose schedd may still
// append to the DAG's logs as the test ends.
func dagDirIn(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	all := map[string]string{
		"job.sh":  "#!/bin/sh\necho \"$1\" >> " + filepath.Join(dir, "ran.txt") + "\nexit \"$2\"\n",
		"job.sub": "executable = " + filepath.Join(dir, "job.sh") + "\narguments = $(JOB) $(rc:0)\nshould_transfer_files = IF_NEEDED\nqueue\n",
	}
	for name, text := range files {
		all[name] = text
	}
	for name, text := range all {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// submitDAG submits dir/name as alice, with a rescue DAG when given.
func (pl *pool) submitDAG(dir, name, rescue string) int64 {
	t := pl.t
	t.Helper()
	file := filepath.Join(dir, name)
	files := map[string]string{}
	dags, _ := filepath.Glob(filepath.Join(dir, "*.dag")) // INCLUDE and SPLICE files
	for _, f := range append(dags, rescue) {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	ctx := context.Background()
	var nc wire.NewCluster
	if err := pl.user.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		t.Fatal(err)
	}
	var res wire.SubmitResult
	body := wire.DAGSubmit{File: file, Files: files, Rescue: rescue}
	if err := pl.user.Call(ctx, "POST", wire.PathSubmitDAG+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res); err != nil {
		t.Fatal(err)
	}
	return res.Cluster
}

// dagInfo returns a DAG's ad and nodes.
func (pl *pool) dagInfo(id int64) (*classad.Ad, []wire.DAGNode) {
	return pl.dagQuery(id, false)
}

// dagQuery asks the schedd for a DAG's ad, and its nodes unless adOnly.
func (pl *pool) dagQuery(id int64, adOnly bool) (*classad.Ad, []wire.DAGNode) {
	pl.t.Helper()
	var out []wire.DAGInfo
	q := wire.DAGQuery{IDs: []int64{id}, Finished: true, AdsOnly: adOnly}
	if err := pl.user.Call(context.Background(), "POST", wire.PathDAGs, q, &out); err != nil || len(out) != 1 {
		pl.t.Fatalf("DAG %d: %v %v", id, out, err)
	}
	ad, err := classad.ParseJSON(out[0].Ad)
	if err != nil {
		pl.t.Fatal(err)
	}
	return ad, out[0].Nodes
}

// waitDAG waits until a DAG has finished and returns its ad and nodes.
func (pl *pool) waitDAG(id int64) (*classad.Ad, []wire.DAGNode) {
	pl.t.Helper()
	return pl.waitDAGFor(id, 30*time.Second)
}

// waitDAGFor is waitDAG giving up after limit.
func (pl *pool) waitDAGFor(id int64, limit time.Duration) (*classad.Ad, []wire.DAGNode) {
	pl.t.Helper()
	deadline := time.Now().Add(limit)
	// 10 ms between looks at first, up to 100 ms for a DAG that runs long
	wait := 10 * time.Millisecond
	tick := time.NewTicker(wait)
	defer tick.Stop()
	for range tick.C {
		wait = min(wait*5/4, 100*time.Millisecond)
		tick.Reset(wait)
		ad, _ := pl.dagQuery(id, true) // the ad alone: a large DAG's nodes once
		if _, ok := ad.Lookup(attr.ExitCode); ok {
			return pl.dagInfo(id)
		}
		if time.Now().After(deadline) {
			ad, nodes := pl.dagInfo(id)
			b, _ := json.Marshal(nodes)
			pl.t.Fatalf("DAG %d did not finish: %v\n%s", id, ad, b)
		}
	}
	return nil, nil
}

func intAttr(t *testing.T, ad *classad.Ad, name string) int64 {
	t.Helper()
	n, ok := classad.EvalInt(ad, name)
	if !ok {
		t.Fatalf("%s is not an integer in %v", name, ad)
	}
	return n
}

// ran returns the node names job.sh recorded, in order.
func ran(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ran.txt"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// before checks that a ran before b.
func before(t *testing.T, order []string, a, b string) {
	t.Helper()
	ia, ib := slices.Index(order, a), slices.Index(order, b)
	if ia < 0 || ib < 0 || ia > ib {
		t.Errorf("%s should run before %s: %v", a, b, order)
	}
}

// The diamond DAG of dagman-introduction.rst ("Example: Diamond DAG"):
// A, then B and C, then D, each once; the DAG's ad counts four nodes
// done; node jobs carry DAGManJobId and DAGNodeName.
func TestDAGDiamond(t *testing.T) {
	dir := dagDir(t, map[string]string{"diamond.dag": `# File name: diamond.dag
JOB A job.sub
JOB B job.sub
JOB C job.sub
JOB D job.sub
PARENT A CHILD B C
PARENT B C CHILD D
`})
	pl := newPool(t, 2, "a")
	id := pl.submitDAG(dir, "diamond.dag", "")
	ad, nodes := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGNodesDone) != 4 || intAttr(t, ad, attr.DAGStatus) != dag.DAGOK {
		t.Fatalf("DAG ad: %v", ad)
	}
	order := ran(t, dir)
	if len(order) != 4 {
		t.Fatalf("ran %v, want each node once", order)
	}
	before(t, order, "A", "B")
	before(t, order, "A", "C")
	before(t, order, "B", "D")
	before(t, order, "C", "D")
	job := pl.job(strconv.FormatInt(nodes[3].Cluster, 10) + ".0")
	if intAttr(t, job, attr.DAGManJobID) != id || str(job, attr.DAGNodeName) != "D" || str(job, attr.DAGParentNodeNames) != "B,C" {
		t.Errorf("node D's job: %v", job)
	}
	if got := str(job, "JobSubmitMethod"); got != "1" {
		t.Errorf("node D's JobSubmitMethod = %s, want 1 (DAGMan's)", got)
	}
}

// RETRY and POST scripts (dagman-reference.rst "RETRY", "SCRIPT"): the
// POST script decides the node, and sees $RETURN and $RETRY; a node
// that fails with retries left runs again; UNLESS-EXIT stops retries; a
// failed node's descendants do not run and a rescue DAG is written,
// which -DoRescueFrom then runs from (dagman-completion.rst "The Rescue
// DAG").
func TestDAGRetryPostAndRescue(t *testing.T) {
	dir := dagDir(t, map[string]string{
		// post.sh records its arguments; it fails B's first two tries,
		// and rescues C's failing job.
		"post.sh": "#!/bin/sh\necho \"$*\" >> post.txt\n[ \"$1\" = B ] && [ \"$3\" -lt 2 ] && exit 1\nexit 0\n",
		"flow.dag": `JOB A job.sub
JOB B job.sub
JOB C job.sub
JOB E job.sub
JOB F job.sub
VARS C rc="3"
VARS E rc="5"
SCRIPT POST B post.sh $JOB $RETURN $RETRY
SCRIPT POST C post.sh $JOB $RETURN $RETRY
RETRY B 2
RETRY E 4 UNLESS-EXIT 5
PARENT A CHILD B C
PARENT B C CHILD E
PARENT E CHILD F
`,
	})
	pl := newPool(t, 2, "a")
	id := pl.submitDAG(dir, "flow.dag", "")
	ad, nodes := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 1 || intAttr(t, ad, attr.DAGNodesDone) != 3 || intAttr(t, ad, attr.DAGNodesFailed) != 1 ||
		intAttr(t, ad, attr.DAGNodesFutile) != 1 {
		t.Fatalf("DAG ad: %v\nnodes %+v", ad, nodes)
	}
	count := map[string]int{}
	for _, n := range ran(t, dir) {
		count[n]++
	}
	if want := map[string]int{"A": 1, "B": 3, "C": 1, "E": 1}; !mapsEqual(count, want) {
		t.Errorf("runs %v, want %v (B retried twice, E not past UNLESS-EXIT, F futile)", count, want)
	}
	post, err := os.ReadFile(filepath.Join(dir, "post.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"B 0 0", "B 0 1", "B 0 2", "C 3 0"} {
		if !strings.Contains(string(post), line+"\n") {
			t.Errorf("post.txt lacks %q:\n%s", line, post)
		}
	}
	rescue := dag.RescueName(filepath.Join(dir, "flow.dag"), 1)
	b, err := os.ReadFile(rescue)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Nodes that failed: 1\n#   E,<ENDLIST>\n", "DONE A\nDONE B\nDONE C\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("rescue DAG lacks %q:\n%s", want, b)
		}
	}
	// The rescue DAG: fix E, run again; only E and F run.
	if err := os.WriteFile(filepath.Join(dir, "flow.dag"), []byte(strings.Replace(mustRead(t, dir, "flow.dag"), `VARS E rc="5"`, `VARS E rc="0"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "ran.txt")); err != nil {
		t.Fatal(err)
	}
	id = pl.submitDAG(dir, "flow.dag", rescue)
	ad, _ = pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || !slices.Equal(ran(t, dir), []string{"E", "F"}) {
		t.Errorf("from the rescue DAG: exit %v, ran %v, want E F", ad, ran(t, dir))
	}
}

func mustRead(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A schedd restarted while a DAG runs goes on where it was: every node
// job runs exactly once and the DAG finishes. The restarts fall while
// node jobs are being submitted, queued, running or ending.
func TestDAGSurvivesScheddRestarts(t *testing.T) {
	p := pooltest.New(t)
	p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable = 2, 2, false
	p.Config.Startd.Memory = 1024
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, time.Second
	})
	// A short claim lease: a job whose end the stopped schedd missed is
	// settled once its lease is over (docs/chaos.md).
	lease := func(c *schedd.Config) { c.ClaimLease = 3 * time.Second }
	sd := start.Schedd(t, p, "schedd:1", lease)
	pl := &pool{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write), startd: map[string]*startd.Server{}}
	pl.startd["a"] = start.Startd(t, p, "startd-0:1", "a", nil)
	var dagText strings.Builder
	const n = 12
	for i := range n {
		dagText.WriteString("JOB N" + strconv.Itoa(i) + " job.sub\n")
		if i > 0 {
			dagText.WriteString("PARENT N" + strconv.Itoa(i-1) + " CHILD N" + strconv.Itoa(i) + "\n")
		}
	}
	dagText.WriteString("JOB W1 job.sub\nJOB W2 job.sub\nJOB W3 job.sub\nPARENT N0 CHILD W1 W2 W3\nPARENT W1 W2 W3 CHILD N5\n")
	dir := dagDir(t, map[string]string{"chain.dag": dagText.String()})
	id := pl.submitDAG(dir, "chain.dag", "")
	for restarts := 0; restarts < 4; restarts++ {
		// Restart once some progress is made, wherever the DAG is.
		want := len(ran(t, dir)) + 2
		tick := time.NewTicker(5 * time.Millisecond)
		for deadline := time.Now().Add(20 * time.Second); len(ran(t, dir)) < want && time.Now().Before(deadline); {
			<-tick.C
		}
		tick.Stop()
		start.Stop(t, sd)
		sd = start.Schedd(t, p, "schedd:1", lease)
	}
	ad, _ := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGNodesDone) != n+3 {
		t.Fatalf("DAG ad: %v", ad)
	}
	count := map[string]int{}
	for _, name := range ran(t, dir) {
		count[name]++
	}
	for name, c := range count {
		if c != 1 {
			t.Errorf("node %s ran %d times", name, c)
		}
	}
	if len(count) != n+3 {
		t.Errorf("%d nodes ran, want %d: %v", len(count), n+3, count)
	}
}

// kite rm of a DAG removes its running node jobs and stops it
// (dagman-interaction.rst "Removing a DAG").
func TestDAGRemove(t *testing.T) {
	dir := dagDir(t, map[string]string{
		"slow.sub": "executable = /bin/sleep\narguments = 60\nshould_transfer_files = IF_NEEDED\nqueue\n",
		"rm.dag":   "JOB S slow.sub\nJOB T job.sub\nPARENT S CHILD T\n",
	})
	pl := newPool(t, 2, "a")
	id := pl.submitDAG(dir, "rm.dag", "")
	var nodes []wire.DAGNode
	tick := time.NewTicker(5 * time.Millisecond)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); <-tick.C {
		if _, nodes = pl.dagInfo(id); nodes[0].Cluster != 0 {
			break
		}
	}
	tick.Stop()
	job := strconv.FormatInt(nodes[0].Cluster, 10) + ".0"
	pl.waitStatus(job, attr.Running)
	var res wire.ActResult
	in := wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{strconv.FormatInt(id, 10)}}}
	if err := pl.user.Call(context.Background(), "POST", wire.PathAct, in, &res); err != nil || res.DAGs != 1 {
		t.Fatalf("rm: %+v %v", res, err)
	}
	ad, _ := pl.waitDAG(id)
	if intAttr(t, ad, attr.DAGStatus) != dag.DAGRemoved || intAttr(t, ad, attr.ExitCode) != 2 {
		t.Errorf("DAG ad: %v", ad)
	}
	if status(pl.job(job)) != attr.Removed || len(ran(t, dir)) != 0 {
		t.Errorf("node S's job %v; ran %v", pl.job(job), ran(t, dir))
	}
}

// ABORT-DAG-ON, a PRE script with PRE_SKIP, a SPLICE and a FINAL node
// through the pool (dagman-completion.rst "Stopping the entire DAG";
// dagman-using-other-dags.rst "DAG Splicing"; dagman-advance-functionality.rst
// "FINAL node"): the splice's nodes run between X and the abort; the
// PRE_SKIP node's job never runs; the abort stops the rest, and the
// FINAL node runs last and decides the DAG's result.
func TestDAGAbortSpliceFinal(t *testing.T) {
	dir := dagDir(t, map[string]string{
		"skip.sh":   "#!/bin/sh\nexit 5\n",
		"inner.dag": "JOB P job.sub\nJOB Q job.sub\nPARENT P CHILD Q\n",
		"final.sub": "executable = " + "/bin/true\nshould_transfer_files = IF_NEEDED\nqueue\n",
		"abort.dag": `JOB X job.sub
SPLICE S inner.dag
JOB K job.sub
SCRIPT PRE K skip.sh
PRE_SKIP K 5
JOB Y job.sub
VARS Y rc="7"
ABORT-DAG-ON Y 7 RETURN 3
JOB Z job.sub
FINAL F job.sub
PARENT X CHILD S
PARENT S CHILD K
PARENT K CHILD Y
PARENT Y CHILD Z
`,
	})
	pl := newPool(t, 2, "a")
	id := pl.submitDAG(dir, "abort.dag", "")
	ad, nodes := pl.waitDAG(id)
	order := ran(t, dir)
	if !slices.Equal(order, []string{"X", "S+P", "S+Q", "Y", "F"}) {
		t.Errorf("ran %v, want X S+P S+Q Y F", order)
	}
	// The FINAL node succeeded: the DAG succeeded, though aborted.
	if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGStatus) != dag.DAGOK {
		t.Errorf("DAG ad: %v\nnodes %+v", ad, nodes)
	}
	states := map[string]string{}
	for _, n := range nodes {
		states[n.Name] = n.Status
	}
	if states["K"] != "STATUS_DONE" || states["Y"] != "STATUS_ERROR" || states["Z"] != "STATUS_FUTILE" {
		t.Errorf("states %v", states)
	}
}
