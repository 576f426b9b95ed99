package container

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", os.Getenv("UPDATE") != "", "rewrite golden files")

// The command lines a job's container is made and run with, for each
// runtime and kind of image (HTCondor manual, "Container Universe Jobs":
// the sandbox mounted as the job's working directory, the job's user
// inside, never root; docker_override_entrypoint, docker_network_type,
// docker_pull_policy). testdata/commands.golden; -update rewrites it.
func TestCommandLines(t *testing.T) {
	limits := []Ulimit{{"nofile", 1024, 4096}, {"nproc", -1, -1}}
	podman := &Runtime{Kind: Podman, Path: "/usr/bin/podman", Global: []string{"--runtime", "/usr/sbin/runc"}, Limits: limits}
	rootless := &Runtime{Kind: Podman, Path: "podman", Rootless: true, Extra: []string{"--security-opt", "label=disable"}}
	docker := &Runtime{Kind: Docker, Path: "/usr/bin/docker", Limits: limits}
	apptainer := &Runtime{Kind: Apptainer, Path: "/usr/bin/apptainer"}
	box := []Mount{{Host: "/var/lib/kite/execute/dir_1", Target: "/var/lib/kite/execute/dir_1"}}
	cases := []struct {
		name string
		r    *Runtime
		s    Spec
	}{
		{"podman docker image", podman, Spec{Name: Name("kite-", "slot1_1", "7.0"), Image: "docker://debian:12", Kind: DockerRef,
			Exe: "/var/lib/kite/execute/dir_1/run.sh", Args: []string{"a b", "c"}, Env: []string{"A=1", "_CONDOR_SCRATCH_DIR=/var/lib/kite/execute/dir_1"},
			Mounts: box, Workdir: box[0].Target, UID: 1000, GID: 100, Stdin: true, MemoryMiB: 512, Cpus: 2}},
		{"podman directory image with a target dir and a GPU", podman, Spec{Name: Name("kite-", "slot1", "8.1"), Image: "/images/rootfs", Kind: Directory,
			Exe: "/srv/run.sh", Mounts: []Mount{{Host: box[0].Host, Target: "/srv"}}, Workdir: "/srv", UID: 65534, GID: 65534,
			Devices: []string{"/dev/nvidia0", "/dev/nvidiactl"}, Network: "none"}},
		{"podman rootless, image entrypoint, pull always", rootless, Spec{Name: Name("kite-", "slot1", "9.0"), Image: "docker:busybox", Kind: DockerRef,
			Mounts: box, Workdir: box[0].Target, UID: 1000, GID: 1000, PullAlways: true}},
		{"docker, entrypoint overridden", docker, Spec{Name: Name("kite-", "slot2", "10.0"), Image: "docker://debian:12", Kind: DockerRef,
			Exe: "/bin/sh", Args: []string{"-c", "id -u"}, OverrideEntrypoint: true, Mounts: box, Workdir: box[0].Target, UID: 1000, GID: 100, Network: "host"}},
		{"apptainer sif", apptainer, Spec{Name: Name("kite-", "slot1", "11.0"), Image: "/cvmfs/images/tool.sif", Kind: SIF,
			Exe: "run.sh", Args: []string{"x"}, Env: []string{"A=1"}, Mounts: box, Workdir: box[0].Target, UID: 1000, GID: 100, Devices: []string{"/dev/nvidia0"}}},
	}
	var b strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&b, "## %s\n", c.name)
		if create := c.r.CreateArgs(&c.s); create != nil {
			fmt.Fprintf(&b, "create: %s\n", quoteArgs(c.r.command(create...)))
		}
		fmt.Fprintf(&b, "start: %s\n\n", quoteArgs(c.r.StartArgs(&c.s)))
	}
	golden(t, "commands.golden", b.String())
}

func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			out[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(out, " ")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestName(t *testing.T) {
	p := Prefix("/var/lib/kite/execute")
	if len(p) != len("kite-01234567-") || p == Prefix("/var/lib/kite/execute2") {
		t.Errorf("Prefix = %q: want kite-, 8 hex digits of the directory, -", p)
	}
	if got := Name(p, "slot1_2@host", "12.3"); got != p+"slot1_2_host-12.3" {
		t.Errorf("Name = %q", got)
	}
}

// Inspect's answer: a container that never left "created" never ran (the
// runtime's failure, not the job's exit code, even 125-127).
func TestParseState(t *testing.T) {
	for _, c := range []struct {
		out  string
		want State
		bad  bool
	}{
		{"exited|127|false|\n", State{Ran: true, ExitCode: 127}, false},
		{"created|0|false|\n", State{}, false},
		{"exited|137|true|\n", State{Ran: true, ExitCode: 137, OOMKilled: true}, false},
		{"created|0|false|runc: exec: \"/x\": no such file", State{Error: `runc: exec: "/x": no such file`}, false},
		{"garbage", State{}, true},
		{"exited|x|false|", State{}, true},
	} {
		got, err := parseState(c.out)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("parseState(%q) = %+v, %v; want %+v (error %v)", c.out, got, err, c.want, c.bad)
		}
	}
}

func TestCreateRefusesRoot(t *testing.T) {
	r := &Runtime{Kind: Podman, Path: "/nonexistent/podman"}
	if err := r.Create(t.Context(), &Spec{Name: "kite-x", Image: "docker://x", UID: 0}); err != ErrRoot {
		t.Errorf("Create as root: %v, want ErrRoot", err)
	}
	if err := r.Create(t.Context(), &Spec{Name: "kite-x", Image: "/x.sif", Kind: SIF, UID: 1}); err == nil || !strings.Contains(err.Error(), "podman does not run .sif images") {
		t.Errorf("Create of a .sif with podman: %v", err)
	}
}
