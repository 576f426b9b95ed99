package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

// TestDAGManualExamples runs the example DAGs of HTCondor's DAGMan manual
// (docs/automated-workflows/dagman-*.rst, docs/man-pages/condor_submit_dag.rst)
// on an in-process pool and checks that each ends as under DAGMan (issue
// 18: "every example DAG in HTCondor's DAGMan manual runs to the same
// outcome as under DAGMan"). testdata/dag_manual/NAME.txtar is one example:
// its comment cites the manual's file and section, its files are the DAG
// as the manual writes it with the submit files and scripts it needs ($DIR
// is the example's directory), and its file "want" the outcome, one check
// a line (see checkManual). A node's submit file that the archive lacks is
// job.sub: job.sh records the node's name in ran.txt and exits 0. A file
// that starts with #! is executable.
//
// The manual's examples run by other tests:
//
//	dagman-introduction.rst "Example: Diamond DAG"            TestDAGDiamond
//	dagman-completion.rst "PRE_SKIP"                          TestDAGAbortSpliceFinal
//	dagman-advance-functionality.rst "FINAL Node"             TestDAGAbortSpliceFinal
//	dagman-introduction.rst "Script Types" (HOLD)             TestDAGHoldScript
//	dagman-advance-functionality.rst "PROVISIONER Node",
//	  "SERVICE Node"                                          TestDAGProvisionerAndService, TestDAGProvisionerNeverReady
//	dagman-advance-functionality.rst "Visualizing DAGs" (DOT)  TestDAGInformationalFiles
//	dagman-information-files.rst "Current Node Status File",
//	  "Machine-Readable Event History"                        TestDAGInformationalFiles
//	dagman-reference.rst "<Primary DAG>.nodes.log"            TestDAGNodesLog
//	dagman-completion.rst "Rescue DAG Naming", "Using an
//	  Older Rescue DAG" (-DoRescueFrom); condor_submit_dag.rst
//	  -dorescuefrom                                           TestDAGRetryPostAndRescue
//	dagman-completion.rst "DAG Save Point Files" (-load_save);
//	  condor_submit_dag.rst -load_save                        TestDAGSavePoints
//	dagman-using-other-dags.rst "SUBDAGs and Rescue"          TestDAGSubDAG
//	dagman-interaction.rst "Removing a DAG"                   TestDAGRemove, TestDAGSubDAGRemoved
//	dagman-interaction.rst "Editing DAG Throttles"            TestDAGThrottleChange
//	dagman-interaction.rst "Suspending a Running DAG"         TestDAGHoldRelease
//
// testdata/dag_manual/README.md lists every example and where it runs.
func TestDAGManualExamples(t *testing.T) {
	files, err := filepath.Glob("testdata/dag_manual/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manual examples: %v", err)
	}
	// The examples' directories are made before the pool so that they are
	// removed after it stops (its schedd may still append to their logs).
	base := t.TempDir()
	pl := newPoolWith(t, 4, func(c *startd.Config) { c.Memory = 4 * 2048 }, "a")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			pl := &pool{t: t, p: pl.p, user: pl.user, admin: pl.admin, startd: pl.startd}
			runManual(t, pl, ar, filepath.Join(base, name))
		})
	}
}

// manualCase is one example: its directory, the DAG to submit and the
// checks of its "want" file.
type manualCase struct {
	dir    string
	dag    string
	jobSub string     // the submit file of nodes whose own the archive lacks
	setup  [][]string // gzip FILE, mkdir DIR: done before the DAG is submitted
	checks [][]string
	texts  map[string]string // want/PATH: the file PATH's whole text
}

