package container

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// NamePrefix begins the name of every container a startd makes.
const NamePrefix = "kite-"

// Prefix begins the names of the containers of the startd whose execute
// directory is dir: NamePrefix and a digest of dir, so that startds
// sharing a host (or a test process) each sweep only their own.
func Prefix(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return NamePrefix + hex.EncodeToString(sum[:4]) + "-"
}

// Name is the container name of a job on a slot: the startd's prefix,
// then the slot and the job with anything but letters, digits, '_', '.'
// and '-' made '_'.
func Name(prefix, slot, job string) string {
	b := []byte(slot + "-" + job)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			b[i] = '_'
		}
	}
	return prefix + string(b)
}

// Spec is what a job's container is made of.
type Spec struct {
	Name  string
	Image string // as the job gives it: docker://REF, REF, /path/to/dir, /path/to/x.sif
	Kind  ImageKind
	// Exe and Args are what runs; an empty Exe runs the image's own
	// command. OverrideEntrypoint runs Exe instead of the image's
	// entrypoint rather than as its argument (docker_override_entrypoint).
	Exe                string
	Args               []string
	OverrideEntrypoint bool
	Env                []string // NAME=value
	Mounts             []Mount
	Workdir            string
	// UID and GID are the account the job runs as inside: never root.
	UID, GID int
	Devices  []string // host device paths passed through (GPUs)
	Network  string   // "host", "none", or "" (the runtime's default: nat)
	// PullAlways pulls a docker image even when it is cached
	// (docker_pull_policy = always).
	PullAlways bool
	// MemoryMiB > 0 limits the container's memory; Cpus > 0 its CPUs.
	MemoryMiB, Cpus int64
	Stdin           bool // the job has standard input
}

// Mount is a host directory bind-mounted into the container.
type Mount struct {
	Host, Target string
	ReadOnly     bool
}

// String is the mount as runtimes write it: HOST:TARGET[:ro].
func (m Mount) String() string {
	if m.ReadOnly {
		return m.Host + ":" + m.Target + ":ro"
	}
	return m.Host + ":" + m.Target
}

// ErrRoot refuses a job that would run as root inside its container.
var ErrRoot = fmt.Errorf("a container job does not run as root: run the startd as root with a slot_user, or as an ordinary user")

// CreateArgs is the runtime's command line that makes the job's container
// (podman and docker: create; apptainer makes none: nil).
func (r *Runtime) CreateArgs(s *Spec) []string {
	if r.Kind == Apptainer {
		return nil
	}
	a := []string{"create", "--name", s.Name}
	if s.Stdin {
		a = append(a, "--interactive")
	}
	a = append(a, r.userArgs(s)...)
	for _, m := range s.Mounts {
		a = append(a, "--volume", m.String())
	}
	a = append(a, "--workdir", s.Workdir)
	for _, e := range s.Env {
		a = append(a, "--env", e)
	}
	for _, d := range s.Devices {
		a = append(a, "--device", d)
	}
	if s.Network != "" {
		a = append(a, "--network", s.Network)
	}
	for _, l := range r.Limits {
		a = append(a, "--ulimit", fmt.Sprintf("%s=%d:%d", l.Name, l.Soft, l.Hard))
	}
	if s.MemoryMiB > 0 {
		a = append(a, "--memory", strconv.FormatInt(s.MemoryMiB, 10)+"m")
	}
	if s.Cpus > 0 {
		a = append(a, "--cpus", strconv.FormatInt(s.Cpus, 10))
	}
	if s.Kind == DockerRef {
		a = append(a, "--pull", map[bool]string{true: "always", false: "missing"}[s.PullAlways])
	}
	a = append(a, r.Extra...)
	if s.OverrideEntrypoint && s.Exe != "" {
		a = append(a, "--entrypoint", s.Exe)
	}
	a = append(a, r.imageArgs(s)...)
	if s.Exe != "" && !s.OverrideEntrypoint {
		a = append(a, s.Exe)
	}
	return append(a, s.Args...)
}

// userArgs runs the container as the job's account: a rootless runtime
// maps its own user in (keep-id), a root one sets the ids.
func (r *Runtime) userArgs(s *Spec) []string {
	a := []string{"--user", fmt.Sprintf("%d:%d", s.UID, s.GID)}
	if r.Rootless && r.Kind == Podman {
		a = append(a, "--userns", "keep-id")
	}
	return a
}

// imageArgs names the image: podman runs a directory with --rootfs, as
// an overlay (:O) so that the image stays as it was (it may be shared,
// or read-only); the docker command takes no docker:// prefix.
func (r *Runtime) imageArgs(s *Spec) []string {
	switch {
	case s.Kind == Directory:
		return []string{"--rootfs", s.Image + ":O"}
	case r.Kind == Docker:
		return []string{strings.TrimPrefix(strings.TrimPrefix(s.Image, "docker://"), "docker:")}
	case strings.HasPrefix(s.Image, "docker:") && !strings.HasPrefix(s.Image, "docker://"):
		return []string{"docker://" + strings.TrimPrefix(s.Image, "docker:")}
	}
	return []string{s.Image}
}

// StartArgs is the command line that runs the job: attached to the
// standard files of the runtime's process, whose exit status is the job's
// (apptainer: exec, which makes and runs the container at once).
func (r *Runtime) StartArgs(s *Spec) []string {
	if r.Kind == Apptainer {
		return r.command(r.apptainerArgs(s)...)
	}
	a := []string{"start", "--attach"}
	if s.Stdin {
		a = append(a, "--interactive")
	}
	return r.command(append(a, s.Name)...)
}

