package container

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config says which runtime to look for.
type Config struct {
	// Want is "auto" (podman, docker, then apptainer or singularity),
	// "podman", "docker", "apptainer", or "none"/"" for no containers.
	Want string
	// Path is the runtime's program; "" looks its name up in PATH.
	Path string
	// Extra go to the command that makes a container.
	Extra []string
	// ProbeDir is a directory of the startd's where the check's root file
	// system is made.
	ProbeDir string
}

// Detection is what Detect found.
type Detection struct {
	Runtime *Runtime // nil: no runtime works
	// Offline says, for each runtime found installed that failed its
	// check, why.
	Offline map[Kind]string
}

// candidate is a runtime to try: its kind and the program names it
// answers to.
type candidate struct {
	kind  Kind
	names []string
}

var candidates = []candidate{
	{Podman, []string{"podman"}},
	{Docker, []string{"docker"}},
	{Apptainer, []string{"apptainer", "singularity"}},
}

// detected caches detections by configuration: a process checks a
// runtime once, however many startds it runs (tests run many).
var detected struct {
	sync.Mutex
	m map[string]Detection
}

// Detect finds the runtime cfg asks for that runs a container here.
func Detect(ctx context.Context, cfg Config) Detection {
	if cfg.Want == "" || cfg.Want == "none" {
		return Detection{}
	}
	key := fmt.Sprintf("%q %q %q", cfg.Want, cfg.Path, cfg.Extra)
	detected.Lock()
	defer detected.Unlock()
	if d, ok := detected.m[key]; ok {
		return d
	}
	d := detect(ctx, cfg)
	if detected.m == nil {
		detected.m = map[string]Detection{}
	}
	detected.m[key] = d
	return d
}

// detect tries each candidate cfg allows, in order.
func detect(ctx context.Context, cfg Config) Detection {
	d := Detection{Offline: map[Kind]string{}}
	for _, c := range candidates {
		if cfg.Want != "auto" && string(c.kind) != cfg.Want {
			continue
		}
		path := findProgram(cfg.Path, c.names)
		if path == "" {
			if cfg.Want != "auto" {
				d.Offline[c.kind] = fmt.Sprintf("%s is not installed (no %s in PATH)", c.kind, strings.Join(c.names, " or "))
			}
			continue
		}
		r, err := check(ctx, c.kind, path, cfg)
		if err != nil {
			d.Offline[c.kind] = err.Error()
			continue
		}
		d.Runtime = r
		return d
	}
	return d
}