// runManual writes an example's files, submits its DAG and checks what
// its "want" file says.
func runManual(t *testing.T, pl *pool, ar *txtar.Archive, dir string) {
	c := writeManual(t, ar, dir)
	defer func() {
		if t.Failed() {
			logFiles(t, c.dir)
		}
	}()
	for _, s := range c.setup {
		setupManual(t, c.dir, s)
	}
	id, err := submitManual(pl, c)
	if i := slices.IndexFunc(c.checks, func(l []string) bool { return l[0] == "refused" }); i >= 0 {
		re := regexp.MustCompile(strings.Join(c.checks[i][1:], " "))
		if err == nil || !re.MatchString(err.Error()) {
			t.Fatalf("submit: %v, want an error matching %s", err, re)
		}
		return
	}
	if err != nil {
		t.Fatalf("submit %s: %v", c.dag, err)
	}
	ad, nodes := pl.waitDAG(id)
	for _, check := range c.checks {
		checkManual(t, pl, c, id, ad, nodes, check)
	}
	for path, want := range c.texts { // written as the jobs end: wait for them
		waitFile(t, filepath.Join(c.dir, path), regexp.MustCompile(`\A`+regexp.QuoteMeta(want)+`\z`))
	}
}

// logFiles lists the example's directory and shows its .dagman.out, to
// see what a failed example left.
func logFiles(t *testing.T, dir string) {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(path, dir+"/"))
		}
		return err
	})
	t.Logf("files: %q (%v)", names, err)
	for _, name := range names {
		if strings.HasSuffix(name, ".dagman.out") {
			t.Logf("%s:\n%s", name, mustRead(t, dir, name))
		}
	}
}

