//go:build linux

package chaos

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	dagNodes = flag.Int("chaos.dagnodes", 0, "TestDAGScheddKills: the DAG's nodes (default 1000, 200 under -race)")
	dagKills = flag.Int("chaos.dagkills", 0, "TestDAGScheddKills: how many times the schedd is killed (default 5, 3 under -race)")
)

// TestDAGScheddKills runs a 1 000-node DAG on a personal pool started
// with kite up and SIGKILLs the schedd (only it: the startd runs on) at
// moments drawn from the seed, each when the DAG has made that much
// progress (its node jobs' starts and ends, as they record them), never
// after a fixed time. The DAG must finish with every node done, every
// node's job must have run exactly once (one start and one end in the
// jobs' record) from one submit (one cluster per node in the history), and
// no job may have been started twice (NumJobStarts 1).
//
// This is the crash promise for DAGs (docs/dag.md,
// "Durability"): DAGMan survives a crash of the schedd or of itself by
// recovery, reading its nodes' log to find "nodes that have completed and
// should not be re-submitted" (the HTCondor manual, dagman-completion.rst
// "DAG Recovery"); Kite's DAG state lives in the schedd's store. A node job running when its schedd
// dies runs on at its startd, and the restarted schedd reconnects to it
// (the manual's "Job Leases" and reconnect events 022 to 024) rather
// than starting it again.
//
// -chaos.seed replays the kill moments and the DAG's shape;
// -chaos.dagnodes and -chaos.dagkills change its size (the default, 1 000
// nodes and 5 kills, takes about 30 s on two cores; a -race build, whose
// daemons run under the race detector too, runs 200 nodes and 3 kills).
func TestDAGScheddKills(t *testing.T) {
	nodes, kills := cmp.Or(*dagNodes, 1000), cmp.Or(*dagKills, 5)
	if raceEnabled {
		nodes, kills = cmp.Or(*dagNodes, 200), cmp.Or(*dagKills, 3)
	}
	cfg := Config{Seed: *seed, Slots: 4, Logf: t.Logf}
	if cfg.Seed == 0 {
		cfg.Seed = time.Now().UnixNano()
	}
	t.Logf("DAG chaos seed %d (run again with -chaos.seed %d)", cfg.Seed, cfg.Seed)
	cfg.Kite = linkKite(t)
	cfg.Dir = t.TempDir()
	runs, err := os.MkdirTemp("", "kite-dagchaos-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runs); removeExecuteDir(cfg.Dir) })
	if err := os.Chmod(runs, 0o777); err != nil { // the jobs run as nobody under root
		t.Fatal(err)
	}
	cfg.Runs = runs
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x646167))
	names := writeCrashDAG(t, runs, nodes, rng)

	r, err := newReaper()
	if err != nil {
		t.Fatal(err)
	}
	defer r.stop()
	d := &driver{cfg: cfg, rng: rng, reap: r, report: &Report{Seed: cfg.Seed, Kills: map[string]int{}}}
	ctx := context.Background()
	if err := d.up(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.down()

	waited := make(chan dagResult, 1)
	go func() {
		out, err := d.kite(ctx, 10*time.Minute, "submit_dag", "--wait", "--interval", "100ms", filepath.Join(runs, "crash.dag"))
		waited <- dagResult{out, err}
	}()
	records := filepath.Join(runs, "ran.txt")
	for k, at := range killPoints(rng, 2*len(names), kills) {
		if err := waitRecords(records, at, waited); err != nil {
			t.Fatalf("kill %d (at %d records): %v", k+1, at, err)
		}
		master, ok := d.waitMaster(ctx)
		if !ok {
			t.Fatal("no master is running")
		}
		pid, err := d.waitDaemon(ctx, master, "schedd")
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		t.Logf("kill %d: the schedd (pid %d) at %d records", k+1, pid, at)
	}
	res := <-waited
	if res.err != nil {
		t.Fatalf("the DAG: %v\n%s", res.err, res.out)
	}
	want := fmt.Sprintf("is over (done): %d done, 0 failed, 0 futile of %d node(s); exit status 0.", len(names), len(names))
	if !strings.Contains(res.out, want) {
		t.Fatalf("the DAG did not succeed:\n%s", res.out)
	}
	id := regexp.MustCompile(`DAG (\d+) is over`).FindStringSubmatch(res.out)[1]
	checkRanOnce(t, records, names)
	hist, err := d.kite(ctx, time.Minute, "history", "-constraint", "DAGManJobId == "+id, "-af", "DAGNodeName", "ClusterId", "NumJobStarts")
	if err != nil {
		t.Fatal(err)
	}
	checkSubmittedOnce(t, hist, names)
	d.scanLogs()
	for _, p := range d.report.Problems {
		t.Error(p)
	}
}

