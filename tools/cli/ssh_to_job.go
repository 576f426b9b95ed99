package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/wire"
)

// kite ssh_to_job (condor_ssh_to_job): a shell, or a command, in a
// running job's sandbox, as the job's user, with its environment. The
// tool asks the schedd, which checks that the caller owns the job (or
// administers the pool) and has the startd that runs it start the shell
// on a terminal; the terminal's bytes travel over the pool's
// authenticated connections, with no sshd (docs/protocol/schedd.md).

type sshOptions struct {
	g                 *globals
	name              string
	shells            string
	tty               bool
	autoRetry         bool
	removeOnInterrupt bool
}

func init() { addCommand(newSSHToJobCmd) }

func newSSHToJobCmd(g *globals) *cobra.Command {
	o := &sshOptions{g: g}
	c := &cobra.Command{
		Use:   "ssh_to_job [options] cluster[.proc] [--] [command ...]",
		Short: "Open a shell, or run a command, in a running job's sandbox (condor_ssh_to_job)",
		Long: `Open an interactive shell in the sandbox of a running job, or run a command
there: as the job's user, in its working directory, with the environment
the job got (plus TERM). The shell is the job's SHELL, else /bin/sh;
-shells A,B tries those first. A command (the words after the job id,
options included: the tool's own come before the id; a -- before the
command is allowed) runs without a terminal unless -tty asks for one,
its output and error output apart; the tool's exit status is the
command's (128 + N for one killed by signal N). Only the job's owner and
administrators may open a shell. The session ends when the shell exits or
the job's process ends. -auto-retry asks again every 2 seconds while the
job has not started; -remove-on-interrupt removes the job when the tool is
interrupted or killed (kite submit -interactive uses it).`,
		Args:        cobra.MinimumNArgs(1),
		Annotations: map[string]string{condorArgsEnd: "first"},
		RunE: func(c *cobra.Command, args []string) error {
			command := args[1:]
			if len(command) > 0 && command[0] == "--" {
				command = command[1:] // options end at the job id; -- may say so
			}
			return o.run(c.Context(), c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr(), args[0], command)
		},
	}
	c.Flags().SetInterspersed(false)
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd (its name or host:port)")
	f.StringVar(&o.shells, "shells", "", "shells to try, comma-separated absolute paths; the first the machine has runs")
	f.BoolVarP(&o.tty, "tty", "t", false, "give the command a terminal, or the shell one though standard input is none")
	f.BoolVar(&o.autoRetry, "auto-retry", false, "ask again every 2 seconds while the job has not started")
	f.BoolVar(&o.removeOnInterrupt, "remove-on-interrupt", false, "remove the job if the tool is interrupted or killed")
	return c
}

// errInterrupted ends a session interrupted with -remove-on-interrupt,
// once the job is removed.
var errInterrupted = errors.New("interrupted: the job is removed")

// exitStatus is a status the tool exits with, and a message to print
// (none: the status says all), as a remote command's.
type exitStatus struct {
	code int
	msg  string
}

func (e exitStatus) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return "exit status " + strconv.Itoa(e.code)
}

// sshJobID is the job a condor_ssh_to_job argument names: "C" is C.0;
// "C.P.N" (a parallel job's node) only for node 0, as Kite runs no
// parallel universe.
func sshJobID(a string) (string, error) {
	parts := strings.Split(a, ".")
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 32); err != nil || len(parts) > 3 {
			return "", usageError{fmt.Errorf("%q is not a job id (cluster, cluster.proc)", a)}
		}
	}
	switch {
	case len(parts) == 1:
		return a + ".0", nil
	case len(parts) == 3 && parts[2] != "0":
		return "", usageError{fmt.Errorf("%s: node %s: not supported: Kite has no parallel universe (its jobs have node 0 only)", a, parts[2])}
	}
	return parts[0] + "." + parts[1], nil
}

// spec is what the options and the command ask the startd for; tty says
// whether to give it a terminal.
func (o *sshOptions) spec(command []string, tty bool) wire.ShellSpec {
	spec := wire.ShellSpec{Command: command, TTY: tty}
	if o.shells != "" {
		spec.Shells = strings.Split(o.shells, ",")
	}
	if tty {
		spec.Term = os.Getenv("TERM")
	}
	return spec
}

func (o *sshOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, job string, command []string) error {
	id, err := sshJobID(job)
	if err != nil {
		return err
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ex, err := o.session(ctx, s.client, id, command, stdin, stdout, stderr)
	if ctx.Err() != nil && o.removeOnInterrupt {
		if err := removeJob(context.WithoutCancel(ctx), s.client, id, "condor_ssh_to_job was interrupted", stderr); err != nil {
			return err
		}
		return errInterrupted
	}
	if err != nil {
		return err
	}
	switch {
	case ex.Signal != 0:
		return exitStatus{128 + ex.Signal, fmt.Sprintf("the shell was killed by signal %d (%v)", ex.Signal, syscall.Signal(ex.Signal))}
	case ex.Code != 0:
		return exitStatus{code: ex.Code}
	}
	return nil
}

// session opens the shell (asking again with -auto-retry while the job
// has not started) and carries it until it ends.
func (o *sshOptions) session(ctx context.Context, c *wire.Client, id string, command []string, stdin io.Reader, stdout, stderr io.Writer) (wire.ShellExit, error) {
	term, _ := stdin.(*os.File)
	local := term != nil && ttyInput(term)
	tty := o.tty || (len(command) == 0 && local)
	spec := o.spec(command, tty)
	if tty && local {
		spec.Rows, spec.Cols = terminalSize(term)
	}
	var conn io.ReadWriteCloser
	for {
		var err error
		conn, err = c.Upgrade(ctx, wire.PathShell, wire.ShellProtocol, wire.ShellRequest{Job: id, ShellSpec: spec})
		if err == nil {
			break
		}
		if !o.autoRetry || !wire.IsCode(err, wire.CodeConflict) {
			return wire.ShellExit{}, err
		}
		select {
		case <-ctx.Done():
			return wire.ShellExit{}, ctx.Err()
		case <-time.After(tailRetry):
		}
	}
	sio := wire.ShellIO{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if tty && local {
		restore, err := rawTerminal(term)
		if err != nil {
			conn.Close()
			return wire.ShellExit{}, fmt.Errorf("the terminal: %w", err)
		}
		defer restore()
		resize, stop := watchSize(term)
		defer stop()
		sio.Resize = resize
	}
	return wire.RunShell(ctx, conn, sio)
}

// removeJob removes a job (-remove-on-interrupt, kite submit
// -interactive's end) and says so as condor_rm does.
func removeJob(ctx context.Context, c *wire.Client, id, reason string, stderr io.Writer) error {
	req := wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{id}}, Reason: reason}
	var res wire.ActResult
	if err := c.Call(ctx, "POST", wire.PathAct, req, &res); err != nil {
		return fmt.Errorf("removing job %s: %w", id, err)
	}
	if res.Changed == 0 {
		return errors.New("job " + id + " was not removed (it left the queue, or is not yours)")
	}
	fmt.Fprintf(stderr, "Job %s marked for removal\n", id)
	return nil
}
