package schedd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/jobenv"
	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/wire"
)

// The process of a scheduler or local universe job: started as the job's
// owner (the account the schedd maps its submitter to, as for the owner's
// files; never root), in its own process group, in the job's Iwd, with
// its arguments, its environment (Environment, or the old Env) and
// CONDOR_ID, and its standard files (In, Out, Err, relative to Iwd)
// opened as the owner. When its first process ends, what is left of its
// group is killed, as a starter cleans up after a job.

// localKillGrace is how long a job stopped by hold or remove has after
// its soft kill signal (KillSig, SIGTERM) before SIGKILL.
const localKillGrace = 10 * time.Second

// localProc is a running job's process.
type localProc struct {
	universe int64

	mu      sync.Mutex
	pid     int
	sig     syscall.Signal // the job's soft kill signal
	stopped bool           // the schedd stopped it: its end is not the job's exit
	done    bool
}

// started records the process; one stopped before it started is killed.
func (p *localProc) started(pid int, sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pid, p.sig = pid, sig
	if p.stopped {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// stop kills the job's process group: the soft kill signal, then SIGKILL
// after the grace.
func (p *localProc) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if p.pid == 0 || p.done {
		return
	}
	syscall.Kill(-p.pid, p.sig)
	pid := p.pid
	time.AfterFunc(localKillGrace, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.done {
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	})
}

// kill kills the job's process group at once (the schedd stops).
func (p *localProc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if p.pid != 0 && !p.done {
		syscall.Kill(-p.pid, syscall.SIGKILL)
	}
}

// ended marks the process ended and reports whether the schedd had
// stopped it.
func (p *localProc) ended() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	return p.stopped
}

// killAll kills every job's processes (the schedd stops).
func (l *localJobs) killAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.procs {
		p.kill()
	}
}

// spawnLocal starts a job's process and a goroutine that waits for it.
func (s *Server) spawnLocal(ctx context.Context, job idleLocal, p *localProc, at time.Time) error {
	acct, err := s.localAccount(job.account)
	if err != nil {
		return err
	}
	cmd, err := localCommand(job.ad, job.id, acct)
	if err != nil {
		return err
	}
	stdio, err := s.openStdio(job.ad, job.account)
	if err != nil {
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	err = cmd.Start()
	closeStdio(stdio)
	if err != nil {
		return fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	p.started(cmd.Process.Pid, localKillSignal(job.ad))
	s.log.Info("started a job on the schedd's host", "job", job.id.String(), "universe", job.universe, "pid", cmd.Process.Pid, "as", job.account)
	s.wg.Go(func() { s.waitLocal(cmd, job.id, p, at) })
	return nil
}

// waitLocal waits for a job's process and records its end.
func (s *Server) waitLocal(cmd *exec.Cmd, id queue.JobID, p *localProc, at time.Time) {
	cmd.Wait()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the job left behind
	end := s.now()
	if !p.ended() {
		s.localEnded(id, localUpdate(cmd.ProcessState, end.Sub(at)), end)
	}
	s.local.forget(id)
	s.local.poke()
}

// localUpdate is a process's end as a startd would report it.
func localUpdate(ps *os.ProcessState, wall time.Duration) *wire.JobUpdate {
	u := &wire.JobUpdate{Event: wire.EventExited, WallSeconds: wall.Seconds(),
		UserCPU: ps.UserTime().Seconds(), SysCPU: ps.SystemTime().Seconds(), PeakMemoryMB: peakMemoryMB(ps)}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		u.ExitBySignal, u.ExitSignal = true, int(ws.Signal())
	} else {
		u.ExitCode = ps.ExitCode()
	}
	return u
}

// localAccount is the account a job runs as: its owner's, never root's.
// A schedd that is not root runs every job as its own account.
func (s *Server) localAccount(name string) (*runas.Account, error) {
	if !s.ids.Privileged {
		return nil, nil
	}
	a, err := s.ids.Account(name)
	if err != nil {
		return nil, fmt.Errorf("the job's account %q: %w", name, err)
	}
	if a.Root() {
		return nil, errors.New("the job's owner is root, and Kite never runs a job as root")
	}
	return a, nil
}

// localCommand builds the job's process, run as acct (nil: as the
// schedd).
func localCommand(ad *classad.Ad, id queue.JobID, acct *runas.Account) (*exec.Cmd, error) {
	iwd := classad.EvalStringOr(ad, attr.Iwd, "")
	if !filepath.IsAbs(iwd) {
		return nil, fmt.Errorf("the job's Iwd %q is not an absolute path", iwd)
	}
	exe := classad.EvalStringOr(ad, attr.Cmd, "")
	if exe == "" {
		return nil, errors.New("the job has no executable (Cmd)")
	}
	if !filepath.IsAbs(exe) {
		exe = filepath.Join(iwd, exe)
	}
	args, err := jobenv.Arguments(ad)
	if err != nil {
		return nil, fmt.Errorf("the job's arguments: %w", err)
	}
	env, err := localEnvironment(ad, id, iwd)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: exe, Args: append([]string{exe}, args...), Env: env, Dir: iwd,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if acct != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: acct.UID, Gid: acct.GID, Groups: append([]uint32{}, acct.Groups...)}
	}
	dieWithSchedd(cmd.SysProcAttr)
	return cmd, nil
}

