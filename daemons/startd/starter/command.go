package starter

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/jobenv"
)

// environment returns the job's environment (see jobenv), then the
// variables HTCondor gives every job: sandboxDir is its scratch
// directory, iwd its working directory.
func (s *Starter) environment(sandboxDir, iwd string) ([]string, error) {
	env, err := jobenv.Environment(s.job.Ad)
	if err != nil {
		return nil, err
	}
	cpus := strconv.FormatInt(max(s.cfg.Cpus, 1), 10)
	for _, kv := range [...][2]string{
		{"_CONDOR_SCRATCH_DIR", sandboxDir}, {"_CONDOR_SLOT", s.cfg.Slot},
		{"_CONDOR_JOB_AD", filepath.Join(sandboxDir, jobAdFile)}, {"_CONDOR_MACHINE_AD", filepath.Join(sandboxDir, machineAdFile)},
		{"_CONDOR_JOB_IWD", iwd}, {"TMPDIR", sandboxDir}, {"TMP", sandboxDir}, {"TEMP", sandboxDir},
		{"OMP_NUM_THREADS", cpus}, {"MKL_NUM_THREADS", cpus}, {"OPENBLAS_NUM_THREADS", cpus},
	} {
		env.Set(kv[0], kv[1])
	}
	for k, v := range s.cfg.ResourceEnv {
		env.Set(k, v)
	}
	return jobenv.List(env), nil
}

// command builds the job's process: its executable, arguments and
// environment, in the sandbox, with its standard files.
func (s *Starter) command(p *plan, stdio [3]*os.File) (*exec.Cmd, error) {
	if s.ctr != nil {
		return s.containerCommand(stdio), nil
	}
	args, err := jobenv.Arguments(s.job.Ad)
	if err != nil {
		return nil, fmt.Errorf("the job's arguments: %w", err)
	}
	dir := s.box.Path
	if p.shared {
		dir = p.dir
	}
	env, err := s.environment(s.box.Path, dir)
	if err != nil {
		return nil, err
	}
	exe := p.exe
	if p.java {
		if exe, args, err = s.javaCommand(dir, args); err != nil {
			return nil, err
		}
	} else if !filepath.IsAbs(exe) {
		exe = filepath.Join(s.box.Path, exe)
	}
	cmd := &exec.Cmd{Path: exe, Args: append([]string{exe}, args...), Env: env, Dir: dir,
		Stdin: stdio[0], Stdout: stdio[1], Stderr: stdio[2]}
	s.asJob(cmd)
	return cmd, nil
}

// asJob makes cmd run as the job's user, in its own process group,
// killed with the startd.
func (s *Starter) asJob(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if u := s.cfg.User; u != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID), Groups: append([]uint32{}, u.Groups...)}
	}
	setDeathSignal(cmd.SysProcAttr)
}

// killSignal is the job's soft kill signal (KillSig), SIGTERM by default.
func killSignal(ad *classad.Ad) syscall.Signal {
	name := strings.ToUpper(strings.TrimPrefix(strings.ToUpper(classad.EvalStringOr(ad, "KillSig", "")), "SIG"))
	if n, err := strconv.Atoi(name); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n)
	}
	if sig, ok := signals[name]; ok {
		return sig
	}
	return syscall.SIGTERM
}

var signals = map[string]syscall.Signal{
	"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL,
	"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "TERM": syscall.SIGTERM, "ALRM": syscall.SIGALRM,
}
