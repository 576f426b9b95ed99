// Package cgroups puts each job in its own cgroup v2 group, where the host
// offers a writable cgroup v2 hierarchy: the group holds the job's whole
// process tree (so it can be killed without a survivor), limits its
// memory and cpus when the memory and cpu controllers are available, and
// tells its peak memory, cpu time and whether the kernel killed it for
// memory. Where cgroup v2 is missing or read-only, Detect says why and the
// startd runs jobs without it.
package cgroups

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// GroupPrefix begins the name of every job group.
const GroupPrefix = "kite_job_"

// Manager makes job groups in a startd's own group.
type Manager struct {
	parent      string          // the startd's group (its scope): job groups go in it
	controllers map[string]bool // controllers enabled for the job groups
}

// Parent returns the directory of the group job groups are made in.
func (m *Manager) Parent() string { return m.parent }

// Has reports whether job groups get a controller ("memory", "cpu"); a
// nil Manager has none.
func (m *Manager) Has(controller string) bool { return m != nil && m.controllers[controller] }

// Limits are what a job may use.
type Limits struct {
	MemoryMiB int64 // 0: no limit
	Cpus      int64 // 0: no limit
}

// Group is one job's group.
type Group struct {
	Path string
	m    *Manager
}

// Create makes a job group named GroupPrefix+name with the limits the
// available controllers can enforce.
func (m *Manager) Create(name string, lim Limits) (*Group, error) {
	g := &Group{Path: filepath.Join(m.parent, GroupPrefix+name), m: m}
	if err := os.Mkdir(g.Path, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	if err := g.limit(lim); err != nil {
		return nil, errors.Join(err, g.Remove())
	}
	return g, nil
}

// limit writes the memory and cpu limits.
func (g *Group) limit(lim Limits) error {
	if g.m.Has("memory") && lim.MemoryMiB > 0 {
		if err := g.write("memory.max", strconv.FormatInt(lim.MemoryMiB<<20, 10)); err != nil {
			return err
		}
		g.write("memory.swap.max", "0") // absent without swap accounting
		g.write("memory.oom.group", "1")
	}
	if g.m.Has("cpu") && lim.Cpus > 0 {
		if err := g.write("cpu.weight", strconv.FormatInt(min(max(lim.Cpus*100, 1), 10000), 10)); err != nil {
			return err
		}
		if err := g.write("cpu.max", fmt.Sprintf("%d 100000", lim.Cpus*100000)); err != nil {
			return err
		}
	}
	return nil
}

func (g *Group) write(file, value string) error {
	if err := os.WriteFile(filepath.Join(g.Path, file), []byte(value), 0o644); err != nil {
		return fmt.Errorf("cgroup %s: %w", file, err)
	}
	return nil
}

// Open opens the group's directory, for starting a process straight into
// it (SysProcAttr.CgroupFD); the caller closes it.
func (g *Group) Open() (*os.File, error) { return os.Open(g.Path) }

// AddProcess moves a process into the group.
func (g *Group) AddProcess(pid int) error { return g.write("cgroup.procs", strconv.Itoa(pid)) }

// Procs returns the processes in the group.
func (g *Group) Procs() ([]int, error) {
	b, err := os.ReadFile(filepath.Join(g.Path, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// Signal sends sig to every process in the group.
func (g *Group) Signal(sig syscall.Signal) error {
	pids, err := g.Procs()
	for _, pid := range pids {
		syscall.Kill(pid, sig)
	}
	return err
}

// Kill kills every process in the group, with cgroup.kill where the
// kernel has it.
func (g *Group) Kill() error {
	if err := g.write("cgroup.kill", "1"); err == nil {
		return nil
	}
	return g.Signal(syscall.SIGKILL)
}

// Remove kills what is left in the group and removes it, waiting a little
// for the processes to be gone.
func (g *Group) Remove() error {
	var err error
	for i := 0; i < 50; i++ {
		if err = syscall.Rmdir(g.Path); err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			break
		}
		g.Kill()
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("cgroup: removing %s: %w", g.Path, err)
}

// Stats are what the group's processes used.
type Stats struct {
	MemoryBytes     int64 // now (memory.current)
	PeakMemoryBytes int64 // highest seen (memory.peak), 0 when unknown
	UserCPU, SysCPU time.Duration
	OOMKills        int64 // processes the kernel killed for the memory limit
}

// Stats reads the group's accounting; parts the kernel does not offer
// stay zero.
func (g *Group) Stats() Stats {
	var s Stats
	s.MemoryBytes = readInt(filepath.Join(g.Path, "memory.current"))
	s.PeakMemoryBytes = readInt(filepath.Join(g.Path, "memory.peak"))
	cpu := readKeyed(filepath.Join(g.Path, "cpu.stat"))
	s.UserCPU = time.Duration(cpu["user_usec"]) * time.Microsecond
	s.SysCPU = time.Duration(cpu["system_usec"]) * time.Microsecond
	s.OOMKills = readKeyed(filepath.Join(g.Path, "memory.events"))["oom_kill"]
	return s
}

func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return n
}

// readKeyed reads a file of "key value" lines.
func readKeyed(path string) map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 {
			out[f[0]], _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return out
}

// Close removes the startd's group once its job groups are gone.
func (m *Manager) Close() error {
	_, err := m.Cleanup()
	if rerr := syscall.Rmdir(m.parent); rerr != nil && !errors.Is(rerr, syscall.ENOENT) {
		err = errors.Join(err, fmt.Errorf("cgroup: removing %s: %w", m.parent, rerr))
	}
	return err
}

// Cleanup kills and removes the job groups left in the startd's group
// (by an earlier run of it); it returns how many there were, and why the
// group could not be read or some could not be removed (their processes
// may still run, outside any accounting).
func (m *Manager) Cleanup() (int, error) {
	entries, err := os.ReadDir(m.parent)
	if err != nil {
		return 0, fmt.Errorf("cgroup: listing %s: %w", m.parent, err)
	}
	n := 0
	var errs []error
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), GroupPrefix) {
			errs = append(errs, (&Group{Path: filepath.Join(m.parent, e.Name()), m: m}).Remove())
			n++
		}
	}
	return n, errors.Join(errs...)
}
