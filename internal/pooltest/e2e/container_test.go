package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/daemons/startd/container"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// Container universe jobs with a real runtime (HTCondor manual,
// "Container Universe Jobs"; issue 19): the startd finds podman working
// and advertises it; a job runs in a local image (a busybox root file
// system imported into podman: no registry is reachable), reads its
// input (a file and its standard input) and writes output that comes
// back, as a user who is not root; a directory image runs too; an exit
// code of 127 is the job's own; an image that cannot be pulled and an
// executable missing from the image hold the job with podman's words,
// and nothing runs on the bare host.
func TestContainerUniverse(t *testing.T) {
	image, rootfs := busyboxImage(t)
	var prefix string // of the startd's containers
	pl := newPoolWith(t, 2, func(c *startd.Config) {
		c.Containers.Want = "podman"
		if os.Geteuid() == 0 {
			c.SlotUser = "nobody" // a root startd's jobs run as the slot user, in containers too
			c.ExecuteDir = reachableDir(t)
		}
		prefix = container.Prefix(c.ExecuteDir)
	}, "a")
	dir := t.TempDir()
	writeFile(t, dir, "input.txt", "from the submit side\n")
	writeFile(t, dir, "run.sh", "#!/bin/sh\ncat input.txt > out.txt\ncat > stdin.$1\nid -u > uid.txt\npwd > pwd.txt\necho \"in $1\"\nexit ${2:-0}\n")
	c := pl.submit(dir, fmt.Sprintf(`universe = container
container_image = docker://%s
executable = run.sh
arguments = docker 0
transfer_input_files = input.txt
should_transfer_files = YES
input = input.txt
output = out.$(Process)
queue
input =
container_image = %s
transfer_container = false
arguments = directory 127
queue
container_image = docker://localhost/kite-no-such-image:latest
arguments =
queue
container_image = docker://%s
executable = /no/such/program
transfer_executable = false
queue
`, image, rootfs, image))
	pl.checkProcs(c, dir, "out.%d", []procResult{{"in docker\n", "0"}, {"in directory\n", "127"}})
	slot := containerSlot(t, pl) // advertised by now: it ran the jobs
	if str(slot, attr.HasContainer) != "true" || str(slot, attr.HasDockerURL) != "true" ||
		str(slot, attr.HasSandboxImage) != "true" || !strings.HasPrefix(str(slot, attr.DockerVersion), "podman version") {
		t.Errorf("the slot does not advertise podman: %v", slot)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "from the submit side\n" {
		t.Errorf("the job's output file: %q", b)
	}
	for name, want := range map[string]string{"stdin.docker": "from the submit side\n", "stdin.directory": ""} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("the job's standard input, %s: %q %v; want %q", name, b, err, want)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "uid.txt"))
	t.Logf("the job ran as uid %s inside its container", strings.TrimSpace(string(b)))
	if strings.TrimSpace(string(b)) == "0" || len(b) == 0 {
		t.Errorf("the job ran as uid %q inside its container: want a user who is not root", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "pwd.txt")); !strings.Contains(string(b), "dir_") {
		t.Errorf("the job's working directory inside: %q, want its sandbox", b)
	}
	for proc, want := range []string{2: "kite-no-such-image", 3: "/no/such/program"} {
		if want == "" {
			continue
		}
		ad := pl.waitStatus(fmt.Sprintf("%d.%d", c, proc), attr.Held)
		reason := str(ad, attr.HoldReason)
		t.Logf("job %d held: %s", proc, reason)
		if !strings.Contains(reason, want) || str(ad, attr.HoldReasonCode) != fmt.Sprint(attr.HoldInvalidDockerImage) {
			t.Errorf("job %d held with code %s: %q; want code %d naming %s", proc, str(ad, attr.HoldReasonCode), reason, attr.HoldInvalidDockerImage, want)
		}
	}
	if out := containers(t, prefix); out != "" {
		t.Errorf("containers left behind: %q", out)
	}
}

