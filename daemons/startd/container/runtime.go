package container

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Kind is a container runtime's family.
type Kind string

// The runtimes Kite drives.
const (
	Podman    Kind = "podman"
	Docker    Kind = "docker"
	Apptainer Kind = "apptainer"
)

// Runtime is a container runtime that works on this machine.
type Runtime struct {
	Kind Kind
	// Path is its program; Global are the options before its command
	// (podman's --runtime runc).
	Path   string
	Global []string
	// Version is what its --version prints, its first line.
	Version string
	// Limits are the resource limits containers get: the startd's own,
	// which a runtime may always set (its defaults may be higher than the
	// machine allows).
	Limits []Ulimit
	// Extra go to the command that makes a container, before the image.
	Extra []string
	// Rootless: the runtime runs as a user that is not root, and maps
	// that user into the container (--userns=keep-id).
	Rootless bool
}

// Ulimit is a resource limit given to a container.
type Ulimit struct {
	Name       string // the runtime's name: nofile, nproc
	Soft, Hard int64  // -1: unlimited
}

// Image kinds a runtime may run.
type ImageKind int

const (
	DockerRef ImageKind = iota // a repository reference (docker://, or docker_image)
	SIF                        // a .sif file
	Directory                  // an unpacked root file system
)

// Supports reports whether the runtime runs images of kind k.
func (r *Runtime) Supports(k ImageKind) bool {
	switch k {
	case DockerRef:
		return true
	case Directory:
		return r.Kind != Docker
	case SIF:
		return r.Kind == Apptainer
	}
	return false
}

// Error is the runtime's failure to make or start a job's container: the
// job never ran, and Text is what the runtime said.
type Error struct {
	Program string // the runtime's program, its base name
	Step    string // its command: "create", "init", "inspect", ...
	Text    string // its error output, the end of it
	Err     error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Text)
	if i := strings.LastIndex(msg, "\nError: "); i >= 0 {
		msg = msg[i+1:] // podman's and docker's error, after their warnings
	}
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("%s %s failed: %s", e.Program, e.Step, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// maxErrorText bounds what a runtime's error output adds to a hold reason.
const maxErrorText = 2000

// runTimeout bounds a runtime command that is not the job itself, unless
// its context has a deadline of its own.
const runTimeout = 2 * time.Minute

// waitDelay bounds the wait for a runtime command's output once it is
// over or killed.
const waitDelay = 5 * time.Second

// command returns the runtime's command line for args.
func (r *Runtime) command(args ...string) []string {
	return append(append([]string{r.Path}, r.Global...), args...)
}

// run runs the runtime with args and returns its standard output; a
// failure carries its error output.
func (r *Runtime) run(ctx context.Context, args ...string) (string, error) {
	return r.runAs(ctx, nil, args...)
}

// runAs is run as the account cred names (nil: as the startd).
func (r *Runtime) runAs(ctx context.Context, cred *syscall.Credential, args ...string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, runTimeout)
		defer cancel()
	}
	argv := r.command(args...)
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &limitedBuffer{max: maxErrorText, buf: &errOut}
	cmd.WaitDelay = waitDelay // a helper it left (conmon) may hold its output open
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if err := cmd.Run(); err != nil {
		return out.String(), &Error{Program: filepath.Base(r.Path), Step: args[0], Text: errOut.String(), Err: err}
	}
	return out.String(), nil
}

// limitedBuffer keeps the last max bytes written to it: the end of an
// error output says what went wrong.
type limitedBuffer struct {
	max int
	buf *bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.buf.Write(p)
	if over := b.buf.Len() - b.max; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}
