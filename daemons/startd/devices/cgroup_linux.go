package devices

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// GroupPrefix begins the name of every job's devices group.
const GroupPrefix = "kite_devices_"

// Confiner keeps jobs from the devices of other jobs (HTCondor's
// STARTER_HIDE_GPU_DEVICES), with what the host has: with the cgroup v1
// devices controller, each such job gets a group that denies them
// (devices.deny) and its process is born in it; with cgroup v2, the
// job's group (daemons/startd/cgroups) gets an eBPF device program that
// denies them. A host with neither has no Confiner.
type Confiner struct {
	home string // the startd's own v1 devices group; "": no v1 devices controller
	bpf  bool   // eBPF device programs can be loaded
}

// V1 reports whether jobs get cgroup v1 devices groups.
func (c *Confiner) V1() bool { return c.home != "" }

// BPF reports whether jobs' cgroup v2 groups get device programs.
func (c *Confiner) BPF() bool { return c.bpf }

// DetectConfiner finds the writable cgroup v1 devices hierarchy and the
// startd's group in it, and whether eBPF device programs load; the error
// says why neither works.
func DetectConfiner() (*Confiner, error) {
	c := &Confiner{}
	v1, err := v1Home()
	if err == nil {
		c.home = v1
	}
	bpfErr := bpfWorks()
	c.bpf = bpfErr == nil
	if c.home == "" && !c.bpf {
		return nil, fmt.Errorf("cgroup v1: %v; cgroup v2: %v", err, bpfErr)
	}
	return c, nil
}

// v1Home returns the startd's own group in the v1 devices hierarchy.
func v1Home() (string, error) {
	mount, err := devicesMount()
	if err != nil {
		return "", err
	}
	own, err := ownGroup()
	if err != nil {
		return "", err
	}
	home := filepath.Join(mount, own)
	if err := syscall.Access(filepath.Join(home, "tasks"), 2 /* W_OK */); err != nil {
		return "", fmt.Errorf("the devices cgroup %s is not writable: %w", home, err)
	}
	return home, nil
}

// devicesMount returns where the v1 devices controller is mounted.
func devicesMount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, opts := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(opts) < 3 || opts[0] != "cgroup" {
			continue
		}
		for _, o := range strings.Split(opts[2], ",") {
			if o == "devices" {
				return fields[4], nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New("no cgroup v1 devices controller is mounted")
}

// ownGroup returns the process's group in the devices hierarchy.
func ownGroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && strings.Contains(","+parts[1]+",", ",devices,") {
			return parts[2], nil
		}
	}
	return "", errors.New("the process is in no devices cgroup")
}

// Group is what keeps one job from the devices it was not given: its v1
// devices group (none without the controller) and the devices its v2
// group's program denies.
type Group struct {
	dir, home string
	deny      []device
	bpf       bool
}

// Create makes the group name that denies the device files deny (read,
// write and mknod). A file that is not a device is an error.
func (c *Confiner) Create(name string, deny []string) (*Group, error) {
	g := &Group{home: c.home, bpf: c.bpf}
	var rules []string
	for _, path := range deny {
		d, err := deviceOf(path)
		if err != nil {
			return nil, err
		}
		g.deny = append(g.deny, d)
		rules = append(rules, fmt.Sprintf("%c %d:%d rwm", map[uint32]byte{bpfDevcgDevChar: 'c', bpfDevcgDevBlock: 'b'}[d.kind], d.major, d.minor))
	}
	if c.home == "" {
		return g, nil
	}
	g.dir = filepath.Join(c.home, GroupPrefix+name)
	if err := os.Mkdir(g.dir, 0o755); err != nil {
		return nil, fmt.Errorf("devices cgroup: %w", err)
	}
	for _, r := range rules {
		if err := os.WriteFile(filepath.Join(g.dir, "devices.deny"), []byte(r), 0); err != nil {
			return nil, errors.Join(fmt.Errorf("devices cgroup: denying %s: %w", r, err), g.Remove())
		}
	}
	return g, nil
}

// deviceOf returns a device file's type and numbers.
func deviceOf(path string) (device, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return device{}, fmt.Errorf("devices cgroup: %w", &os.PathError{Op: "stat", Path: path, Err: err})
	}
	d := device{major: uint32((st.Rdev>>8)&0xfff | (st.Rdev>>32)&^0xfff), minor: uint32(st.Rdev&0xff | (st.Rdev>>12)&^0xff)}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFCHR:
		d.kind = bpfDevcgDevChar
	case syscall.S_IFBLK:
		d.kind = bpfDevcgDevBlock
	default:
		return device{}, fmt.Errorf("devices cgroup: %s is not a device", path)
	}
	return d, nil
}

// Confine attaches to the job's cgroup v2 group (a directory under the
// cgroup2 mount) a device program denying the group's devices; nothing
// where eBPF device programs do not load.
func (g *Group) Confine(v2group string) error {
	if !g.bpf || len(g.deny) == 0 {
		return nil
	}
	return denyInGroup(v2group, g.deny)
}

// Start starts cmd with its process born in the group: the calling OS
// thread joins the group, forks, and goes back home. Should the thread
// fail to go back, it stays locked to the goroutine and ends with it,
// so that no other goroutine runs confined. What Start opens itself
// (/dev/null for standard files left nil) is opened before, outside the
// group, which may deny it.
func (g *Group) Start(cmd *exec.Cmd) error {
	if g.dir == "" {
		return cmd.Start()
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	for _, f := range []*io.Reader{&cmd.Stdin} {
		if *f == nil {
			*f = null
		}
	}
	for _, f := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		if *f == nil {
			*f = null
		}
	}
	runtime.LockOSThread()
	tid := []byte(strconv.Itoa(syscall.Gettid()))
	if err := os.WriteFile(filepath.Join(g.dir, "tasks"), tid, 0); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("devices cgroup: %w", err)
	}
	err = cmd.Start()
	if back := os.WriteFile(filepath.Join(g.home, "tasks"), tid, 0); back != nil {
		return errors.Join(err, fmt.Errorf("devices cgroup: the starting thread cannot go back: %w", back))
	}
	runtime.UnlockOSThread()
	return err
}

// Remove removes the v1 group, once its processes are gone (the v2
// group's program goes with that group).
func (g *Group) Remove() error {
	if g.dir == "" {
		return nil
	}
	if err := os.Remove(g.dir); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("devices cgroup: %w", err)
	}
	return nil
}
