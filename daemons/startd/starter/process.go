package starter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kite-sched/kite/daemons/startd/cgroups"
)

var (
	errNotRunning = errors.New("the job is not running")
	errVacated    = errors.New("the job was vacated before it started")
)

// spawn starts the job's process in its own process group and, where the
// host allows, its own cgroup.
func (s *Starter) spawn(p *plan) error {
	stdio, err := s.openStdio(p)
	if err != nil {
		return err
	}
	defer closeAll(stdio[:])
	group := s.makeGroup()
	cmd, err := s.startIn(p, stdio, group)
	if err != nil {
		if group != nil {
			group.Remove()
		}
		return err
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "job started", slog.Int("pid", cmd.Process.Pid), slog.Bool("cgroup", group != nil))
	return nil
}

// startIn starts the process inside group (nil: none). A kernel that
// cannot start a process straight into a cgroup gets it moved there
// right after.
func (s *Starter) startIn(p *plan, stdio [3]*os.File, group *cgroups.Group) (*exec.Cmd, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vacate != "" {
		return nil, errVacated
	}
	var cmd *exec.Cmd
	var err error
	// An executable just written into the sandbox may still be open for
	// writing in a process another goroutine is forking at that moment:
	// exec fails with ETXTBSY until that child execs. Try again shortly.
	for attempt := 1; ; attempt++ {
		cmd, group, err = s.tryStart(p, stdio, group)
		if err == nil || !errors.Is(err, syscall.ETXTBSY) || attempt == textBusyTries {
			break
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond)
	}
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", p.exe, err)
	}
	s.cmd, s.group = cmd, group
	return cmd, nil
}

// textBusyTries bounds the attempts to start an executable that is busy.
const textBusyTries = 20

// tryStart starts the process once, inside group when the kernel allows,
// else moved there right after; it returns the group the process is in.
func (s *Starter) tryStart(p *plan, stdio [3]*os.File, group *cgroups.Group) (*exec.Cmd, *cgroups.Group, error) {
	cmd, err := s.command(p, stdio)
	if err != nil {
		return nil, group, err
	}
	if group != nil {
		if f, ferr := group.Open(); ferr == nil {
			defer f.Close()
			intoCgroup(cmd.SysProcAttr, f)
			if err = s.startProcess(cmd); err == nil {
				return cmd, group, nil
			}
			if errors.Is(err, syscall.ETXTBSY) {
				return nil, group, err
			}
			if cmd, err = s.command(p, stdio); err != nil {
				return nil, group, err
			}
		}
	}
	if err = s.startProcess(cmd); err != nil {
		return nil, group, err
	}
	if group != nil && group.AddProcess(cmd.Process.Pid) != nil {
		group = nil
	}
	return cmd, group, nil
}

// makeGroup makes the job's cgroup, nil when there is none to make.
func (s *Starter) makeGroup() *cgroups.Group {
	if s.cfg.Cgroups == nil {
		return nil
	}
	g, err := s.cfg.Cgroups.Create(groupName(s.cfg.Slot, s.job.ID), cgroups.Limits{MemoryMiB: s.memoryLimit(), Cpus: s.cfg.Cpus})
	if err != nil {
		s.log.Warn("running the job without a cgroup", "err", err)
		return nil
	}
	s.confineDevices(g.Path)
	return g
}

// memoryLimit is the kernel's limit for the job: its slot's memory when
// the startd holds jobs over their request, else none.
func (s *Starter) memoryLimit() int64 {
	if !s.cfg.HoldIfMemoryExceeded {
		return 0
	}
	return s.cfg.MemoryMiB
}

func groupName(slot, job string) string {
	b := []byte(slot + "_" + job)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// openStdio opens the job's standard files: its input from the sandbox
// (or nothing), its output and error output into the sandbox (or nowhere).
func (s *Starter) openStdio(p *plan) ([3]*os.File, error) {
	if p.shared {
		return s.openShared(p)
	}
	var files [3]*os.File
	var err error
	if p.stdin != "" {
		files[0], err = s.box.Open(p.stdin)
	} else {
		files[0], err = sharedNull()
	}
	// Output nobody asked for is discarded, not kept to be dropped.
	for i, std := range []struct{ want, file string }{{p.stdout, stdoutFile}, {p.stderr, stderrFile}} {
		if err != nil {
			break
		}
		switch {
		case std.want == "":
			files[i+1], err = sharedNull()
		case i == 1 && p.sharedStd():
			files[2], err = dup(files[1])
		default:
			files[i+1], err = s.box.CreateFile(std.file, 0o644)
		}
	}
	if err != nil {
		closeAll(files[:])
		return files, err
	}
	return files, nil
}

// closeAll closes files, all but the shared /dev/null.
func closeAll(files []*os.File) {
	null := devNull.open.Load()
	for _, f := range files {
		if f != nil && f != null {
			f.Close()
		}
	}
}

// devNull is /dev/null, opened once for reading and writing: the standard
// files of every job that reads nothing or whose output goes nowhere, each
// a copy in the job's process. It is never closed.
var devNull struct {
	once sync.Once
	open atomic.Pointer[os.File]
	err  error
}

// sharedNull returns the shared /dev/null.
func sharedNull() (*os.File, error) {
	devNull.once.Do(func() {
		f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		devNull.open.Store(f)
		devNull.err = err
	})
	return devNull.open.Load(), devNull.err
}

// wait waits for the job's process to end, sampling its use meanwhile,
// then kills whatever it left behind. It returns when the process ended.
func (s *Starter) wait() time.Time {
	sampling := s.startSampling()
	s.cmd.Wait()
	end := s.cfg.Now()
	sampling.stop()
	s.killTree(syscall.SIGKILL)
	s.mu.Lock()
	s.exited = true
	s.mu.Unlock()
	s.shells.end("the job's process ended, and its shells with it")
	return end
}

// signalTree sends sig to the job's processes while it runs.
func (s *Starter) signalTree(sig syscall.Signal) error {
	s.mu.Lock()
	over := s.exited
	s.mu.Unlock()
	if over {
		return errNotRunning
	}
	return s.killTree(sig)
}

// killTree sends sig to the job's process group and to every process in
// its cgroup (which holds even those that left the group).
func (s *Starter) killTree(sig syscall.Signal) error {
	s.mu.Lock()
	cmd, g := s.cmd, s.group
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return errNotRunning
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		err = nil
	}
	if g != nil {
		if sig == syscall.SIGKILL {
			g.Kill()
		} else {
			g.Signal(sig)
		}
	}
	s.signalContainer(sig)
	return err
}
