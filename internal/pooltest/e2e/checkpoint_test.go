package e2e

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// checkpointingJob does one step per run of its executable: it resumes
// from state.dat, logs the step in progress.log, tells the test the step
// it is at through the gate directory's FIFO, waits there for go<step>,
// then exits 85 (a checkpoint) or, after step 3, 0.
const checkpointingJob = `#!/bin/sh
g=$1
n=$(cat state.dat 2>/dev/null || echo 0)
n=$((n+1))
echo "step $n" >> progress.log
echo $n > state.dat
echo "at $n" > $g/events
while [ ! -e $g/go$n ]; do sleep 0.02; done
[ $n -ge 3 ] && exit 0
exit 85
`

// stepEvents makes the FIFO the job's runs write their steps to ("at N")
// and delivers each step as it is written.
func stepEvents(t *testing.T, path string) <-chan int {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o666); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0) // read-write: no end of input between writers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	out := make(chan int, 16)
	go func() {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var step int
			if _, err := fmt.Sscanf(sc.Text(), "at %d", &step); err == nil {
				out <- step
			}
		}
	}()
	return out
}

// A self-checkpointing job (users' manual, "Self-Checkpointing
// Applications") whose machine is killed twice completes with its work
// done once: each checkpoint exit sends state.dat and progress.log to the
// schedd and restarts the executable in place; each run after a kill
// starts from the last committed checkpoint, so the step lost with the
// machine is redone from there and progress.log ends with each step once.
func TestSelfCheckpointingJobSurvivesKilledMachines(t *testing.T) {
	pl := newPoolOpts(t, 1, poolOpts{gossip: true, schedd: func(c *schedd.Config) {
		c.ClaimLease, c.RequeueAfter = time.Minute, 500*time.Millisecond
	}}, "a", "b", "c")
	dir, gates := t.TempDir(), t.TempDir()
	events := stepEvents(t, filepath.Join(gates, "events"))
	if err := os.WriteFile(filepath.Join(dir, "job.sh"), []byte(checkpointingJob), 0o755); err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("%d.0", pl.submit(dir, fmt.Sprintf(`executable = job.sh
arguments = %s
checkpoint_exit_code = 85
transfer_checkpoint_files = state.dat, progress.log
transfer_output_files = progress.log
should_transfer_files = YES
log = job.log
queue
`, gates)))
	seen := map[int]int{} // runs of each step so far
	at := func(step, runs int) {
		t.Helper()
		for seen[step] < runs {
			select {
			case s := <-events:
				seen[s]++
			case <-time.After(20 * time.Second):
				t.Fatalf("step %d ran %d times, want %d; job:\n%v", step, seen[step], runs, pl.job(id))
			}
		}
	}
	open := func(step int) {
		if err := os.WriteFile(filepath.Join(gates, fmt.Sprintf("go%d", step)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kill := func() {
		t.Helper()
		host := str(pl.job(id), attr.RemoteHost)
		start.Kill(t, pl.startd[host[strings.IndexByte(host, '@')+1:]])
	}

	at(1, 1)
	open(1) // checkpoint 1: step 1 done
	at(2, 1)
	if got := str(pl.job(id), attr.CheckpointNumber); got != "1" {
		t.Fatalf("CheckpointNumber %s after the first checkpoint", got)
	}
	kill() // step 2 is lost with the machine and redone from checkpoint 1
	at(2, 2)
	open(2)
	at(3, 1)
	kill()
	at(3, 2)
	open(3)
	ad := pl.waitStatus(id, attr.Completed)
	if got, _ := os.ReadFile(filepath.Join(dir, "progress.log")); string(got) != "step 1\nstep 2\nstep 3\n" {
		t.Errorf("progress.log = %q: each step should be done once", got)
	}
	// Three runs, each counted though two machines died soon after their
	// job's start (a checkpoint's report follows its run's start), two of
	// them from a checkpoint: NumRestarts, "the number of restarts from a
	// checkpoint" (manual, Job ClassAd Attributes).
	for name, want := range map[string]string{attr.CheckpointNumber: "2", attr.ExitCode: "0", attr.NumRestarts: "2", attr.JobRunCount: "3", attr.NumJobStarts: "3"} {
		if got := str(ad, name); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}
