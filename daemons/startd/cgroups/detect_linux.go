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

// Detect finds a writable cgroup v2 hierarchy and makes the group scope
// under parent (a path under the cgroup2 mount; "" is this process's own
// group), in which job groups are made, enabling the memory and cpu
// controllers where it can. A scope of its own keeps a startd's job
// groups apart from another's. The error says why there is none.
func Detect(parent, scope string) (*Manager, error) {
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
	base := filepath.Join(mount, rel)
	m := &Manager{parent: filepath.Join(base, scope), controllers: map[string]bool{}}
	if err := os.Mkdir(m.parent, 0o755); err != nil && !os.IsExist(err) {
		return nil, fmt.Errorf("cgroup v2 at %s is not writable: %w", base, err)
	}
	m.enableControllers(base, own)
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

// enableControllers turns on memory and cpu for the job groups: in the
// base group's children, then in the scope's. A group holding processes
// cannot do that (cgroup v2's rule that only leaves hold processes), so
// when the base is this process's own group the process first moves into
// a leaf of its own, as systemd's delegation expects.
func (m *Manager) enableControllers(base string, own bool) {
	avail := strings.Fields(readString(filepath.Join(base, "cgroup.controllers")))
	for _, c := range []string{"memory", "cpu"} {
		if !contains(avail, c) {
			continue
		}
		err := enable(base, c)
		if errors.Is(err, syscall.EBUSY) && own && moveSelfToLeaf(base) == nil {
			err = enable(base, c)
		}
		m.controllers[c] = err == nil && enable(m.parent, c) == nil
	}
}

// enable turns a controller on for a group's children.
func enable(group, controller string) error {
	return os.WriteFile(filepath.Join(group, "cgroup.subtree_control"), []byte("+"+controller), 0o644)
}

// moveSelfToLeaf moves this process into base/startd.
func moveSelfToLeaf(base string) error {
	leaf := filepath.Join(base, "startd")
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