// apptainerArgs is apptainer's exec of the job: contained, the sandbox
// bound at its target, GPUs through --nv. Apptainer runs as the job's
// user (the starter starts it so), not as root.
func (r *Runtime) apptainerArgs(s *Spec) []string {
	a := []string{"exec", "--containall"}
	for _, m := range s.Mounts {
		a = append(a, "--bind", m.String())
	}
	a = append(a, "--pwd", s.Workdir, "--home", s.Workdir)
	for _, e := range s.Env {
		a = append(a, "--env", e)
	}
	if len(s.Devices) > 0 {
		a = append(a, "--nv")
	}
	if s.Network == "none" {
		a = append(a, "--net", "--network", "none")
	}
	a = append(a, r.Extra...)
	img := s.Image
	if s.Kind == DockerRef && !strings.HasPrefix(img, "docker://") {
		img = "docker://" + strings.TrimPrefix(img, "docker:")
	}
	a = append(a, img)
	if s.Exe != "" {
		a = append(a, s.Exe)
	}
	return append(a, s.Args...)
}

// Create makes the job's container and, for podman, initializes it, so
// that a missing image, a failed pull, a bad mount or a missing
// executable is known before the job is said to run. Apptainer checks
// the image instead.
func (r *Runtime) Create(ctx context.Context, s *Spec) error {
	if s.UID == 0 {
		return ErrRoot
	}
	if !r.Supports(s.Kind) {
		return &Error{Program: filepath.Base(r.Path), Step: "create", Text: fmt.Sprintf("%s does not run %s", r.Kind, kindName(s.Kind))}
	}
	if r.Kind == Apptainer {
		img := s.Image
		if s.Kind == DockerRef {
			return nil // pulled by exec itself
		}
		_, err := r.run(ctx, "inspect", img)
		return err
	}
	r.Remove(ctx, s.Name) // a container of the same name left by a crash
	if _, err := r.run(ctx, r.CreateArgs(s)...); err != nil {
		return err
	}
	if r.Kind == Podman {
		if _, err := r.run(ctx, "init", s.Name); err != nil {
			r.Remove(ctx, s.Name)
			return err
		}
	}
	return nil
}

func kindName(k ImageKind) string {
	return map[ImageKind]string{DockerRef: "docker images", SIF: ".sif images", Directory: "directory images"}[k]
}

// State is how a job's container ended.
type State struct {
	Ran       bool // the container's process started
	ExitCode  int
	OOMKilled bool
	Error     string // the runtime's error, if it could not run it
}

// Inspect tells how the container ended (podman, docker; apptainer keeps
// no container: its State is the exec's).
func (r *Runtime) Inspect(ctx context.Context, name string) (State, error) {
	out, err := r.run(ctx, "inspect", "--format", "{{.State.Status}}|{{.State.ExitCode}}|{{.State.OOMKilled}}|{{.State.Error}}", name)
	if err != nil {
		return State{}, err
	}
	return parseState(out)
}

// parseState reads Inspect's format.
func parseState(out string) (State, error) {
	f := strings.SplitN(strings.TrimSpace(out), "|", 4)
	if len(f) != 4 {
		return State{}, fmt.Errorf("the container runtime's inspect printed %q", out)
	}
	code, err := strconv.Atoi(f[1])
	if err != nil {
		return State{}, fmt.Errorf("the container runtime's inspect printed exit code %q", f[1])
	}
	// A container that never left "created" (or "configured",
	// "initialized") never ran its process.
	ran := f[0] == "exited" || f[0] == "stopped" || f[0] == "running" || f[0] == "paused" || f[0] == "dead"
	return State{Ran: ran, ExitCode: code, OOMKilled: f[2] == "true", Error: f[3]}, nil
}

// Kill sends sig (a number) to the container's processes.
func (r *Runtime) Kill(ctx context.Context, name string, sig int) error {
	if r.Kind == Apptainer {
		return nil // the exec's process group is the container
	}
	_, err := r.run(ctx, "kill", "--signal", strconv.Itoa(sig), name)
	return err
}

// Remove removes the container, running or not; one that is gone is no
// error.
func (r *Runtime) Remove(ctx context.Context, name string) error {
	if r.Kind == Apptainer {
		return nil
	}
	out, err := r.run(ctx, "ps", "--all", "--quiet", "--filter", "name=^"+name+"$")
	if err != nil || strings.TrimSpace(out) == "" {
		return err
	}
	_, err = r.run(ctx, "rm", "--force", name)
	return err
}

// RemoveLeftovers removes the containers an earlier run of the startd
// left (their names begin with prefix), and returns their names.
func (r *Runtime) RemoveLeftovers(ctx context.Context, prefix string) ([]string, error) {
	if r.Kind == Apptainer {
		return nil, nil
	}
	out, err := r.run(ctx, "ps", "--all", "--format", "{{.Names}}", "--filter", "name=^"+prefix)
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, name := range strings.Fields(out) {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if _, err := r.run(ctx, "rm", "--force", name); err != nil {
			return gone, err
		}
		gone = append(gone, name)
	}
	return gone, nil
}

// Cmd is the process that runs the job (StartArgs), for the starter to
// give its standard files, user and process group.
func (r *Runtime) Cmd(s *Spec) *exec.Cmd {
	argv := r.StartArgs(s)
	return &exec.Cmd{Path: r.Path, Args: argv}
}
