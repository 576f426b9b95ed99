package starter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/daemons/startd/container"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// fakePodman is a podman that makes "containers" as files in its
// directory: create fails for an image named bad; start prints a line and
// ends as the state file says (exited with a code, or never ran, with the
// runtime's error); inspect reports that state.
const fakePodman = `#!/bin/sh
dir=$(dirname "$0")
echo "$*" >> "$dir/calls"
cmd=$1; shift
case $cmd in
create)
  case "$*" in *docker://bad*) echo "Error: docker://bad: image not known" >&2; exit 125;; esac
  for a; do name=$a; done
  touch "$dir/exists";;
init) ;;
start)
  state=$(cat "$dir/mode")
  case $state in
  created*) echo "Error: OCI runtime error: cannot exec" >&2; exit 126;;
  esac
  echo "hello from the container"
  exit 125;;
inspect) cat "$dir/mode";;
ps) [ -e "$dir/exists" ] && echo someid;;
rm) rm -f "$dir/exists";;
kill) ;;
esac
exit 0
`

// runtimeForTest returns a Runtime that runs fakePodman, whose inspect
// answers mode.
func runtimeForTest(t *testing.T, mode string) (*container.Runtime, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "podman")
	if err := os.WriteFile(path, []byte(fakePodman), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mode"), []byte(mode), 0o644); err != nil {
		t.Fatal(err)
	}
	return &container.Runtime{Kind: container.Podman, Path: path}, dir
}

// containerConfig is a starter's configuration for a container job, run
// as a user who is not root (as the startd would).
func containerConfig(t *testing.T, f *fakeSchedd, rt *container.Runtime) Config {
	cfg := testConfig(t, f)
	cfg.Containers, cfg.ContainerPrefix = rt, "kite-test-"
	if os.Getuid() == 0 {
		dir, err := os.MkdirTemp("", "kite-starter-container")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o755)
		cfg.ExecuteDir, cfg.User = dir, &User{Name: "nobody", UID: 65534, GID: 65534}
	}
	return cfg
}

const containerJob = `WantContainer = true
ContainerImage = "docker://debian:12"
Cmd = "/bin/prog"
TransferExecutable = false
Out = "job.out"
`

// The starter tells a container that ran and ended from one that never
// ran (HTCondor manual, "Container Universe Jobs"): exit code 125 of the
// job is its own, from the runtime's inspect; a container the runtime
// could not start, or not make, holds the job with the runtime's error
// (code 35, InvalidDockerImage), and a machine without a runtime holds
// it too; the container is removed before the end is reported.
func TestContainerJobEnds(t *testing.T) {
	cases := []struct {
		name, mode, image string
		noRuntime         bool
		event             string
		code              int
		reason            string
	}{
		{"exits 125 by itself", "exited|125|false|", "docker://debian:12", false, wire.EventExited, 125, ""},
		{"never ran", "created|0|false|OCI runtime error: cannot exec", "docker://debian:12", false, wire.EventHeld, attr.HoldInvalidDockerImage, "podman could not start the job's container: OCI runtime error: cannot exec"},
		{"image not known", "", "docker://bad", false, wire.EventHeld, attr.HoldInvalidDockerImage, "podman create failed: Error: docker://bad: image not known"},
		{"no runtime", "", "docker://debian:12", true, wire.EventHeld, attr.HoldInvalidDockerImage, "no working container runtime"},
		{"out of memory", "exited|137|true|", "docker://debian:12", false, wire.EventHeld, attr.HoldJobOutOfResources, "memory use"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeSchedd(nil)
			rt, dir := runtimeForTest(t, c.mode)
			cfg := containerConfig(t, f, rt)
			if c.noRuntime {
				cfg.Containers = nil
			}
			s := run(t, cfg, jobAd(t, strings.Replace(containerJob, "docker://debian:12", c.image, 1)))
			var u wire.JobUpdate
			for u = f.next(t); u.Event == wire.EventStarted; u = f.next(t) {
			}
			<-s.Done()
			if u.Event != c.event || c.event == wire.EventExited && u.ExitCode != c.code ||
				c.event == wire.EventHeld && (u.HoldCode != c.code || !strings.Contains(u.Reason, c.reason)) {
				t.Fatalf("last event %+v; want %s with code %d and reason %q", u, c.event, c.code, c.reason)
			}
			if c.event == wire.EventExited && f.outputs["job.out"] != "hello from the container\n" {
				t.Errorf("job.out = %q", f.outputs["job.out"])
			}
			if _, err := os.Stat(filepath.Join(dir, "exists")); err == nil {
				t.Error("the container was not removed")
			}
			calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
			if !c.noRuntime && (!strings.Contains(string(calls), "create --name kite-test-slot1_1-7.0 --user ") ||
				strings.Contains(string(calls), "--user 0:")) {
				t.Errorf("the container was not made as the job's user, not root:\n%s", calls)
			}
		})
	}
}
