package cgroups

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Detect finds a writable cgroup v2 hierarchy and prepares parent (a path
// under the cgroup2 mount; "" is this process's own group) for job
// groups, enabling the memory and cpu controllers where it can. The error
// says why there is none.
func Detect(parent string) (*Manager, error) {
	mount, root, err := cgroup2Mount()
	if err != nil {
		return nil, err
	}
	own := parent == ""
	if own {
		if parent, err = ownGroup(); err != nil {
			return nil, err
		}
	}
	rel, err := filepath.Rel(root, "/"+strings.TrimPrefix(parent, "/"))
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("cgroup %s is outside the cgroup2 mount (rooted at %s)", parent, root)
	}
	m := &Manager{parent: filepath.Join(mount, rel), controllers: map[string]bool{}}
	if err := m.probe(); err != nil {
		return nil, err
	}
	m.enableControllers(own)
	return m, nil
}

// cgroup2Mount finds where the cgroup2 file system is mounted and the
// group its mount shows as its root.
func cgroup2Mount() (mount, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", fmt.Errorf("no cgroup v2: %w", err)
	}
	defer f.Close()
	if mount, root, ok := findCgroup2(f); ok {
		return mount, root, nil
	}
	return "", "", errors.New("no cgroup v2 file system is mounted")
}

// findCgroup2 reads mountinfo lines: "id parent dev root mountpoint
// options - fstype source superoptions".
func findCgroup2(r io.Reader) (mount, root string, ok bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		pre, post, found := strings.Cut(sc.Text(), " - ")
		fields, after := strings.Fields(pre), strings.Fields(post)
		if found && len(fields) >= 5 && len(after) >= 1 && after[0] == "cgroup2" {
			return fields[4], fields[3], true
		}
	}
	return "", "", false
}

// ownGroup reads this process's cgroup v2 group ("0::/path").
func ownGroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p, nil
		}
	}
	return "", errors.New("this process is in no cgroup v2 group")
}

// probe checks that groups can be made under the parent.
func (m *Manager) probe() error {
	p := filepath.Join(m.parent, GroupPrefix+"probe_"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(p, 0o755); err != nil {
		return fmt.Errorf("cgroup v2 at %s is not writable: %w", m.parent, err)
	}
	return syscall.Rmdir(p)
}

// enableControllers turns on memory and cpu for the parent's children.
// A group holding processes cannot do that (cgroup v2's rule that only
// leaves hold processes), so when the parent is this process's own group
// the process first moves into a leaf of its own, as systemd's delegation
// expects.
func (m *Manager) enableControllers(own bool) {
	avail := strings.Fields(readString(filepath.Join(m.parent, "cgroup.controllers")))
	for _, c := range []string{"memory", "cpu"} {
		if !contains(avail, c) {
			continue
		}
		err := os.WriteFile(filepath.Join(m.parent, "cgroup.subtree_control"), []byte("+"+c), 0o644)
		if errors.Is(err, syscall.EBUSY) && own && m.moveSelfToLeaf() == nil {
			err = os.WriteFile(filepath.Join(m.parent, "cgroup.subtree_control"), []byte("+"+c), 0o644)
		}
		m.controllers[c] = err == nil
	}
}

// moveSelfToLeaf moves this process into parent/startd.
func (m *Manager) moveSelfToLeaf() error {
	leaf := filepath.Join(m.parent, "startd")
	if err := os.Mkdir(leaf, 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	return os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

func readString(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
