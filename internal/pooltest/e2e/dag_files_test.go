package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/attr"
)

// waitFile waits until a file holds a match of re and returns its text.
func waitFile(t *testing.T, path string, re *regexp.Regexp) string {
	t.Helper()
	return waitFor(t, fmt.Sprintf("%s to match %s", path, re), func() (string, bool) {
		b, _ := os.ReadFile(path)
		return string(b), re.Match(b)
	})
}

// A DAG's informational files (the HTCondor manual,
// dagman-information-files.rst): the jobstate log in the manual's format
// ("Machine-Readable Event History": "timestamp NodeName EventName
// CondorID JobTag - SequenceNumber", DAGMAN_STARTED and DAGMAN_FINISHED
// meta events, the job tag from +job_tag_name), the .dagman.out a user
// tails, and the node status file rewritten while the DAG runs ("Node
// Status File": at most every N seconds; 0 here, so at every change), and
// the DOT pictures (dagman-advance-functionality.rst "Visualizing DAGs":
// one when the DAG starts, with UPDATE more as it goes, with
// DONT-OVERWRITE as FILE.0, FILE.1 ..., INCLUDE's text after the first
// line).
func TestDAGInformationalFiles(t *testing.T) {
	dir := dagDir(t, nil)
	pl := newPool(t, 2, "a")
	files := gateScripts(dir)
	files["tagged.sub"] = "executable = " + filepath.Join(dir, "job.sh") + "\narguments = $(JOB) 0\n" +
		"should_transfer_files = IF_NEEDED\n+job_tag_name = \"+job_tag_value\"\n+job_tag_value = \"local\"\nqueue\n"
	files["files.dag"] = "JOB A tagged.sub\nSCRIPT PRE A /bin/true\nJOB G gate.sub\nJOB B job.sub\nVARS B rc=\"3\"\n" +
		"SCRIPT POST B /bin/true\nPARENT A CHILD G B\n" +
		"JOBSTATE_LOG files.jobstate.log\nNODE_STATUS_FILE files.status 0\n" +
		"DOT files.dot UPDATE DONT-OVERWRITE INCLUDE head.dot\n"
	files["head.dot"] = "    label = \"files\";\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	id := pl.submitDAG(dir, "files.dag", "")

	// While G's job waits at the gate, the status file says so.
	waitFile(t, filepath.Join(dir, "files.status"), regexp.MustCompile(`Node = "G";\n  NodeStatus = 3; /\* "STATUS_SUBMITTED" \*/`))
	openGate(t, dir)
	ad, nodes := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 {
		t.Fatalf("the DAG: %v", ad)
	}
	a, g, b := strconv.FormatInt(nodes[0].Cluster, 10), strconv.FormatInt(nodes[1].Cluster, 10), strconv.FormatInt(nodes[2].Cluster, 10)

	log := waitFile(t, filepath.Join(dir, "files.jobstate.log"), regexp.MustCompile(`INTERNAL \*\*\* DAGMAN_FINISHED 0 \*\*\*\n\z`))
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		f := strings.SplitN(line, " ", 2)
		if _, err := strconv.ParseInt(f[0], 10, 64); err != nil || len(f) != 2 {
			t.Fatalf("a jobstate line without its timestamp: %q", line)
		}
		got = append(got, f[1])
	}
	perNode := map[string][]string{}
	for _, l := range got[1 : len(got)-1] {
		perNode[strings.Fields(l)[0]] = append(perNode[strings.Fields(l)[0]], l)
	}
	want := map[string][]string{
		"A": {"A PRE_SCRIPT_STARTED - - - 1", "A PRE_SCRIPT_SUCCESS - - - 1", "A SUBMIT " + a + ".0 local - 1",
			"A EXECUTE " + a + ".0 local - 1", "A JOB_TERMINATED " + a + ".0 local - 1", "A JOB_SUCCESS 0 local - 1"},
		"G": {"G SUBMIT " + g + ".0 - - 2", "G EXECUTE " + g + ".0 - - 2", "G JOB_TERMINATED " + g + ".0 - - 2", "G JOB_SUCCESS 0 - - 2"},
		"B": {"B SUBMIT " + b + ".0 - - 3", "B EXECUTE " + b + ".0 - - 3", "B JOB_TERMINATED " + b + ".0 - - 3", "B JOB_FAILURE 3 - - 3",
			"B POST_SCRIPT_STARTED " + b + ".0 - - 3", "B POST_SCRIPT_TERMINATED " + b + ".0 - - 3", "B POST_SCRIPT_SUCCESS " + b + ".0 - - 3"},
	}
	if strconv.Quote(got[0]) != strconv.Quote("INTERNAL *** DAGMAN_STARTED "+strconv.FormatInt(id, 10)+".0 ***") {
		t.Errorf("first line %q", got[0])
	}
	// G and B start in either order: their sequence numbers follow it.
	if strings.HasSuffix(perNode["B"][0], " 2") {
		for k, s := range want["B"] {
			want["B"][k] = strings.TrimSuffix(s, "3") + "2"
		}
		for k, s := range want["G"] {
			want["G"][k] = strings.TrimSuffix(s, "2") + "3"
		}
	}
	for node, lines := range want {
		if strings.Join(perNode[node], "\n") != strings.Join(lines, "\n") {
			t.Errorf("node %s's jobstate lines:\n%s\nwant:\n%s", node, strings.Join(perNode[node], "\n"), strings.Join(lines, "\n"))
		}
	}

	out := waitFile(t, filepath.Join(dir, "files.dag.dagman.out"), regexp.MustCompile(`is over: status 0, exit 0\n`))
	for _, re := range []string{
		`(?m)^\d\d/\d\d/\d\d \d\d:\d\d:\d\d DAG .*files.dag \(id ` + strconv.FormatInt(id, 10) + `\) submitted by alice: 3 node\(s\)$`,
		`(?m)^.* Node A: job submitted \(` + a + `\.0, seq 1\)$`,
		`(?m)^.* Node B: job\(s\) failed, return 3 \(seq \d\)$`,
		`(?m)^.* Of 3 nodes total:$`,
		`(?m)^.*     3       0        0       0       0          0        0        0$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf(".dagman.out has no line matching %s:\n%s", re, out)
		}
	}
	first := waitFile(t, filepath.Join(dir, "files.dot.0"), regexp.MustCompile(`\A.*\n    label = "files";\n`))
	if !strings.Contains(first, `"A" [shape=ellipse label="A - NOT_READY"];`) {
		t.Errorf("the first DOT file:\n%s", first)
	}
	// The last DOT file, written once the DAG is over, shows every node done.
	done := regexp.MustCompile(`(?s)label = "files";.*"A - DONE".*"G - DONE".*"B - DONE"`)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(20 * time.Second); !done.MatchString(newestDOT(t, dir)); <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("the last DOT file:\n%s", newestDOT(t, dir))
		}
	}
	status := waitFile(t, filepath.Join(dir, "files.status"), regexp.MustCompile(`NextUpdate = 0;`))
	if !strings.Contains(status, `DagStatus = 0; /* "success" */`) {
		t.Errorf("the final node status file:\n%s", status)
	}
}

// newestDOT returns the text of the newest files.dot.N.
func newestDOT(t *testing.T, dir string) string {
	t.Helper()
	last := ""
	for n := 0; ; n++ {
		b, err := os.ReadFile(filepath.Join(dir, "files.dot."+strconv.Itoa(n)))
		if err != nil {
			return last
		}
		last = string(b)
	}
}