// localEnvironment returns the job's environment (see jobenv) with
// CONDOR_ID (cluster.proc, which HTCondor gives scheduler universe jobs
// such as DAGMan), _CONDOR_JOB_IWD, and a PATH if the job has none.
func localEnvironment(ad *classad.Ad, id queue.JobID, iwd string) ([]string, error) {
	env, err := jobenv.Environment(ad)
	if err != nil {
		return nil, err
	}
	env.Set("CONDOR_ID", id.String())
	env.Set("_CONDOR_JOB_IWD", iwd)
	return jobenv.List(env), nil
}

// openStdio opens a job's In, Out and Err as its owner: relative names
// against Iwd, output files created or truncated.
func (s *Server) openStdio(ad *classad.Ad, account string) ([3]*os.File, error) {
	var files [3]*os.File
	iwd := classad.EvalStringOr(ad, attr.Iwd, "")
	path := func(name string) string {
		p := classad.EvalStringOr(ad, name, "/dev/null")
		if p == "" {
			p = "/dev/null"
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(iwd, p)
		}
		return p
	}
	in, out, errPath := path(attr.In), path(attr.Out), path(attr.Err)
	err := s.ids.Do(account, func() error {
		var err error
		if files[0], err = os.Open(in); err != nil {
			return fmt.Errorf("the job's input: %w", err)
		}
		const create = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if files[1], err = os.OpenFile(out, create, 0o644); err != nil {
			return fmt.Errorf("the job's output: %w", err)
		}
		if errPath == out {
			files[2] = files[1] // one file, one offset
			return nil
		}
		if files[2], err = os.OpenFile(errPath, create, 0o644); err != nil {
			return fmt.Errorf("the job's error output: %w", err)
		}
		return nil
	})
	if err != nil {
		closeStdio(files)
		return files, fmt.Errorf("as %s: %w", account, err)
	}
	return files, nil
}

// closeStdio closes the standard files, each once.
func closeStdio(files [3]*os.File) {
	for i, f := range files {
		if f != nil && (i != 2 || f != files[1]) {
			f.Close()
		}
	}
}

// localKillSignal is the job's soft kill signal (KillSig), SIGTERM by
// default.
func localKillSignal(ad *classad.Ad) syscall.Signal {
	name := strings.TrimPrefix(strings.ToUpper(classad.EvalStringOr(ad, "KillSig", "")), "SIG")
	if n, err := strconv.Atoi(name); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n)
	}
	switch name {
	case "HUP":
		return syscall.SIGHUP
	case "INT":
		return syscall.SIGINT
	case "QUIT":
		return syscall.SIGQUIT
	case "KILL":
		return syscall.SIGKILL
	case "USR1":
		return syscall.SIGUSR1
	case "USR2":
		return syscall.SIGUSR2
	}
	return syscall.SIGTERM
}
