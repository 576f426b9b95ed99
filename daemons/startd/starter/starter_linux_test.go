package starter

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// waitFor polls until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// readPids reads the pids a test job wrote, once there are n.
func readPids(t *testing.T, file string, n int) []int {
	t.Helper()
	var pids []int
	waitFor(t, fmt.Sprintf("%d pids in %s", n, file), func() bool {
		b, _ := os.ReadFile(file)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return len(pids) >= n
	})
	return pids
}

// procState returns a process's state letter ("" when gone).
func procState(pid int) string {
	f := statFields(pid)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func gone(pid int) bool { s := procState(pid); return s == "" || s == "Z" || s == "X" }

// treeScript starts children and grandchildren that all sleep; one
// ignores SIGTERM, and with a cgroup one leaves the process group.
func treeScript(pidFile string, escape bool) string {
	s := "#!/bin/sh\necho $$ >> " + pidFile + "\n" +
		"(trap '' TERM; sleep 300 & echo $! >> " + pidFile + "; wait) &\n" +
		"(sleep 300 & echo $! >> " + pidFile + "; sleep 300) &\n"
	if escape {
		s += "setsid sh -c 'echo $$ >> " + pidFile + "; sleep 300' &\n"
	}
	return s + "wait\n"
}

// Vacating a job kills its whole process tree: children, grandchildren,
// a process ignoring SIGTERM (after the grace) and, with a cgroup, one
// that left the process group.
func TestVacateKillsTree(t *testing.T) {
	f := newFakeSchedd(nil)
	cfg := testConfig(t, f)
	pidFile := filepath.Join(t.TempDir(), "pids")
	escape := cfg.Cgroups != nil
	f.inputs["/tree.sh"] = treeScript(pidFile, escape)
	s := run(t, cfg, jobAd(t, `Cmd = "/tree.sh"`))
	f.next(t)
	n := 3
	if escape {
		n = 4
	}
	pids := readPids(t, pidFile, n)
	waitFor(t, "the whole tree", func() bool { return len(groupPids(pids[0]))+map[bool]int{true: 1}[escape] >= 5 })
	all := append(groupPids(pids[0]), pids[3:]...)
	s.Vacate("removed by alice", false)
	u := f.next(t)
	if u.Event != wire.EventEvicted || u.Reason != "removed by alice" {
		t.Errorf("%+v", u)
	}
	<-s.Done()
	for _, pid := range all {
		if !gone(pid) {
			t.Errorf("process %d survived (state %s)", pid, procState(pid))
		}
	}
	if !escape {
		t.Log("no writable cgroup v2 here: a process that leaves the job's process group is not tracked")
	}
}

// Suspending stops every process of the job; continuing resumes them.
func TestSuspendContinue(t *testing.T) {
	f := newFakeSchedd(nil)
	cfg := testConfig(t, f)
	pidFile := filepath.Join(t.TempDir(), "pids")
	f.inputs["/tree.sh"] = treeScript(pidFile, false)
	s := run(t, cfg, jobAd(t, `Cmd = "/tree.sh"`))
	f.next(t)
	pids := readPids(t, pidFile, 3)
	waitFor(t, "the whole tree", func() bool { return len(groupPids(pids[0])) >= 5 })
	if err := s.Suspend(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "all stopped", func() bool {
		for _, pid := range groupPids(pids[0]) {
			if procState(pid) != "T" {
				return false
			}
		}
		return true
	})
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "all running again", func() bool {
		for _, pid := range groupPids(pids[0]) {
			if procState(pid) == "T" {
				return false
			}
		}
		return true
	})
	s.Vacate("done", true)
	if u := f.next(t); u.Event != wire.EventEvicted {
		t.Errorf("%+v", u)
	}
	if err := s.Suspend(); err == nil {
		t.Error("a job that is over was suspended")
	}
}

// A job that uses more memory than it asked for is held (code 34): by the
// kernel where the job's cgroup has the memory controller, else by the
// startd's sampling.
func TestMemoryExceeded(t *testing.T) {
	f := newFakeSchedd(map[string]string{"/hog.sh": "#!/bin/sh\ndd if=/dev/zero bs=160M count=1 | sleep 60\n"})
	cfg := testConfig(t, f)
	cfg.MemoryMiB = 64
	if cfg.Cgroups.Has("memory") {
		t.Log("the kernel enforces the limit (cgroup memory controller)")
	} else {
		t.Log("no cgroup memory controller here: the startd's sampling enforces the limit")
	}
	s := run(t, cfg, jobAd(t, `Cmd = "/hog.sh"`))
	f.next(t)
	u := f.next(t)
	if u.Event != wire.EventHeld || u.HoldCode != attr.HoldJobOutOfResources || !strings.Contains(u.Reason, "MiB (its slot's Memory, from RequestMemory)") {
		t.Errorf("%+v", u)
	}
	if u.PeakMemoryMB <= 64 {
		t.Errorf("peak memory %d MiB", u.PeakMemoryMB)
	}
	<-s.Done()
}

// A startd running as root runs the job as the slot's user, with no
// supplementary groups, in a sandbox that user owns.
func TestRunsAsSlotUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	f := newFakeSchedd(map[string]string{"/id.sh": "#!/bin/sh\nid -u; id -g; id -G; stat -c %u .\n"})
	cfg := testConfig(t, f)
	for p := cfg.ExecuteDir; p != os.TempDir() && p != "/"; p = filepath.Dir(p) {
		os.Chmod(p, 0o755) // the test's temporary directories are private
	}
	cfg.User = &User{Name: "nobody", UID: 65534, GID: 65534}
	run(t, cfg, jobAd(t, "Cmd = \"/id.sh\"\nOut = \"id.out\""))
	f.next(t)
	if u := f.next(t); u.Event != wire.EventExited || u.ExitCode != 0 {
		t.Fatalf("%+v", u)
	}
	if got := f.outputs["id.out"]; got != "65534\n65534\n65534\n65534\n" {
		t.Errorf("the job ran as %q", got)
	}
}