// writeManual writes the archive's files in dir ($DIR replaced), and
// job.sub for each node's submit file it lacks.
func writeManual(t *testing.T, ar *txtar.Archive, dir string) manualCase {
	t.Helper()
	c := manualCase{dir: dagDirIn(t, dir, nil), jobSub: "job.sub", texts: map[string]string{}}
	have := map[string]bool{}
	for _, f := range ar.Files {
		text := strings.ReplaceAll(string(f.Data), "$DIR", dir)
		switch {
		case f.Name == "want":
			c.readWant(t, text)
			continue
		case strings.HasPrefix(f.Name, "want/"):
			c.texts[strings.TrimPrefix(f.Name, "want/")] = text
			continue
		}
		if c.dag == "" && strings.HasSuffix(f.Name, ".dag") {
			c.dag = f.Name
		}
		have[f.Name] = true
		mode := os.FileMode(0o644)
		if strings.HasPrefix(text, "#!") {
			mode = 0o755
		}
		path := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	job := mustRead(t, dir, c.jobSub)
	for _, f := range ar.Files {
		if !strings.HasSuffix(f.Name, ".dag") {
			continue
		}
		for _, sub := range submitFiles(filepath.Dir(f.Name), string(f.Data)) {
			if !have[sub] {
				if err := os.WriteFile(filepath.Join(dir, sub), []byte(job), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return c
}

// readWant reads the checks of a "want" file; "submit FILE" names the DAG
// to submit (else the archive's first .dag file), "default FILE" the
// submit file copied for nodes whose own the archive lacks (else job.sub).
func (c *manualCase) readWant(t *testing.T, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "submit":
			c.dag = f[1]
		case f[0] == "default":
			c.jobSub = f[1]
		case f[0] == "gzip" || f[0] == "mkdir":
			c.setup = append(c.setup, f)
		default:
			c.checks = append(c.checks, f)
		}
	}
}

// submitFiles returns the submit files a DAG file's JOB and FINAL lines
// name (from the archive's root), leaving out inline descriptions, named
// SUBMIT-DESCRIPTIONs and NOOP nodes.
func submitFiles(dagDir, text string) []string {
	var out []string
	described := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.EqualFold(f[0], "SUBMIT-DESCRIPTION") {
			described[f[1]] = true
		}
	}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !slices.Contains([]string{"JOB", "FINAL"}, strings.ToUpper(f[0])) ||
			described[f[2]] || strings.HasPrefix(f[2], "{") || strings.HasPrefix(f[2], "@=") ||
			slices.ContainsFunc(f[3:], func(s string) bool { return strings.EqualFold(s, "NOOP") }) {
			continue
		}
		sub := f[2]
		if i := slices.IndexFunc(f, func(s string) bool { return strings.EqualFold(s, "DIR") }); i > 0 && i+1 < len(f) {
			sub = filepath.Join(f[i+1], sub)
		}
		out = append(out, filepath.Join(dagDir, sub))
	}
	return out
}

// setupManual does one setup line: gzip FILE compresses FILE to FILE.gz
// (the manual's PRE script example unzips its input), mkdir DIR makes a
// directory.
func setupManual(t *testing.T, dir string, s []string) {
	t.Helper()
	path := filepath.Join(dir, s[1])
	var err error
	switch s[0] {
	case "gzip":
		err = gzipFile(path)
	case "mkdir":
		err = os.MkdirAll(path, 0o755)
	}
	if err != nil {
		t.Fatalf("%v: %v", s, err)
	}
}

// submitManual submits the example's DAG as alice, sending every .dag
// file of its directory (the INCLUDE and SPLICE files among them).
func submitManual(pl *pool, c manualCase) (int64, error) {
	files := map[string]string{}
	err := filepath.WalkDir(c.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".dag") {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	var nc wire.NewCluster
	if err := pl.user.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return 0, err
	}
	var res wire.SubmitResult
	body := wire.DAGSubmit{File: filepath.Join(c.dir, c.dag), Files: files}
	err = pl.user.Call(ctx, "POST", wire.PathSubmitDAG+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res)
	return res.Cluster, err
}

// checkManual does one check of a "want" file (besides "refused REGEXP":
// the schedd refuses the DAG with an error that matches, runManual's):
//
//	exit N                 the DAG's ExitCode
//	status N               its DAG_Status
//	dagattr NAME VALUE     an attribute of the DAG's ad
//	node PATH STATUS [retries=N] [return=N]
//	                       a node's final status (PATH: NODE, or
//	                       SUBDAG/NODE for a node of a SUBDAG's DAG)
//	job PATH NAME VALUE    an attribute of the node's job
//	runs NODE N            the node's job ran N times (ran.txt)
//	ran N                  N node jobs ran in all
//	order A B              A's job first ran before B's
//	file PATH REGEXP       the file (a path from the example's directory,
//	                       $CLUSTER(PATH) the node's job's cluster) matches
//	absent PATH            the file does not exist
//	maxjobs CAT N          the DAG's throttle of category CAT is N
//	maxrun N               at most N node jobs ran at once (run.log:
//	                       "+NODE" as a job starts, "-NODE" as it ends)
func checkManual(t *testing.T, pl *pool, c manualCase, id int64, ad *classad.Ad, nodes []wire.DAGNode, check []string) {
	t.Helper()
	arg := func(i int) string {
		if i >= len(check) {
			t.Fatalf("check %q: too few fields", check)
		}
		return check[i]
	}
	num := func(i int) int64 {
		n, err := strconv.ParseInt(arg(i), 10, 64)
		if err != nil {
			t.Fatalf("check %q: %v", check, err)
		}
		return n
	}
	switch check[0] {
	case "exit":
		if got := intAttr(t, ad, attr.ExitCode); got != num(1) {
			t.Errorf("ExitCode %d, want %d; nodes %+v", got, num(1), nodes)
		}
	case "status":
		if got := intAttr(t, ad, attr.DAGStatus); got != num(1) {
			t.Errorf("DAG_Status %d, want %d", got, num(1))
		}
	case "dagattr":
		if got := str(ad, arg(1)); got != strings.Join(check[2:], " ") {
			t.Errorf("the DAG's %s = %q, want %q", arg(1), got, strings.Join(check[2:], " "))
		}
	case "node":
		checkNode(t, manualNode(t, pl, id, nodes, arg(1)), check)
	case "job":
		n := manualNode(t, pl, id, nodes, arg(1))
		job := pl.job(strconv.FormatInt(n.Cluster, 10) + ".0")
		if got, want := str(job, arg(2)), strings.Join(check[3:], " "); got != want {
			t.Errorf("node %s's job: %s = %q, want %q", arg(1), arg(2), got, want)
		}
	case "runs":
		if got := countOf(ran(t, c.dir), arg(1)); int64(got) != num(2) {
			t.Errorf("node %s ran %d times, want %d: %v", arg(1), got, num(2), ran(t, c.dir))
		}
	case "ran":
		if got := len(ran(t, c.dir)); int64(got) != num(1) {
			t.Errorf("%d node jobs ran, want %d: %v", got, num(1), ran(t, c.dir))
		}
	case "order":
		before(t, ran(t, c.dir), arg(1), arg(2))
	case "file":
		path := expandClusters(t, pl, id, nodes, arg(1))
		waitFile(t, filepath.Join(c.dir, path), regexp.MustCompile(strings.Join(check[2:], " ")))
	case "absent":
		if _, err := os.Stat(filepath.Join(c.dir, arg(1))); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v), want none", arg(1), err)
		}
	case "maxjobs":
		if got := parseManual(t, c).MaxJobs[arg(1)]; int64(got) != num(2) {
			t.Errorf("MAXJOBS %s is %d, want %d", arg(1), got, num(2))
		}
	case "maxrun":
		if got := maxRunning(t, c.dir); int64(got) > num(1) {
			t.Errorf("%d node jobs ran at once, want at most %d:\n%s", got, num(1), mustRead(t, c.dir, "run.log"))
		}
	default:
		t.Fatalf("unknown check %q", check)
	}
}

