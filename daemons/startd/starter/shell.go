package starter

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/kite-sched/kite/daemons/startd/cgroups"
	"github.com/kite-sched/kite/internal/wire"
)

// Shells in a running job's sandbox, condor_ssh_to_job: a shell (with a
// terminal) or a command (with pipes) started as the job's user, in the
// job's directory, with the environment the job got, in the job's
// cgroup where it has one. A job has at most MaxShells at once; all are
// killed when the job's process ends.

// MaxShells bounds the shells one job has at once.
const MaxShells = 4

// drainAfterExit bounds how long a shell's output is read after it
// exited, for a process it left behind that holds the output open.
const drainAfterExit = 200 * time.Millisecond

// ErrShellsFull refuses a shell to a job that has MaxShells.
var ErrShellsFull = fmt.Errorf("the job has %d shells open already", MaxShells)

// Shell is a shell or command running in a job's sandbox.
type Shell struct {
	cmd    *exec.Cmd
	tty    *os.File // the terminal's master side; nil with pipes
	stdin  *os.File // the write end of the input pipe (pipes)
	stdout *os.File // the read end of the output pipe (or the tty)
	stderr *os.File // the read end of the error pipe; nil with a terminal

	mu     sync.Mutex
	ended  string // why the job ended the shell; "" if it did not
	exited chan struct{}
	state  *os.ProcessState
}

// shellSet is a job's shells.
type shellSet struct {
	mu     sync.Mutex
	shells map[*Shell]bool
	closed string // the job's process ended: no more shells
}

// add counts sh in, unless the set is closed or full.
func (ss *shellSet) add(sh *Shell) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	switch {
	case ss.closed != "":
		return errors.New(ss.closed)
	case len(ss.shells) >= MaxShells:
		return ErrShellsFull
	}
	if ss.shells == nil {
		ss.shells = map[*Shell]bool{}
	}
	ss.shells[sh] = true
	return nil
}

func (ss *shellSet) remove(sh *Shell) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.shells, sh)
}

// end kills every shell, for why, and takes no more.
func (ss *shellSet) end(why string) {
	ss.mu.Lock()
	ss.closed = why
	shells := make([]*Shell, 0, len(ss.shells))
	for sh := range ss.shells {
		shells = append(shells, sh)
	}
	ss.mu.Unlock()
	for _, sh := range shells {
		sh.kill(why)
	}
}

// Shell starts a shell (spec.Command empty: the job's SHELL, else
// /bin/sh) or a command (run by that shell's -c, as ssh runs one) in the
// sandbox of the job while its process runs.
func (s *Starter) Shell(spec wire.ShellSpec) (*Shell, error) {
	if err := spec.Check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	box, group, running := s.box, s.group, s.cmd != nil && s.cmd.Process != nil && !s.exited && s.vacate == ""
	s.mu.Unlock()
	if !running || box == nil {
		return nil, errNotRunning
	}
	cmd, err := s.shellCommand(spec, box.Path)
	if err != nil {
		return nil, err
	}
	sh := &Shell{cmd: cmd, exited: make(chan struct{})}
	if err := s.shells.add(sh); err != nil {
		return nil, err
	}
	// Started under its lock: the job's end, meanwhile, waits to kill it.
	sh.mu.Lock()
	err = sh.start(spec, s.cfg.User, group)
	ended := sh.ended
	sh.mu.Unlock()
	if err != nil {
		s.shells.remove(sh)
		return nil, err
	}
	if ended != "" {
		sh.kill(ended) // the job ended while the shell started
	}
	go func() {
		st, _ := cmd.Process.Wait()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left in its group
		sh.mu.Lock()
		sh.state = st
		sh.mu.Unlock()
		// What it wrote is read; a process it left that holds its
		// output open does not keep the session.
		for _, f := range []*os.File{sh.stdout, sh.stderr} {
			if f != nil {
				f.SetReadDeadline(time.Now().Add(drainAfterExit))
			}
		}
		close(sh.exited)
		s.shells.remove(sh)
	}()
	s.log.Info("shell started", "pid", cmd.Process.Pid, "tty", spec.TTY, "command", len(spec.Command) > 0)
	return sh, nil
}

// shellCommand builds the shell's process, not yet started.
func (s *Starter) shellCommand(spec wire.ShellSpec, sandboxDir string) (*exec.Cmd, error) {
	dir := sandboxDir
	if s.sharedFS() {
		p, err := planShared(s.job.Ad)
		if err != nil {
			return nil, err
		}
		dir = p.dir
	}
	env, err := s.environment(sandboxDir, dir)
	if err != nil {
		return nil, err
	}
	shell := pickShell(spec.Shells, env)
	if spec.TTY && spec.Term != "" {
		env = append(env, "TERM="+spec.Term)
	}
	args := []string{shell}
	if len(spec.Command) > 0 {
		args = append(args, "-c", strings.Join(spec.Command, " "))
	}
	cmd := &exec.Cmd{Path: shell, Args: args, Env: env, Dir: dir, SysProcAttr: &syscall.SysProcAttr{}}
	if u := s.cfg.User; u != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID), Groups: append([]uint32{}, u.Groups...)}
	}
	setDeathSignal(cmd.SysProcAttr)
	return cmd, nil
}

// pickShell is the shell to run: the first of shells the machine has
// (condor_ssh_to_job -shells), else /bin/sh; without shells the job's
// SHELL if it is an absolute path, else /bin/sh.
func pickShell(shells, env []string) string {
	if len(shells) > 0 {
		for _, sh := range shells {
			if fi, err := os.Stat(sh); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return sh
			}
		}
		return "/bin/sh"
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "SHELL="); ok && filepath.IsAbs(v) {
			return v
		}
	}
	return "/bin/sh"
}