// writeCrashDAG writes job.sh, node.sub and crash.dag in dir: n nodes in
// random layers, each node after one to three nodes of the layer before,
// a tenth of the jobs running for 0.3 s (so that kills fall while jobs
// run) and a twentieth with a POST script. It returns the node names.
func writeCrashDAG(t *testing.T, dir string, n int, rng *rand.Rand) []string {
	t.Helper()
	files := map[string]string{
		"job.sh": "#!/bin/sh\n# job.sh NODE SECONDS: record the run's start and end.\n" +
			"echo \"s $1\" >> " + filepath.Join(dir, "ran.txt") + "\n" +
			"[ \"$2\" = 0 ] || sleep \"$2\"\n" +
			"echo \"e $1\" >> " + filepath.Join(dir, "ran.txt") + "\n",
		"node.sub": "executable = " + filepath.Join(dir, "job.sh") + "\ntransfer_executable = false\n" +
			"arguments = $(JOB) $(secs:0)\nqueue\n",
		"ran.txt": "",
	}
	var b strings.Builder
	var names, prev, layer []string
	for len(names) < n {
		width := min(1+rng.IntN(120), n-len(names))
		prev, layer = layer, nil
		for range width {
			name := "n" + strconv.Itoa(len(names))
			names, layer = append(names, name), append(layer, name)
			fmt.Fprintf(&b, "JOB %s node.sub\n", name)
			if rng.IntN(10) == 0 {
				fmt.Fprintf(&b, "VARS %s secs=\"0.3\"\n", name)
			}
			if rng.IntN(20) == 0 {
				fmt.Fprintf(&b, "SCRIPT POST %s /bin/true $JOB $RETURN\n", name)
			}
			if len(prev) > 0 {
				parents := map[string]bool{}
				for range 1 + rng.IntN(3) {
					parents[prev[rng.IntN(len(prev))]] = true
				}
				fmt.Fprintf(&b, "PARENT %s CHILD %s\n", strings.Join(slices.Sorted(maps.Keys(parents)), " "), name)
			}
		}
	}
	files["crash.dag"] = b.String()
	for name, text := range files {
		mode := os.FileMode(0o644)
		switch name {
		case "job.sh":
			mode = 0o755
		case "ran.txt":
			mode = 0o666
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, name), mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	return names
}

// dagResult is what kite submit_dag --wait printed, and its error.
type dagResult struct {
	out string
	err error
}

// killPoints draws k distinct progress points in [1, total), in order:
// the numbers of job records (starts and ends) at which to kill.
func killPoints(rng *rand.Rand, total, k int) []int {
	seen := map[int]bool{}
	var out []int
	for len(out) < min(k, total-1) {
		p := 1 + rng.IntN(total-1)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// waitRecords waits until the record file holds at least n lines: the
// DAG's progress, which the jobs write. It gives up when the DAG ends
// first or no record comes for a minute.
func waitRecords(file string, n int, over <-chan dagResult) error {
	last, lastAt := -1, time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		got := bytes.Count(b, []byte("\n"))
		if got >= n {
			return nil
		}
		if got != last {
			last, lastAt = got, time.Now()
		}
		if time.Since(lastAt) > time.Minute {
			return fmt.Errorf("the DAG made no progress for a minute (%d records)", got)
		}
		select {
		case res := <-over:
			return fmt.Errorf("the DAG ended at %d records: %v\n%s", got, res.err, res.out)
		default:
		}
	}
	return nil
}

// checkRanOnce checks that every node's job started and ended once.
func checkRanOnce(t *testing.T, file string, names []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	starts, ends := map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		kind, name, _ := strings.Cut(sc.Text(), " ")
		if kind == "s" {
			starts[name]++
		} else {
			ends[name]++
		}
	}
	bad := 0
	for _, n := range names {
		if starts[n] != 1 || ends[n] != 1 {
			bad++
			t.Errorf("node %s: its job started %d and ended %d time(s), want once", n, starts[n], ends[n])
		}
	}
	if len(starts) != len(names) || len(ends) != len(names) {
		t.Errorf("%d nodes, but jobs of %d started and %d ended", len(names), len(starts), len(ends))
	}
	if bad == 0 {
		t.Logf("every one of %d node jobs ran exactly once", len(names))
	}
}

// checkSubmittedOnce checks the history's "DAGNodeName ClusterId
// NumJobStarts" lines of the DAG's jobs: one cluster per node, started
// once.
func checkSubmittedOnce(t *testing.T, hist string, names []string) {
	t.Helper()
	clusters := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(hist), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("kite history: %q", line)
		}
		clusters[f[0]] = append(clusters[f[0]], f[1])
		if f[2] != "1" {
			t.Errorf("node %s: NumJobStarts = %s, want 1", f[0], f[2])
		}
	}
	for _, n := range names {
		if len(clusters[n]) != 1 {
			t.Errorf("node %s was submitted %d time(s) (clusters %v), want once", n, len(clusters[n]), clusters[n])
		}
	}
	if len(clusters) != len(names) {
		t.Errorf("the history has jobs of %d nodes, want %d", len(clusters), len(names))
	}
}