// findProgram returns the configured path, or the first of names in PATH.
func findProgram(path string, names []string) string {
	if path != "" {
		return path
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// check learns a runtime's version and runs a trivial container with it:
// podman with its default OCI runtime, then with runc, each with the
// limit sets of limitSets in turn. The first that runs is kept.
func check(ctx context.Context, kind Kind, path string, cfg Config) (*Runtime, error) {
	r := &Runtime{Kind: kind, Path: path, Extra: cfg.Extra, Rootless: os.Geteuid() != 0}
	out, err := r.run(ctx, "--version")
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", path, err)
	}
	r.Version = firstLine(out)
	dir := cfg.ProbeDir
	if kind == Apptainer && os.Getuid() == 0 {
		dir = "" // its check runs as nobody, who must reach the image
	}
	work, err := probeWorkDir(dir)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	rootfs, mounts, err := probeRoot(work)
	if err != nil {
		return nil, err
	}
	globals := [][]string{nil}
	if kind == Podman {
		if runc, err := exec.LookPath("runc"); err == nil {
			globals = append(globals, []string{"--runtime", runc})
		}
	}
	var last error
	tries := 0
	for _, g := range globals {
		for _, l := range limitSets(kind) {
			r.Global, r.Limits = g, l
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			err := r.probe(pctx, rootfs, mounts)
			timedOut := pctx.Err() != nil
			cancel()
			if err == nil {
				return r, nil
			}
			tries++
			if timedOut {
				// A runtime that hangs is not cured by other options.
				return nil, fmt.Errorf("%w (the check took over %s)", err, probeTimeout)
			}
			last = err
		}
	}
	return nil, fmt.Errorf("no container ran in %d tries; the last: %w", tries, last)
}

// probeTimeout bounds one check's container, so that a runtime that hangs
// delays the startd's start by no more than this.
const probeTimeout = 30 * time.Second

// limitSets are the limits on open files and processes a check tries, in
// order: the runtime's own defaults, the startd's limits, and those
// lowered to 1024 (some hosts let a container's init set neither the
// runtime's defaults nor the startd's own hard limits). Apptainer sets
// none.
func limitSets(kind Kind) [][]Ulimit {
	if kind == Apptainer {
		return [][]Ulimit{nil}
	}
	own := ownLimits()
	low := make([]Ulimit, len(own))
	for i, l := range own {
		low[i] = Ulimit{Name: l.Name, Soft: lowered(l.Soft), Hard: lowered(l.Hard)}
	}
	return [][]Ulimit{nil, own, low}
}

// lowered is a limit at most 1024.
func lowered(v int64) int64 {
	if v < 0 || v > 1024 {
		return 1024
	}
	return v
}

// probe runs /bin/true (or the host's true) in a container of the probe
// root file system, as a job would run: as an ordinary user, under the
// machine's limits.
func (r *Runtime) probe(ctx context.Context, rootfs string, mounts []Mount) error {
	truePath, err := exec.LookPath("true")
	if err != nil {
		return fmt.Errorf("no true program to run in the check's container: %w", err)
	}
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = 65534, 65534
	}
	s := &Spec{Name: NamePrefix + "check-" + fmt.Sprint(os.Getpid()), Image: rootfs, Kind: Directory,
		Exe: truePath, Mounts: mounts, Workdir: "/", UID: uid, GID: gid, Network: "none"}
	if r.Kind == Apptainer {
		s.Network = "" // unprivileged apptainer may not make network namespaces
	}
	switch r.Kind {
	case Podman:
		_, err = r.run(ctx, append([]string{"run", "--rm"}, r.CreateArgs(s)[1:]...)...)
	case Docker:
		err = r.probeDocker(ctx, s)
	case Apptainer:
		// Apptainer runs as the job's user: so does its check.
		var cred *syscall.Credential
		if os.Getuid() == 0 {
			cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
		_, err = r.runAs(ctx, cred, r.apptainerArgs(s)...)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(r.command(), " "), err)
	}
	return nil
}

// probeDocker imports an empty image (docker has no --rootfs) and runs
// the check in it with the host's programs mounted.
func (r *Runtime) probeDocker(ctx context.Context, s *Spec) error {
	const image = "kite-check:latest"
	tarball := filepath.Join(filepath.Dir(s.Image), "rootfs.tar")
	if err := writeTar(tarball, s.Image); err != nil {
		return err
	}
	if _, err := r.run(ctx, "import", tarball, image); err != nil {
		return err
	}
	s.Kind, s.Image = DockerRef, image
	args := r.CreateArgs(s)
	args[0] = "run"
	args = append([]string{args[0], "--rm"}, args[1:]...)
	for i, a := range args {
		if a == "--pull" {
			args[i+1] = "never"
		}
	}
	_, err := r.run(ctx, args...)
	return err
}

// probeWorkDir makes a fresh directory for one check under dir (made if
// need be), or under the system's temporary directory when dir is "";
// the check removes it when done.
func probeWorkDir(dir string) (string, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	work, err := os.MkdirTemp(dir, "kite-container-check")
	if err != nil {
		return "", err
	}
	// The check's container runs as nobody: it must reach the root.
	return work, os.Chmod(work, 0o755)
}

// probeDirs are the host's directories the check's container sees.
var probeDirs = []string{"bin", "sbin", "lib", "lib32", "lib64", "usr"}

// probeRoot makes the check's root file system under dir: each of the
// host's program directories as an empty directory mounted read-only
// from the host, or as the same symbolic link (Debian's /bin -> usr/bin).
func probeRoot(dir string) (string, []Mount, error) {
	root := filepath.Join(dir, "rootfs")
	if err := os.Mkdir(root, 0o755); err != nil {
		return "", nil, err
	}
	var mounts []Mount
	for _, d := range probeDirs {
		host := "/" + d
		fi, err := os.Lstat(host)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(host)
			if err == nil {
				err = os.Symlink(target, filepath.Join(root, d))
			}
			if err != nil {
				return "", nil, err
			}
		case fi.IsDir():
			if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
				return "", nil, err
			}
			mounts = append(mounts, Mount{Host: host, Target: host, ReadOnly: true})
		}
	}
	return root, mounts, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
