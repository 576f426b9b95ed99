package master

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/kite-sched/kite/internal/wire"
)

// Command makes the command that runs a daemon of the given kind: the
// same kite binary and configuration as the master's.
type Command func(kind string) *exec.Cmd

// backoff is how long to wait before the n-th restart in a row:
// constant + factor^n units, at most the ceiling (HTCondor: 9 s + 2^n s,
// at most an hour).
type backoff struct {
	constant, ceiling, unit time.Duration
	factor                  float64
}

func (b backoff) delay(n int) time.Duration {
	d := float64(b.constant) + math.Pow(b.factor, float64(n))*float64(b.unit)
	if d > float64(b.ceiling) || math.IsInf(d, 0) || math.IsNaN(d) {
		return b.ceiling
	}
	return time.Duration(d)
}

// child is one supervised daemon.
type child struct {
	kind string
	kick chan struct{} // wakes the child's loop after a change of want

	mu        sync.Mutex
	want      bool // on
	restart   bool // stop, then start again at once
	hup       bool // send SIGHUP
	state     string
	pid       int
	since     time.Time
	started   time.Time
	restarts  int
	nextStart time.Time
	lastExit  string
}

func (c *child) status() wire.DaemonStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	return wire.DaemonStatus{Name: c.kind, State: c.state, PID: c.pid, Since: c.since, Restarts: c.restarts,
		NextStart: c.nextStart, LastExit: c.lastExit}
}

func (c *child) set(f func(c *child)) {
	c.mu.Lock()
	f(c)
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// supervisor runs daemons as child processes and restarts those that end.
type supervisor struct {
	command   Command
	logDir    string
	backoff   backoff
	recover   time.Duration
	stopGrace time.Duration
	changed   func() // a daemon's state changed
	logf      func(msg string, args ...any)
	// onEnded, when set, is told of each daemon that ended by itself.
	onEnded func(kind string)

	mu       sync.Mutex
	children map[string]*child
	order    []string // in start order
	wg       sync.WaitGroup
}

// add starts supervising a daemon (on) unless it already is.
func (s *supervisor) add(ctx context.Context, kind string) *child {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.children[kind]; c != nil {
		return c
	}
	c := &child{kind: kind, kick: make(chan struct{}, 1), want: true, state: wire.DaemonStopped, since: time.Now()}
	s.children[kind] = c
	s.order = append(s.order, kind)
	s.wg.Go(func() { s.loop(ctx, c) })
	return c
}

func (s *supervisor) get(kind string) *child {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.children[kind]
}

// statuses reports every daemon in start order.
func (s *supervisor) statuses() []wire.DaemonStatus {
	s.mu.Lock()
	kinds := append([]string(nil), s.order...)
	s.mu.Unlock()
	out := make([]wire.DaemonStatus, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, s.get(k).status())
	}
	return out
}

// loop runs one daemon while the supervisor lives: start it when it is
// wanted and its backoff has passed, restart it when it ends by itself,
// stop it when it is no longer wanted.
func (s *supervisor) loop(ctx context.Context, c *child) {
	for ctx.Err() == nil {
		c.mu.Lock()
		want, wait := c.want, time.Until(c.nextStart)
		c.restart = false
		c.mu.Unlock()
		if !want || wait > 0 {
			var timer <-chan time.Time
			if want {
				timer = time.After(wait)
			}
			select {
			case <-ctx.Done():
				return
			case <-c.kick:
			case <-timer:
			}
			continue
		}
		s.runOnce(ctx, c)
	}
}