// busyboxImage makes a busybox root file system and imports it into
// podman, or skips the test saying what is missing. It returns the
// image's name and the directory.
func busyboxImage(t *testing.T) (image, rootfs string) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("no podman on this machine: the container test needs a working runtime (CI installs podman and runc, .ci/run)")
	}
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("no busybox to build the test's image from (CI installs busybox-static, .ci/run)")
	}
	if d := container.Detect(context.Background(), container.Config{Want: "podman", ProbeDir: t.TempDir()}); d.Runtime == nil {
		t.Skipf("podman does not run containers on this machine: %s", d.Offline[container.Podman])
	}
	rootfs = filepath.Join(t.TempDir(), "rootfs")
	for _, d := range []string{"bin", "tmp", "etc"} {
		if err := os.MkdirAll(filepath.Join(rootfs, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(busybox)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(rootfs, "bin"), "busybox", string(data))
	for _, cmd := range []string{"sh", "cat", "id", "pwd", "echo", "sleep"} {
		if err := os.Symlink("busybox", filepath.Join(rootfs, "bin", cmd)); err != nil {
			t.Fatal(err)
		}
	}
	tarball := filepath.Join(t.TempDir(), "rootfs.tar")
	image = fmt.Sprintf("localhost/kite-e2e-busybox-%d:latest", os.Getpid())
	for _, args := range [][]string{{"tar", "-C", rootfs, "-cf", tarball, "."}, {"podman", "import", tarball, image}} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Cleanup(func() { exec.Command("podman", "rmi", "--force", image).Run() })
	return image, rootfs
}

// reachableDir is an execute directory the slot user can reach (a test's
// temporary directories are private).
func reachableDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kite-container-e2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// containerSlot returns a slot ad from the collector.
func containerSlot(t *testing.T, pl *pool) *classad.Ad {
	t.Helper()
	q := wire.Query{Type: "Machine"}
	var slot *classad.Ad
	err := pl.p.Client("collector:9618", "alice", auth.Read).Stream(context.Background(), "POST", wire.PathQuery, q, func(item json.RawMessage) (err error) {
		slot, err = classad.ParseJSON(item)
		return err
	})
	if err != nil || slot == nil {
		t.Fatalf("slot ad: %v", err)
	}
	return slot
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Removing a running container job reaches its container: the runtime's
// attached process forwards the soft kill signal, the container's init
// ignores it, and after the grace the container is killed through the
// runtime and removed before the schedd hears of the job's end (HTCondor
// manual, "Docker Universe Applications": the container is removed when
// the job ends).
func TestContainerJobRemoved(t *testing.T) {
	image, _ := busyboxImage(t)
	var prefix string
	pl := newPoolWith(t, 1, func(c *startd.Config) {
		c.Containers.Want, c.KillGrace = "podman", 200*time.Millisecond
		if os.Geteuid() == 0 {
			c.SlotUser, c.ExecuteDir = "nobody", reachableDir(t)
		}
		prefix = container.Prefix(c.ExecuteDir)
	}, "a")
	dir := t.TempDir()
	c := pl.submit(dir, fmt.Sprintf("container_image = docker://%s\nexecutable = /bin/sleep\ntransfer_executable = false\narguments = 600\nqueue\n", image))
	id := fmt.Sprintf("%d.0", c)
	pl.waitStatus(id, attr.Running)
	waitContainers(t, prefix, "Up")
	pl.act("remove", id, "the test removes it")
	pl.waitStatus(id, attr.Removed) // at once; the startd then stops the job
	waitContainers(t, prefix, "")
}

// containers lists a startd's containers (their names begin with prefix)
// and their states.
func containers(t *testing.T, prefix string) string {
	t.Helper()
	out, err := exec.Command("podman", "ps", "--all", "--format", "{{.Names}} {{.Status}}", "--filter", "name=^"+prefix).CombinedOutput()
	if err != nil {
		t.Fatalf("podman ps: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// waitContainers waits until a container of a startd's is in state, or
// with state "" until none is left.
func waitContainers(t *testing.T, prefix, state string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("a container %q", state), func() (string, bool) {
		list := containers(t, prefix)
		return list, state == "" && list == "" || state != "" && strings.Contains(list, " "+state)
	})
}
