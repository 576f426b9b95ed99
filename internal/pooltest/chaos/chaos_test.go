//go:build linux

package chaos

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/tools/cli"
)

var (
	long   = flag.Bool("chaos.long", false, "the long run: 100 rounds of kills and at least 5000 jobs")
	seed   = flag.Int64("chaos.seed", 0, "the run's seed (default: from the clock; the run prints it)")
	rounds = flag.Int("chaos.rounds", 0, "rounds of kills, each kills every kind once (default 6, or 100 with -chaos.long)")
	jobs   = flag.Int("chaos.jobs", 0, "jobs to acknowledge at least (default 0, or 5000 with -chaos.long)")
	dir    = flag.String("chaos.dir", "", "keep the pool and the run records in this new directory (default: removed after the test)")
)

// The test binary doubles as kite: run under the name kite, it is the
// kite command, so the pool's master and daemons are this binary's code
// and no separate build is needed.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "kite" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// TestChaos runs a personal pool, started with kite up, under a submit
// load while it SIGKILLs the collector, the negotiator, the schedd, the
// startd, the master and the whole pool in random order, then checks that
// every acknowledged job ran to completion exactly once, none ran twice
// at once or again after completing, and nothing unacknowledged appeared
// (see the package comment). HTCondor's manual promises the same: a
// submitted job is in the schedd's durable job queue, a restarted schedd
// reconnects to the jobs that ran on (job events 022 to 024), and a job
// runs again only when its execute machine was lost before the job's
// completion reached the schedd (Users' Manual, "Job Leases"). The short
// run, part of go test ./..., takes about a minute on two cores;
// scripts/chaos.sh runs the long one and prints its figures.
func TestChaos(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("the jobs record their runs with flock(1), which is not installed")
	}
	cfg := Config{
		Seed:       *seed,
		Rounds:     6,
		Gap:        [2]time.Duration{500 * time.Millisecond, 2 * time.Second},
		Submitters: 2,
		MaxProcs:   3,
		Pause:      [2]time.Duration{300 * time.Millisecond, 1500 * time.Millisecond},
		JobTime:    time.Second,
		Slots:      6,
		Drain:      90 * time.Second,
		Logf:       t.Logf,
	}
	if raceEnabled {
		cfg.Rounds = 2 // every daemon runs under the race detector too
	}
	if *long {
		cfg.Rounds, cfg.MinJobs, cfg.Submitters, cfg.MaxProcs, cfg.Slots, cfg.JobTime = 100, 5000, 3, 4, 8, 500*time.Millisecond
		cfg.Pause = [2]time.Duration{200 * time.Millisecond, time.Second}
		cfg.Drain = 5 * time.Minute
	}
	if *rounds > 0 {
		cfg.Rounds = *rounds
	}
	if *jobs > 0 {
		cfg.MinJobs = *jobs
	}
	if cfg.Seed == 0 {
		cfg.Seed = time.Now().UnixNano()
	}
	t.Logf("chaos seed %d (run again with -chaos.seed %d)", cfg.Seed, cfg.Seed)

	cfg.Kite = linkKite(t)
	cfg.Dir = t.TempDir()
	var runs string
	if *dir != "" {
		cfg.Dir, runs = filepath.Join(*dir, "pool"), filepath.Join(*dir, "runs")
		if err := os.MkdirAll(runs, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(*dir, 0o755); err != nil { // the jobs reach runs/
			t.Fatal(err)
		}
	} else {
		// Not under t.TempDir, which only its owner may enter.
		var err error
		if runs, err = os.MkdirTemp("", "kite-chaos-runs-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(runs); removeExecuteDir(cfg.Dir) })
	}
	// The jobs run as nobody when the pool runs as root.
	if err := os.Chmod(runs, 0o777); err != nil {
		t.Fatal(err)
	}
	cfg.Runs = runs

	report, err := Run(context.Background(), cfg)
	if report != nil {
		t.Logf("chaos figures:\n%s", report)
	}
	if err != nil {
		t.Fatalf("seed %d: %v (the pool's logs: %s)", cfg.Seed, err, filepath.Join(cfg.Dir, "state", "log"))
	}
	if !report.OK() {
		t.Errorf("seed %d: %d violation(s); the pool's logs are in %s (keep them with -chaos.dir)", cfg.Seed, len(report.Problems), filepath.Join(cfg.Dir, "state", "log"))
	}
	if report.JobsAcked == 0 {
		t.Errorf("seed %d: no submit was acknowledged: the load never ran", cfg.Seed)
	}
}

// linkKite links this test binary under the name kite.
func linkKite(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary to run as kite: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "kite")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestJobScript checks the job's lock, which the concurrency check rests
// on: a second run of a job while the first lives records an overlap; a
// run after the first was SIGKILLed does not, though the killed run's
// sleep lives on.
func TestJobScript(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("the jobs record their runs with flock(1), which is not installed")
	}
	runs := t.TempDir()
	script := filepath.Join(runs, "job.sh")
	if err := os.WriteFile(script, []byte(jobScript), 0o755); err != nil {
		t.Fatal(err)
	}
	records := filepath.Join(runs, "records")
	waitLines := func(n int) string {
		t.Helper()
		for range 1000 {
			if b, _ := os.ReadFile(records); strings.Count(string(b), "\n") >= n {
				return string(b)
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("the run records never reached %d line(s)", n)
		return ""
	}
	first := exec.Command(script, runs, "1.0", "60")
	first.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-first.Process.Pid, syscall.SIGKILL) // its sleep
	waitLines(1)                                            // start 1.0
	if out, err := exec.Command(script, runs, "1.0", "0").CombinedOutput(); err != nil {
		t.Fatalf("second run: %v: %s", err, out)
	}
	got := waitLines(4) // overlap, start, end of the second run
	if !strings.Contains(got, "overlap 1.0 ") {
		t.Fatalf("a run beside a live one recorded no overlap:\n%s", got)
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	if out, err := exec.Command(script, runs, "1.0", "0").CombinedOutput(); err != nil {
		t.Fatalf("third run: %v: %s", err, out)
	}
	got = waitLines(6)
	if strings.Count(got, "overlap") != 1 {
		t.Fatalf("a run after the first was killed recorded an overlap:\n%s", got)
	}
	r := &Report{}
	jobs := []Job{{Cluster: 1, Proc: 0, Status: 4, Tag: "a", Completion: time.Now().Unix() + 5, History: true}}
	if err := Check(r, []Submit{{Tag: "a", Procs: 1, Acked: true, Cluster: 1}}, jobs, strings.NewReader(got)); err != nil {
		t.Fatal(err)
	}
	if r.Concurrent != 1 || r.Duplicated != 1 || r.Runs != 3 {
		t.Errorf("concurrent %d, duplicated %d, runs %d; want 1, 1, 3:\n%s", r.Concurrent, r.Duplicated, r.Runs, r)
	}
}

// removeExecuteDir removes the execute directory kite up made for a pool
// run as root, outside the pool's directory.
func removeExecuteDir(pool string) {
	cfg, err := config.Load(filepath.Join(pool, "kite.toml"))
	if err != nil || !strings.HasPrefix(filepath.Base(cfg.Startd.ExecuteDir), "kite-execute-") {
		return
	}
	os.RemoveAll(cfg.Startd.ExecuteDir)
}
