package container

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// fakeRuntime writes a runtime program into dir that answers --version
// with version and runs a container only when ok says so (a shell test
// on its arguments "$*"); it logs its uid and arguments to dir/calls. dir
// also gets runc and true, and becomes PATH.
func fakeRuntime(t *testing.T, name, version, ok, failure string) (dir, path string) {
	t.Helper()
	// Apptainer's check runs as nobody when the test is root: the fake
	// must be where nobody can run it and log.
	dir, err := os.MkdirTemp("", "kite-fake-runtime")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	calls := filepath.Join(dir, "calls")
	for _, err := range []error{os.Chmod(dir, 0o777), os.WriteFile(calls, nil, 0o666), os.Chmod(calls, 0o666)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	script := `#!/bin/sh
echo "$(/usr/bin/id -u) $*" >> "` + calls + `"
case "$*" in *--version*) echo "` + version + `"; exit 0;; esac
if ` + ok + `; then exit 0; fi
echo "` + failure + `" >&2
exit 126
`
	path = filepath.Join(dir, name)
	for file, text := range map[string]string{name: script, "runc": "#!/bin/sh\n", "true": "#!/bin/sh\n"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir, path
}

// Detection runs a container, not only --version (issue 19: the startd
// detects what works): a runtime whose default OCI runtime fails is tried
// with runc; one that fails both ways is offline, with the reason in the
// machine ad (DockerOfflineReason), and no Has* attribute.
func TestDetectFakeRuntimes(t *testing.T) {
	cases := []struct {
		name, kind, ok string
		global         bool // works only with --runtime runc
		want           map[string]string
	}{
		{"podman works", "podman", "true", false, map[string]string{
			"HasContainer": "true", "HasDocker": "true", "HasDockerURL": "true", "HasSandboxImage": "true",
			"DockerVersion": `"podman version 9.9.9"`, "HasSIF": "", "HasSingularity": "", "DockerOfflineReason": ""}},
		{"podman works with runc and the machine's limits", "podman", `case "$*" in *--runtime*--ulimit*) true;; *) false;; esac`, true, map[string]string{
			"HasContainer": "true", "HasDocker": "true", "DockerOfflineReason": ""}},
		{"podman broken", "podman", "false", false, map[string]string{
			"HasContainer": "", "HasDocker": "", "DockerVersion": ""}},
		{"apptainer works", "apptainer", "true", false, map[string]string{
			"HasContainer": "true", "HasSingularity": "true", "HasSIF": "true", "HasSandboxImage": "true", "HasDockerURL": "true",
			"SingularityVersion": `"podman version 9.9.9"`, "HasDocker": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, path := fakeRuntime(t, c.kind, "podman version 9.9.9", c.ok, "Error: crun: cannot set up cgroups")
			d := Detect(t.Context(), Config{Want: c.kind, Path: path, ProbeDir: t.TempDir()})
			ad := classad.NewAd()
			d.Publish(ad)
			for name, want := range c.want {
				got := ""
				if e, ok := ad.Lookup(name); ok {
					got = ast.String(e)
				}
				if got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if c.ok == "false" {
				why, _ := classad.EvalString(ad, "DockerOfflineReason")
				if !strings.Contains(why, "cannot set up cgroups") || !strings.Contains(why, "--runtime") {
					t.Errorf("DockerOfflineReason %q: want the runtime's error, with and without runc", why)
				}
				return
			}
			if d.Runtime == nil {
				t.Fatal("no runtime")
			}
			if got := len(d.Runtime.Global) > 0; got != c.global {
				t.Errorf("Global %q: want --runtime runc %v", d.Runtime.Global, c.global)
			}
			calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
			if c.kind == "podman" && !strings.Contains(string(calls), "run --rm --name kite-check-") ||
				!strings.Contains(string(calls), filepath.Join(dir, "true")) {
				t.Errorf("the check did not run a container:\n%s", calls)
			}
			if c.kind == "apptainer" && os.Getuid() == 0 && !strings.Contains(string(calls), "65534 exec --containall") {
				t.Errorf("apptainer's check did not run as nobody:\n%s", calls)
			}
			if c.global && (len(d.Runtime.Limits) == 0 || !strings.Contains(string(calls), "--ulimit nofile=")) {
				t.Errorf("the check did not try the machine's limits: %v\n%s", d.Runtime.Limits, calls)
			}
		})
	}
}

// A runtime asked for by name and not installed is offline, saying so;
// "none" looks for nothing.
func TestDetectMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	d := Detect(t.Context(), Config{Want: "docker", ProbeDir: t.TempDir()})
	if d.Runtime != nil || !strings.Contains(d.Offline[Docker], "not installed") {
		t.Errorf("docker missing: %+v", d)
	}
	if d := Detect(t.Context(), Config{Want: "none"}); d.Runtime != nil || len(d.Offline) != 0 {
		t.Errorf("none: %+v", d)
	}
}
