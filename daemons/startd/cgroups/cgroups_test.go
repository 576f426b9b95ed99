package cgroups

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A fake cgroup directory: the files a kernel would offer, as plain files.
func fakeManager(t *testing.T, controllers ...string) *Manager {
	m := &Manager{parent: t.TempDir(), controllers: map[string]bool{}}
	for _, c := range controllers {
		m.controllers[c] = true
	}
	return m
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Limits go to the files of the controllers that are enabled, and only
// those.
func TestLimits(t *testing.T) {
	m := fakeManager(t, "memory", "cpu")
	g, err := m.Create("slot1_1", Limits{MemoryMiB: 128, Cpus: 2})
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"memory.max": "134217728", "memory.swap.max": "0", "memory.oom.group": "1",
		"cpu.weight": "200", "cpu.max": "200000 100000",
	} {
		if got := read(t, filepath.Join(g.Path, file)); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	if filepath.Base(g.Path) != "kite_job_slot1_1" {
		t.Errorf("group %s", g.Path)
	}
	bare := fakeManager(t)
	g2, err := bare.Create("x", Limits{MemoryMiB: 128, Cpus: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(g2.Path, "memory.max")); !os.IsNotExist(err) {
		t.Error("a memory limit without the memory controller")
	}
}

func TestStats(t *testing.T) {
	m := fakeManager(t, "memory")
	g, _ := m.Create("j", Limits{})
	os.WriteFile(filepath.Join(g.Path, "memory.current"), []byte("1048576\n"), 0o644)
	os.WriteFile(filepath.Join(g.Path, "memory.peak"), []byte("73400320\n"), 0o644)
	os.WriteFile(filepath.Join(g.Path, "cpu.stat"), []byte("usage_usec 3500000\nuser_usec 3000000\nsystem_usec 500000\n"), 0o644)
	os.WriteFile(filepath.Join(g.Path, "memory.events"), []byte("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n"), 0o644)
	s := g.Stats()
	want := Stats{MemoryBytes: 1 << 20, PeakMemoryBytes: 70 << 20, UserCPU: 3 * time.Second, SysCPU: 500 * time.Millisecond, OOMKills: 1}
	if s != want {
		t.Errorf("stats %+v, want %+v", s, want)
	}
	if (&Group{Path: t.TempDir()}).Stats() != (Stats{}) {
		t.Error("stats of a group without files")
	}
}

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
	if runtime.GOOS != "linux" {
		t.Skip("cgroups exist only on Linux")
	}
	m, err := Detect("")
	if err != nil {
		t.Skipf("this host offers no writable cgroup v2: %v", err)
	}
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

// Groups left by an earlier startd are killed and removed.
func TestCleanup(t *testing.T) {
	m := fakeManager(t)
	os.Mkdir(filepath.Join(m.parent, GroupPrefix+"old"), 0o755)
	os.Mkdir(filepath.Join(m.parent, "other"), 0o755)
	if n := m.Cleanup(); n != 1 {
		t.Errorf("cleaned %d groups", n)
	}
}
