package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// condor_ssh_to_job (HTCondor's manual, man-pages/condor_ssh_to_job.rst):
// a shell, or a command, in a running job's sandbox, as the job's user,
// in its working directory, with its environment; only the job's owner
// or a queue super user (an administrator) may open one. Kite streams a
// real terminal through the schedd and the startd, with no sshd.
func TestSshToJob(t *testing.T) {
	pl := newPool(t, 1, "a")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "input.txt"), []byte("an input file\n"), 0o644)
	id := fmt.Sprintf("%d.0", pl.submit(dir, `executable = /bin/sleep
arguments = 300
transfer_executable = false
should_transfer_files = YES
transfer_input_files = input.txt
environment = "SOMEVAR=kite-ssh-42 SHELL=/bin/sh"
queue
`))
	pl.waitStatus(id, attr.Running)
	pl.waitStarts(id, "1")
	ctx := context.Background()

	// An interactive shell on a terminal: what it is typed, it runs in the
	// sandbox, with the job's variables, and ends with the shell's status.
	out, ex, err := shellSession(ctx, pl.user, id, wire.ShellSpec{TTY: true, Term: "dumb", Rows: 24, Cols: 80},
		strings.NewReader("ls; echo \"[$SOMEVAR]\"; tty; exit 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"input.txt", "[kite-ssh-42]", "/dev/pts/"} {
		if !strings.Contains(out, want) {
			t.Errorf("the shell's terminal lacks %q:\n%s", want, out)
		}
	}
	if ex.Code != 7 {
		t.Errorf("the shell ended %+v, want code 7", ex)
	}

	// A command, without a terminal: its output, its error output apart,
	// and its exit status.
	var stdout, stderr strings.Builder
	conn, err := pl.user.Upgrade(ctx, wire.PathShell, wire.ShellProtocol,
		wire.ShellRequest{Job: id, ShellSpec: wire.ShellSpec{Command: []string{"cat", "input.txt;", "echo", "$SOMEVAR", ">&2;", "exit", "3"}}})
	if err != nil {
		t.Fatal(err)
	}
	ex, err = wire.RunShell(ctx, conn, wire.ShellIO{Stdout: &stdout, Stderr: &stderr})
	if err != nil || ex.Code != 3 || stdout.String() != "an input file\n" || stderr.String() != "kite-ssh-42\n" {
		t.Errorf("command: %+v %v; stdout %q, stderr %q", ex, err, stdout.String(), stderr.String())
	}

	// An administrator may; someone else may not.
	out, ex, err = shellSession(ctx, pl.admin, id, wire.ShellSpec{Command: []string{"ls"}}, nil)
	if err != nil || ex.Code != 0 || !strings.Contains(out, "input.txt") {
		t.Errorf("the administrator's command: %q %+v %v", out, ex, err)
	}
	bob := pl.p.Client("schedd:1", "bob", auth.Write)
	if _, err := bob.Upgrade(ctx, wire.PathShell, wire.ShellProtocol, wire.ShellRequest{Job: id}); !wire.IsCode(err, wire.CodeForbidden) {
		t.Errorf("bob's shell in alice's job: %v, want forbidden", err)
	}

	// A session ends when the job does.
	in, hold := io.Pipe()
	defer hold.Close()
	conn, err = pl.user.Upgrade(ctx, wire.PathShell, wire.ShellProtocol, wire.ShellRequest{Job: id, ShellSpec: wire.ShellSpec{TTY: true}})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := wire.RunShell(ctx, conn, wire.ShellIO{Stdin: in, Stdout: io.Discard, Stderr: io.Discard})
		ended <- err
	}()
	pl.act(wire.ActRemove, id, "")
	if err := <-ended; err == nil || !strings.Contains(err.Error(), "the job's process ended") {
		t.Errorf("the session of a removed job ended with %v", err)
	}
	if _, err := pl.user.Upgrade(ctx, wire.PathShell, wire.ShellProtocol, wire.ShellRequest{Job: id}); err == nil {
		t.Error("a shell in a removed job")
	}
}

// shellSession runs one session with input in and returns its output.
func shellSession(ctx context.Context, c *wire.Client, id string, spec wire.ShellSpec, in io.Reader) (string, wire.ShellExit, error) {
	conn, err := c.Upgrade(ctx, wire.PathShell, wire.ShellProtocol, wire.ShellRequest{Job: id, ShellSpec: spec})
	if err != nil {
		return "", wire.ShellExit{}, err
	}
	var out strings.Builder
	ex, err := wire.RunShell(ctx, conn, wire.ShellIO{Stdin: in, Stdout: &out, Stderr: &out})
	return out.String(), ex, err
}