// checkNode checks "node PATH STATUS [retries=N] [return=N]".
func checkNode(t *testing.T, n wire.DAGNode, check []string) {
	t.Helper()
	got := []string{"node", check[1], n.Status}
	for _, more := range check[3:] {
		switch k, _, _ := strings.Cut(more, "="); k {
		case "retries":
			got = append(got, "retries="+strconv.Itoa(n.Retries))
		case "return":
			got = append(got, "return="+strconv.Itoa(n.Return))
		default:
			t.Fatalf("check %q: unknown %q", check, more)
		}
	}
	if !slices.Equal(got, check) {
		t.Errorf("%q, want %q", got, check)
	}
}

// parseManual parses the example's DAG as the schedd does.
func parseManual(t *testing.T, c manualCase) *dag.DAG {
	t.Helper()
	path := filepath.Join(c.dir, c.dag)
	d, err := dag.Parse(path, []byte(mustRead(t, c.dir, c.dag)), dag.Options{Dir: filepath.Dir(path), ReadFile: os.ReadFile})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// manualNode finds a node by path: NODE, or SUBDAG/NODE inside the DAG
// of a SUBDAG EXTERNAL node.
func manualNode(t *testing.T, pl *pool, id int64, nodes []wire.DAGNode, path string) wire.DAGNode {
	t.Helper()
	first, rest, nested := strings.Cut(path, "/")
	i := slices.IndexFunc(nodes, func(n wire.DAGNode) bool { return n.Name == first })
	if i < 0 {
		t.Fatalf("DAG %d has no node %s: %+v", id, first, nodes)
	}
	if !nested {
		return nodes[i]
	}
	inner := nodes[i].Cluster
	_, innerNodes := pl.waitDAG(inner)
	return manualNode(t, pl, inner, innerNodes, rest)
}

var clusterRef = regexp.MustCompile(`\$CLUSTER\(([^)]+)\)`)

// expandClusters replaces $CLUSTER(PATH) by the cluster of the node's job.
func expandClusters(t *testing.T, pl *pool, id int64, nodes []wire.DAGNode, s string) string {
	t.Helper()
	return clusterRef.ReplaceAllStringFunc(s, func(ref string) string {
		path := clusterRef.FindStringSubmatch(ref)[1]
		return strconv.FormatInt(manualNode(t, pl, id, nodes, path).Cluster, 10)
	})
}

// maxRunning reads run.log ("+NODE" as a job starts, "-NODE" as it ends)
// and returns the most jobs that ran at once.
func maxRunning(t *testing.T, dir string) int {
	t.Helper()
	running, most := 0, 0
	for _, l := range strings.Fields(mustRead(t, dir, "run.log")) {
		switch l[0] {
		case '+':
			running++
			most = max(most, running)
		case '-':
			running--
		default:
			t.Fatalf("run.log: %q", l)
		}
	}
	return most
}

// gzipFile compresses path to path.gz and removes path, as gzip(1) does.
func gzipFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(path+".gz", buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	return os.Remove(path)
}
