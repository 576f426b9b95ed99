package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFakeProcess is not a test: run as a child with KITE_FAKE_PROCESS
// set, it says it is ready and waits to be killed, standing for a master
// or another program (by the arguments it is given after --).
func TestFakeProcess(t *testing.T) {
	if os.Getenv("KITE_FAKE_PROCESS") == "" {
		t.Skip("a helper process")
	}
	fmt.Println("ready")
	select {}
}

// fakeProcess starts the test binary as a process whose arguments end in
// args, and writes its pid to a pid file.
func fakeProcess(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestFakeProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "KITE_FAKE_PROCESS=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// Its arguments are in /proc once it runs: right after the exec the
	// kernel may not have set them yet (the CI saw an empty command line).
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the fake process did not start: %q %v", line, err)
	}
	pidFile := filepath.Join(t.TempDir(), "master.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return cmd, pidFile
}

// processState returns the state letter /proc gives a process.
func processState(t *testing.T, pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return s[strings.LastIndexByte(s, ')')+2]
}

// `kite up` right after a SIGKILL of the master: the master is a zombie
// until its parent reaps it, and kill(pid, 0) succeeds on a zombie, so
// the pool was taken for running and `kite up` failed after its timeout.
// A zombie, and a live process that is no master (the pid reused), are
// not a running master; a live master is.
func TestRunningMasterSeesThroughZombies(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	master, pidFile := fakeProcess(t, "master", "--config", "kite.toml")
	if pid, ok := runningMaster(pidFile); !ok || pid != master.Process.Pid {
		t.Fatalf("a live master: running %v pid %d, want pid %d", ok, pid, master.Process.Pid)
	}
	_, other := fakeProcess(t, "something", "else")
	if pid, ok := runningMaster(other); ok {
		t.Errorf("a process that is no master (pid %d) taken for a running master", pid)
	}
	if err := master.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not reaped: it turns into a zombie as soon as the kernel has killed it.
	for deadline := time.Now().Add(10 * time.Second); processState(t, master.Process.Pid) != 'Z'; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed master is in state %c, not a zombie", processState(t, master.Process.Pid))
		}
	}
	if pid, ok := runningMaster(pidFile); ok {
		t.Errorf("a zombie master (pid %d) taken for a running one", pid)
	}
}