// runOnce starts the daemon and waits until it ends or is stopped.
func (s *supervisor) runOnce(ctx context.Context, c *child) {
	cmd := s.command(c.kind)
	var logFile *os.File
	if s.logDir != "" {
		if f, err := openLog(s.logDir, c.kind); err == nil {
			logFile = f
			cmd.Stdout, cmd.Stderr = f, f
		} else {
			s.logf("daemon log", "daemon", c.kind, "err", err)
		}
	}
	if logFile != nil {
		defer logFile.Close()
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		s.ended(c, "could not start: "+err.Error(), time.Now())
		return
	}
	started := time.Now()
	c.set(func(c *child) {
		c.state, c.pid, c.since, c.started, c.lastExit = wire.DaemonRunning, cmd.Process.Pid, started, started, ""
	})
	s.changed()
	s.logf("started", "daemon", c.kind, "pid", cmd.Process.Pid)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		select {
		case err := <-exited:
			s.ended(c, exitError(err), started)
			return
		case <-c.kick:
		case <-ctx.Done():
		}
		c.mu.Lock()
		want, restart, hup := c.want, c.restart, c.hup
		c.hup = false
		c.mu.Unlock()
		if hup && want && !restart && ctx.Err() == nil {
			cmd.Process.Signal(syscall.SIGHUP)
			continue
		}
		if want && !restart && ctx.Err() == nil {
			continue
		}
		s.stop(c, cmd, exited)
		return
	}
}

// stop ends a running daemon: SIGTERM, then SIGKILL to its process
// group after the grace period.
func (s *supervisor) stop(c *child, cmd *exec.Cmd, exited chan error) {
	c.set(func(c *child) { c.state = wire.DaemonStopping })
	cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-exited:
	case <-time.After(s.stopGrace):
		s.logf("did not stop in time; killing", "daemon", c.kind, "grace", s.stopGrace)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-exited
	}
	now := time.Now()
	c.set(func(c *child) {
		c.pid, c.since, c.lastExit = 0, now, exitError(err)
		if c.want && c.restart {
			c.state, c.nextStart = wire.DaemonBackoff, now
		} else {
			c.state = wire.DaemonStopped
		}
	})
	s.changed()
	s.logf("stopped", "daemon", c.kind)
}

// ended records a daemon that ended by itself and schedules its restart.
func (s *supervisor) ended(c *child, err string, started time.Time) {
	now := time.Now()
	c.set(func(c *child) {
		if now.Sub(started) >= s.recover {
			c.restarts = 0
		}
		c.restarts++
		wait := s.backoff.delay(c.restarts)
		c.state, c.pid, c.since, c.lastExit, c.nextStart = wire.DaemonBackoff, 0, now, err, now.Add(wait)
	})
	s.changed()
	if s.onEnded != nil {
		s.onEnded(c.kind)
	}
	st := c.status()
	s.logf("daemon ended; restarting after backoff", "daemon", c.kind, "exit", err, "restarts", st.Restarts,
		"wait", st.NextStart.Sub(now).Round(time.Millisecond))
}

func exitError(err error) string {
	if err == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.String()
	}
	return err.Error()
}

func openLog(dir, kind string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(dir, kind+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// setWant turns a daemon on or off.
func (s *supervisor) setWant(kind string, want bool) {
	if c := s.get(kind); c != nil {
		c.set(func(c *child) {
			c.want = want
			switch {
			case want && c.state != wire.DaemonRunning:
				c.nextStart = time.Time{} // on starts at once, backoff or not
			case !want && c.state == wire.DaemonBackoff:
				c.state, c.since = wire.DaemonStopped, time.Now()
			}
		})
	}
}

// restartDaemon stops a daemon and starts it again at once.
func (s *supervisor) restartDaemon(kind string) {
	if c := s.get(kind); c != nil {
		c.set(func(c *child) { c.want, c.restart, c.nextStart = true, true, time.Time{} })
	}
}

// hangup sends SIGHUP to a running daemon.
func (s *supervisor) hangup(kind string) {
	if c := s.get(kind); c != nil {
		c.set(func(c *child) { c.hup = true })
	}
}

// waitStopped waits until a daemon is stopped (or d passes).
func (s *supervisor) waitStopped(kind string, d time.Duration) bool {
	c := s.get(kind)
	if c == nil {
		return true
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if c.status().State == wire.DaemonStopped {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
