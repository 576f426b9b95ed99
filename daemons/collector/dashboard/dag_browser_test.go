package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/collector/dashboard"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// dagPool is a collector and a schedd with no execute machine, running
// a DAG.
type dagPool struct {
	p    *pooltest.Pool
	base string
	id   int64
}

// diamondDAG is the DAGMan manual's diamond DAG (automated-workflows/
// dagman-introduction.rst, "Example: Diamond DAG") with A marked DONE: B
// and C are submitted and wait, D waits for them.
const diamondDAG = "JOB A node.sub DONE\nJOB B node.sub\nJOB C node.sub\nJOB D node.sub\nPARENT A CHILD B C\nPARENT B C CHILD D\n"

func newDAGPool(t *testing.T, text string) *dagPool {
	p := pooltest.New(t)
	p.Network = wire.TCP
	addr := freeAddr(t)
	p.Config.Pool.Collector, p.Config.Collector.Listen = addr, addr
	start.Collector(t, p)
	sd := start.Schedd(t, p, "127.0.0.1:0", func(c *schedd.Config) { c.Name = "schedd@dag" })
	dir := t.TempDir()
	file := filepath.Join(dir, "diamond.dag")
	for name, body := range map[string]string{"diamond.dag": text, "node.sub": "executable = /bin/true\nqueue\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cl := p.Client(sd.Addr(), "alice", auth.Write)
	ctx := context.Background()
	var nc wire.NewCluster
	if err := cl.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		t.Fatal(err)
	}
	var res wire.SubmitResult
	body := wire.DAGSubmit{File: file, Files: map[string]string{file: text}}
	if err := cl.Call(ctx, "POST", wire.PathSubmitDAG+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res); err != nil {
		t.Fatal(err)
	}
	return &dagPool{p: p, base: "http://" + addr, id: res.Cluster}
}

// graph waits until the collector lays the DAG out with two nodes
// submitted (the schedd has advertised itself and started them).
func (dp *dagPool) graph(t *testing.T) dashboard.DAGGraph {
	t.Helper()
	return dp.waitGraph(t, func(g *dashboard.DAGGraph) bool { return g.States[dashboard.StateIdle] == 2 })
}

// waitGraph waits until the collector's layout of the DAG is as ready
// says, for at most 20 s.
func (dp *dagPool) waitGraph(t *testing.T, ready func(*dashboard.DAGGraph) bool) dashboard.DAGGraph {
	t.Helper()
	tp := &testPool{p: dp.p, base: dp.base}
	path := "/v1/dashboard/dag?schedd=schedd@dag&id=" + strconv.FormatInt(dp.id, 10)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(20 * time.Second); ; <-tick.C {
		code, _, body := tp.get(t, path, auth.Read)
		var g dashboard.DAGGraph
		if code == http.StatusOK && json.Unmarshal(body, &g) == nil && ready(&g) {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d %s", path, code, body)
		}
	}
}

// The DAG endpoints: the list of DAGs and one DAG laid out in layers,
// parents above children, coloured by state; bad queries are refused.
func TestDAGEndpoints(t *testing.T) {
	dp := newDAGPool(t, diamondDAG)
	g := dp.graph(t)
	type node struct {
		name, state string
		depth       int
	}
	want := []node{{"A", "done", 0}, {"B", "idle", 1}, {"C", "idle", 1}, {"D", "notready", 2}}
	for i, n := range g.Nodes {
		if (node{n.Name, n.State, n.Depth}) != want[i] || n.Y != 10+n.Depth*dashboard.RowH {
			t.Errorf("node %d: %+v, want %+v", i, n, want[i])
		}
	}
	if len(g.Edges) != 4 || g.Owner != "alice" || g.Total != 4 || g.Done != 1 {
		t.Errorf("graph %+v", g)
	}
	tp := &testPool{p: dp.p, base: dp.base}
	var list dashboard.DAGList
	tp.api(t, "/v1/dashboard/dags", &list)
	if len(list.DAGs) != 1 || list.DAGs[0].ID != dp.id || list.DAGs[0].Schedd != "schedd@dag" || list.DAGs[0].Queued != 2 {
		t.Errorf("DAG list %+v", list)
	}
	for path, code := range map[string]int{
		"/v1/dashboard/dag?schedd=schedd@dag&id=x":    http.StatusBadRequest,
		"/v1/dashboard/dag?schedd=nobody&id=1":        http.StatusNotFound,
		"/v1/dashboard/dag?schedd=schedd@dag&id=9999": http.StatusNotFound,
	} {
		if got, _, body := tp.get(t, path, auth.Read); got != code {
			t.Errorf("GET %s: %d %s, want %d", path, got, body, code)
		}
	}
	if got, _, _ := tp.get(t, "/v1/dashboard/dags", 0); got != http.StatusUnauthorized {
		t.Errorf("GET /v1/dashboard/dags without a token: %d", got)
	}
}

