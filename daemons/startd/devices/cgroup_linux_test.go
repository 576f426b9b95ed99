package devices

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kite-sched/kite/daemons/startd/cgroups"
)

// confiner returns the host's Confiner, or skips the test saying why.
func confiner(t *testing.T) *Confiner {
	t.Helper()
	c, err := DetectConfiner()
	if err != nil {
		t.Skipf("neither a writable cgroup v1 devices controller nor eBPF device programs: %v", err)
	}
	return c
}

// writeNull runs a job writing to /dev/null, started by start, and
// reports whether the kernel let it.
func writeNull(t *testing.T, start func(*exec.Cmd) error) (allowed bool, stderr string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", "echo x > /dev/null")
	cmd.Stderr = &out
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if err != nil && !strings.Contains(out.String(), "not permitted") {
		t.Fatalf("the job failed otherwise: %v %s", err, out.String())
	}
	return err == nil, out.String()
}

// With the cgroup v1 devices controller a job's process is born in a
// group that denies the devices of other jobs (HTCondor's
// STARTER_HIDE_GPU_DEVICES): here /dev/null stands for a GPU, so that
// the test needs no GPU. The starting thread goes back home after the
// fork.
func TestConfinerV1(t *testing.T) {
	c := confiner(t)
	if c.home == "" {
		t.Skip("no writable cgroup v1 devices controller")
	}
	name := "test_" + strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		deny    []string
		allowed bool
	}{{[]string{"/dev/null"}, false}, {nil, true}} {
		g, err := c.Create(name, tc.deny)
		if err != nil {
			t.Fatal(err)
		}
		if allowed, out := writeNull(t, g.Start); allowed != tc.allowed {
			t.Errorf("deny %v: the job's write to /dev/null allowed %v (%s), want %v", tc.deny, allowed, out, tc.allowed)
		}
		if err := g.Remove(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(c.home, GroupPrefix+name)); !os.IsNotExist(err) {
			t.Errorf("the group is still there: %v", err)
		}
	}
	if f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err != nil {
		t.Errorf("the test process lost /dev/null: %v", err)
	} else {
		f.Close()
	}
}

// With cgroup v2 the job's group gets an eBPF device program that denies
// the devices of other jobs and allows the rest.
func TestConfinerV2(t *testing.T) {
	c := confiner(t)
	if !c.bpf {
		t.Skip("eBPF device programs do not load here")
	}
	m, err := cgroups.Detect("", fmt.Sprintf("kite_test_devices_%d", os.Getpid()))
	if err != nil {
		t.Skipf("this host offers no writable cgroup v2: %v", err)
	}
	defer m.Close()
	v1 := c.home
	c.home = "" // the v2 program alone
	defer func() { c.home = v1 }()
	for i, tc := range []struct {
		deny    []string
		allowed bool
	}{{[]string{"/dev/null", "/dev/zero"}, false}, {[]string{"/dev/zero"}, true}, {nil, true}} {
		cg, err := m.Create(fmt.Sprintf("case%d", i), cgroups.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := c.Create("unused", tc.deny)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Confine(cg.Path); err != nil {
			t.Fatal(err)
		}
		start := func(cmd *exec.Cmd) error {
			f, err := cg.Open()
			if err != nil {
				return err
			}
			defer f.Close()
			cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(f.Fd())}
			return cmd.Start()
		}
		if allowed, out := writeNull(t, start); allowed != tc.allowed {
			t.Errorf("deny %v: the job's write to /dev/null allowed %v (%s), want %v", tc.deny, allowed, out, tc.allowed)
		}
		if err := cg.Remove(); err != nil {
			t.Error(err)
		}
	}
}

func TestCreateRefusesNonDevices(t *testing.T) {
	c := confiner(t)
	if _, err := c.Create("never", []string{"/etc/hostname"}); err == nil || !strings.Contains(err.Error(), "is not a device") {
		t.Errorf("a plain file: %v, want it refused", err)
	}
}

// The program denies exactly the devices it lists (its encoding: five
// instructions a device between a prologue of four and an epilogue of
// two).
func TestDenyProgramShape(t *testing.T) {
	p := denyProgram([]device{{bpfDevcgDevChar, 195, 1}, {bpfDevcgDevChar, 195, 2}})
	if len(p) != 4+2*5+2 {
		t.Fatalf("%d instructions", len(p))
	}
	if p[len(p)-2] != insn(bpfInsnMovImm64, bpfRegR0, 0, 0, 1) || p[len(p)-1] != insn(bpfInsnExit, 0, 0, 0, 0) {
		t.Error("the program does not end allowing")
	}
	if p[4+5+2] != insn(bpfInsnJneImm, bpfRegR4, 0, 2, 2) {
		t.Errorf("the second device's minor test is %#x", p[4+5+2])
	}
}
