package cgroups

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFindCgroup2(t *testing.T) {
	info := "22 1 0:21 / /proc rw - proc proc rw\n" +
		"30 21 0:26 / /sys/fs/cgroup ro - tmpfs tmpfs ro\n" +
		"40 30 0:37 /kubepods/pod1 /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	mount, root, ok := findCgroup2(strings.NewReader(info))
	if !ok || mount != "/sys/fs/cgroup/unified" || root != "/kubepods/pod1" {
		t.Errorf("got %q %q %v", mount, root, ok)
	}
	if _, _, ok := findCgroup2(strings.NewReader("22 1 0:21 / /proc rw - proc proc rw\n")); ok {
		t.Error("found cgroup2 where there is none")
	}
}

// On a host with a writable cgroup v2, a process started into a job
// group is found there and killed with everything it started.
func TestRealGroup(t *testing.T) {
	m, err := Detect("", fmt.Sprintf("kite_test_%d", os.Getpid()))
	if err != nil {
		t.Skipf("this host offers no writable cgroup v2: %v", err)
	}
	defer func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}()
	t.Logf("cgroup v2 at %s; memory controller %v, cpu controller %v", m.Parent(), m.Has("memory"), m.Has("cpu"))
	g, err := m.Create("test_"+strings.ReplaceAll(t.Name(), "/", "_"), Limits{MemoryMiB: 64, Cpus: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	fd, err := g.Open()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(fd.Fd())}
	err = cmd.Start()
	fd.Close()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var pids []int
	for time.Now().Before(deadline) {
		if pids, _ = g.Procs(); len(pids) == 3 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) != 3 || !slices.Contains(pids, cmd.Process.Pid) {
		t.Fatalf("the group holds %v; the shell is %d", pids, cmd.Process.Pid)
	}
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !gone(pid, 5*time.Second) {
			t.Errorf("process %d survived", pid)
		}
	}
}

// gone waits until a process no longer runs: it does not exist, or it is
// a zombie waiting for its new parent to reap it.
func gone(pid int, wait time.Duration) bool {
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && len(b) > i+2 && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return true
		}
	}
	return false
}
