package cgroups

import (
	"os"
	"path/filepath"
	"strings"
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

// Groups left by an earlier startd are killed and removed. One that
// cannot be removed, or a startd group that cannot be read, is reported,
// not passed over in silence (its processes may still run).
func TestCleanup(t *testing.T) {
	m := fakeManager(t)
	os.Mkdir(filepath.Join(m.parent, GroupPrefix+"old"), 0o755)
	os.Mkdir(filepath.Join(m.parent, "other"), 0o755)
	if n, err := m.Cleanup(); n != 1 || err != nil {
		t.Errorf("cleaned %d groups, %v", n, err)
	}

	stuck := filepath.Join(m.parent, GroupPrefix+"stuck")
	os.Mkdir(stuck, 0o755)
	os.WriteFile(filepath.Join(stuck, "left"), nil, 0o644) // rmdir fails: not empty
	if n, err := m.Cleanup(); n != 1 || err == nil || !strings.Contains(err.Error(), stuck) {
		t.Errorf("a group that cannot be removed: %d, %v", n, err)
	}
	if err := m.Close(); err == nil {
		t.Error("closing with a group left: no error")
	}

	gone := &Manager{parent: filepath.Join(t.TempDir(), "gone")}
	if _, err := gone.Cleanup(); err == nil {
		t.Error("a startd group that cannot be listed: no error")
	}
}