// The DAG pages in a real browser: the list links to the DAG, drawn as a
// box per node in its state's colour and a line per edge.
func TestDAGPageInChromium(t *testing.T) {
	bin := chromium(t)
	dp := newDAGPool(t, diamondDAG)
	dp.graph(t)
	b := startBrowser(t, bin, 1000, 700)
	b.navigate(dp.base + "/dashboard/#dags&token=" + url.QueryEscape(dp.p.Token("viewer", auth.Read)))
	b.waitView(t, "dags")
	id := strconv.FormatInt(dp.id, 10)
	for _, w := range []string{
		`<a href="#dags" data-view="dags" class="active">`,
		`<table id="dag-list">.*<a href="#dag/schedd%40dag/` + id + `" class="dag-link">` + id + `</a></td><td>schedd@dag</td><td>alice</td>`,
	} {
		if dom := b.dom(); !regexp.MustCompile("(?s)" + w).MatchString(dom) {
			t.Fatalf("the DAG list does not match %s:\n%s", w, dom)
		}
	}
	b.eval(`document.querySelector('a.dag-link').click()`)
	b.waitView(t, "dag")
	dom := b.dom()
	for _, w := range []string{
		`<svg id="dag-graph" class="chart dag"`,
		`<g class="dag-node dag-done" data-name="A" data-state="done">`,
		`<g class="dag-node dag-idle" data-name="B" data-state="idle">`,
		`<g class="dag-node dag-notready" data-name="D" data-state="notready">`,
		`<div class="legend" id="dag-legend">.*done 1.*idle or held 2`,
	} {
		if !regexp.MustCompile("(?s)" + w).MatchString(dom) {
			t.Errorf("the DAG page does not match %s", w)
		}
	}
	if n := b.eval(`document.querySelectorAll('#dag-graph line.dag-edge').length`); n != float64(4) {
		t.Errorf("%v edges drawn, want 4", n)
	}
	// The colours pass the Content-Security-Policy: a done node is green.
	if c := b.eval(`getComputedStyle(document.querySelector('g.dag-done rect')).fill`); c == "rgb(0, 0, 0)" {
		t.Errorf("a done node is drawn black: its colour was refused")
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}
	shot := b.screenshot()
	checkScreenshot(t, shot, 1000, 700)
	if dir := os.Getenv("KITE_DASHBOARD_SCREENSHOTS"); dir != "" { // to look at
		if err := os.WriteFile(filepath.Join(dir, "dag.png"), shot, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// finishedDAG is the diamond DAG that ends at once on a schedd without
// machines: A and C are NOOP nodes, B's submit file is missing (its submit
// fails), so D never runs (futile) and the DAG fails.
const finishedDAG = "JOB A node.sub NOOP\nJOB B missing.sub\nJOB C node.sub NOOP\nJOB D node.sub NOOP\nPARENT A CHILD B C\nPARENT B C CHILD D\n"

// finishedGraph waits until the collector lays the DAG out as finished.
func (dp *dagPool) finishedGraph(t *testing.T) dashboard.DAGGraph {
	t.Helper()
	return dp.waitGraph(t, func(g *dashboard.DAGGraph) bool { return g.Finished })
}

// A finished DAG stays drawable: the schedd keeps its final graph, the
// DAG list shows it among those finished last with its final status, and
// its page draws each node in its final state (the HTCondor manual,
// dagman-interaction.rst "DAG Monitoring": the final DAG_Status).
func TestFinishedDAGEndpoints(t *testing.T) {
	dp := newDAGPool(t, finishedDAG)
	g := dp.finishedGraph(t)
	var states []string
	for _, n := range g.Nodes {
		states = append(states, n.Name+" "+n.State)
	}
	if got := strings.Join(states, ", "); got != "A done, B failed, C done, D futile" || len(g.Edges) != 4 {
		t.Errorf("the finished DAG's nodes: %s, %d edges", got, len(g.Edges))
	}
	if g.Result != "failed" || g.ExitCode != 1 {
		t.Errorf("the finished DAG's end: %q, exit %d", g.Result, g.ExitCode)
	}
	tp := &testPool{p: dp.p, base: dp.base}
	var list dashboard.DAGList
	tp.api(t, "/v1/dashboard/dags", &list)
	if len(list.DAGs) != 1 || !list.DAGs[0].Finished || list.DAGs[0].Result != "failed" || list.DAGs[0].ID != dp.id {
		t.Errorf("DAG list %+v", list)
	}
}

// The finished DAG in a real browser: listed under those finished last,
// linked to its picture in its nodes' final states, its end said.
func TestFinishedDAGPageInChromium(t *testing.T) {
	bin := chromium(t)
	dp := newDAGPool(t, finishedDAG)
	dp.finishedGraph(t)
	b := startBrowser(t, bin, 1000, 700)
	b.navigate(dp.base + "/dashboard/#dags&token=" + url.QueryEscape(dp.p.Token("viewer", auth.Read)))
	b.waitView(t, "dags")
	id := strconv.FormatInt(dp.id, 10)
	for _, w := range []string{
		`<p class="muted" id="no-dags">`,
		`<table id="dag-finished">.*<a href="#dag/schedd%40dag/` + id + `" class="dag-link">` + id + `</a></td><td>schedd@dag</td><td>alice</td>.*` +
			`<td class="dag-result dag-result-failed">failed</td><td class="num">1</td>`,
	} {
		if dom := b.dom(); !regexp.MustCompile("(?s)" + w).MatchString(dom) {
			t.Fatalf("the DAG list does not match %s:\n%s", w, dom)
		}
	}
	b.eval(`document.querySelector('#dag-finished a.dag-link').click()`)
	b.waitView(t, "dag")
	dom := b.dom()
	for _, w := range []string{
		`<p class="muted" id="dag-status">.*finished: failed, exit code 1</p>`,
		`<g class="dag-node dag-done" data-name="A" data-state="done">`,
		`<g class="dag-node dag-failed" data-name="B" data-state="failed">`,
		`<g class="dag-node dag-futile" data-name="D" data-state="futile">`,
		`<div class="legend" id="dag-legend">.*done 2.*failed 1.*futile 1.*removed 0.*never ran 0`,
	} {
		if !regexp.MustCompile("(?s)" + w).MatchString(dom) {
			t.Errorf("the finished DAG's page does not match %s", w)
		}
	}
	if n := b.eval(`document.querySelectorAll('#dag-graph line.dag-edge').length`); n != float64(4) {
		t.Errorf("%v edges drawn, want 4", n)
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}
	shot := b.screenshot()
	checkScreenshot(t, shot, 1000, 700)
	if dir := os.Getenv("KITE_DASHBOARD_SCREENSHOTS"); dir != "" { // to look at
		if err := os.WriteFile(filepath.Join(dir, "dag_finished.png"), shot, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// A DAG of more nodes than the page draws comes from the schedd counted
// by depth and state (wire.DAGQuery.MaxNodes), not node by node.
func TestDAGEndpointLarge(t *testing.T) {
	dp := newDAGPool(t, largeDAG())
	g := dp.graph(t)
	want := []map[string]int{{"done": 1}, {"done": dashboard.MaxDrawnNodes + 1, "idle": 2}, {"notready": 1}}
	if len(g.Nodes) != 0 || len(g.Layers) != len(want) || g.Total != int64(dashboard.MaxDrawnNodes+5) {
		t.Fatalf("graph of %d nodes, layers %+v, total %d", len(g.Nodes), g.Layers, g.Total)
	}
	for i, l := range g.Layers {
		if !maps.Equal(l.States, want[i]) {
			t.Errorf("layer %d: %v, want %v", i, l.States, want[i])
		}
	}
}

// The page of a DAG too large to draw says so and shows the counts.
func TestDAGLargePageInChromium(t *testing.T) {
	bin := chromium(t)
	dp := newDAGPool(t, largeDAG())
	dp.graph(t)
	b := startBrowser(t, bin, 1000, 700)
	b.navigate(dp.base + "/dashboard/#dag/schedd%40dag/" + strconv.FormatInt(dp.id, 10) + "&token=" + url.QueryEscape(dp.p.Token("viewer", auth.Read)))
	cond := `document.getElementById('view').dataset.ready === 'true' && document.getElementById('view').dataset.view === 'dag'`
	if err := b.waitFor(cond, 15*time.Second); err != nil {
		t.Fatalf("%v\nDOM:\n%s", err, b.dom())
	}
	dom := b.dom()
	for _, w := range []string{
		`<p id="dag-too-large">The DAG has more than 2,000 nodes`,
		`<table id="dag-layers">.*<tr><td class="num">1</td><td class="num">2,001</td><td class="num">0</td><td class="num">2</td>`,
	} {
		if !regexp.MustCompile("(?s)" + w).MatchString(dom) {
			t.Errorf("the page does not match %s", w)
		}
	}
	if strings.Contains(dom, `id="dag-graph"`) {
		t.Error("the DAG is drawn")
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}
}

// largeDAG is a root done, 2001 children done and two that wait, and a
// node after them all.
func largeDAG() string {
	var b strings.Builder
	b.WriteString("JOB R node.sub DONE\nJOB W1 node.sub\nJOB W2 node.sub\nJOB Z node.sub\nPARENT R CHILD W1 W2\nPARENT W1 W2 CHILD Z\n")
	for i := range dashboard.MaxDrawnNodes + 1 {
		fmt.Fprintf(&b, "JOB C%d node.sub DONE\nPARENT R CHILD C%d\nPARENT C%d CHILD Z\n", i, i, i)
	}
	return b.String()
}