// start starts the shell with a terminal or pipes, in the job's cgroup
// (nil: none).
func (sh *Shell) start(spec wire.ShellSpec, user *User, group *cgroups.Group) error {
	var child []*os.File // the child's ends, closed here once it started
	defer func() { closeAll(child) }()
	var err error
	if spec.TTY {
		child, err = sh.openTTY(spec, user)
	} else {
		child, err = sh.openPipes()
	}
	if err != nil {
		sh.closeFiles()
		return err
	}
	if group != nil {
		if f, ferr := group.Open(); ferr == nil {
			defer f.Close()
			intoCgroup(sh.cmd.SysProcAttr, f)
		}
	}
	if err := sh.cmd.Start(); err != nil {
		sh.closeFiles()
		return fmt.Errorf("starting %s: %w", sh.cmd.Path, err)
	}
	return nil
}

// openTTY makes the shell's terminal, owned by the job's user, and
// returns its child side.
func (sh *Shell) openTTY(spec wire.ShellSpec, user *User) ([]*os.File, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("a terminal for the shell: %w", err)
	}
	sh.tty, sh.stdout = master, master
	if user != nil {
		if err := tty.Chown(user.UID, user.GID); err != nil {
			tty.Close()
			return nil, fmt.Errorf("giving the terminal to %s: %w", user.Name, err)
		}
	}
	if spec.Rows > 0 && spec.Cols > 0 {
		pty.Setsize(master, &pty.Winsize{Rows: spec.Rows, Cols: spec.Cols})
	}
	sh.cmd.Stdin, sh.cmd.Stdout, sh.cmd.Stderr = tty, tty, tty
	sh.cmd.SysProcAttr.Setsid, sh.cmd.SysProcAttr.Setctty, sh.cmd.SysProcAttr.Ctty = true, true, 0
	return []*os.File{tty}, nil
}

// openPipes makes the command's three pipes and returns their child
// ends.
func (sh *Shell) openPipes() ([]*os.File, error) {
	var child []*os.File
	for i := range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(child)
			return nil, err
		}
		switch i {
		case 0:
			sh.stdin, sh.cmd.Stdin = w, r
			child = append(child, r)
		case 1:
			sh.stdout, sh.cmd.Stdout = r, w
			child = append(child, w)
		case 2:
			sh.stderr, sh.cmd.Stderr = r, w
			child = append(child, w)
		}
	}
	sh.cmd.SysProcAttr.Setpgid = true
	return child, nil
}

func (sh *Shell) closeFiles() { closeAll([]*os.File{sh.tty, sh.stdin, sh.stderr}) }

// Output is what the shell writes (its terminal's output with a
// terminal); Errors its error output (nil with a terminal). Both end
// (io.EOF, or a read error with a terminal) once the shell is gone and
// its output read, or drainAfterExit after it exited.
func (sh *Shell) Output() io.Reader { return &shellReader{sh.stdout} }

// Errors is the shell's error output; nil with a terminal.
func (sh *Shell) Errors() io.Reader {
	if sh.stderr == nil {
		return nil
	}
	return &shellReader{sh.stderr}
}

// shellReader reads one of the shell's outputs: a closed terminal, or
// the deadline drainAfterExit after the shell exited, is its end.
type shellReader struct{ f *os.File }

func (r *shellReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, syscall.EIO)) {
		err = io.EOF // the terminal's child side is closed: the end
	}
	return n, err
}

// Write writes to the shell's input.
func (sh *Shell) Write(p []byte) (int, error) {
	if sh.tty != nil {
		return sh.tty.Write(p)
	}
	return sh.stdin.Write(p)
}

// CloseInput ends the shell's input: end of file on its terminal (the
// EOF character, as ^D typed at the start of a line), or the pipe closed.
func (sh *Shell) CloseInput() error {
	if sh.tty != nil {
		_, err := sh.tty.Write([]byte{4})
		return err
	}
	return sh.stdin.Close()
}

// Resize sets the size of the shell's terminal; without one it does
// nothing.
func (sh *Shell) Resize(rows, cols uint16) error {
	if sh.tty == nil {
		return nil
	}
	return pty.Setsize(sh.tty, &pty.Winsize{Rows: rows, Cols: cols})
}

// Exited is closed once the shell's process has ended.
func (sh *Shell) Exited() <-chan struct{} { return sh.exited }

// Result is how the shell ended (after Exited), and why the job ended it
// ("" when it ended by itself or was killed by Close).
func (sh *Shell) Result() (wire.ShellExit, string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var ex wire.ShellExit
	if sh.state != nil {
		ex.Code = sh.state.ExitCode()
		if ws, ok := sh.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Signal = int(ws.Signal())
		}
	}
	return ex, sh.ended
}

// Close kills the shell (its whole process group) and, once it is gone,
// closes its files.
func (sh *Shell) Close() {
	sh.kill("")
	<-sh.exited
	sh.closeFiles()
	if sh.stdout != sh.tty {
		sh.stdout.Close()
	}
}

// kill kills the shell's process group; why, when set, is kept for
// Result.
func (sh *Shell) kill(why string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.state != nil {
		return // gone, and its group killed with it: the pid may be another's now
	}
	if why != "" && sh.ended == "" {
		sh.ended = why
	}
	if sh.cmd.Process != nil { // else it is starting: Shell kills it once started
		syscall.Kill(-sh.cmd.Process.Pid, syscall.SIGKILL)
	}
}
