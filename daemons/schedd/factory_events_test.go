package schedd

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// Late materialization's cluster events in the job event log (HTCondor's
// manual, "Job Event Log Codes": 035 ClusterSubmit, 036 ClusterRemove,
// 037 FactoryPaused, 038 FactoryResumed): their job is the cluster's,
// proc -1; goldens in testdata/factory_events hold the logs, times and
// addresses masked.

var updateGolden = flag.Bool("update", false, "rewrite the golden files")

// maskLog replaces what changes from run to run in a log: header times,
// addresses, the termination's date.
func maskLog(b []byte) []byte {
	for _, m := range []struct{ re, to string }{
		{`\) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d `, ") DATE "},
		{`<[^>]*>`, "<ADDR>"},
		{`accord at \S+ with`, "accord at DATE with"},
		{`\t\tUsr \d+ \d\d:\d\d:\d\d, Sys \d+ \d\d:\d\d:\d\d`, "\t\tUsr USAGE"},
		{`(?m)^\t\d+  -  (Run|Total) Bytes`, "\tN  -  $1 Bytes"},
		{`(?m)^(\s+(Cpus|Disk|Memory)[^:]*:).*$`, "$1 ..."},
	} {
		b = regexp.MustCompile(m.re).ReplaceAll(b, []byte(m.to))
	}
	return b
}

func goldenLog(t *testing.T, name, path string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got = maskLog(got)
	golden := filepath.Join("testdata", "factory_events", name)
	if *updateGolden {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test -run %s -update rewrites it):\n%s", path, golden, t.Name(), got)
	}
}

// A factory held, released and removed: 035 at the submit, 037 before
// its jobs' holds, 038 after their releases, and 036 (Incomplete: 2 of
// 10 procs made) once its last job leaves.
func TestFactoryEventsHoldReleaseRemove(t *testing.T) {
	h := startSchedd(t, pooltest.New(t), testConfig(t))
	dir := t.TempDir()
	res, err := h.submitLate("alice", dir, "executable = /bin/true\nlog = job.log\nmax_idle = 2\nqueue 10\n")
	if err != nil {
		t.Fatal(err)
	}
	c := strconv.FormatInt(res.Cluster, 10)
	h.act(wire.ActHold, c)
	h.act(wire.ActRelease, c)
	h.act(wire.ActRemove, c)
	eventually(t, "the cluster to leave", func() bool { return h.jobsOf(res.Cluster) == "" })
	goldenLog(t, "hold_release_remove.log", filepath.Join(dir, "job.log"))
}

// A factory whose procs all ran: 036 says Complete once the last leaves.
// The procs are local universe jobs the schedd runs itself, one at a
// time (max_materialize = 1), so the log's order is fixed.
func TestFactoryEventsComplete(t *testing.T) {
	h, dir := localSetup(t, nil)
	res, err := h.submitLate("alice", dir, "universe = local\nexecutable = /bin/true\nlog = job.log\nmax_materialize = 1\nqueue 3\n")
	if err != nil {
		t.Fatal(err)
	}
	for p := range 3 {
		h.waitLocalStatus(strconv.FormatInt(res.Cluster, 10)+"."+strconv.Itoa(p), attr.Completed)
	}
	eventually(t, "the cluster to leave", func() bool { return h.jobsOf(res.Cluster) == "" })
	goldenLog(t, "complete.log", filepath.Join(dir, "job.log"))
}

// A factory that made all its procs at the submit ends at once; the
// schedd remembers that across a restart, and writes 036 when the
// cluster's jobs are removed after it.
func TestFactoryEventsSurviveARestart(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	res, err := h.submitLate("alice", dir, "executable = /bin/true\nlog = job.log\nmax_idle = 5\nqueue 2\n")
	if err != nil {
		t.Fatal(err)
	}
	h.stop()
	h = startSchedd(t, p, cfg)
	h.act(wire.ActRemove, strconv.FormatInt(res.Cluster, 10))
	eventually(t, "the cluster to leave", func() bool { return h.jobsOf(res.Cluster) == "" })
	goldenLog(t, "restart.log", filepath.Join(dir, "job.log"))
}
