package starter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// run runs the job from sandbox to report, then cleans up: the schedd
// hears of the job's end before the sandbox is removed, so that the slot
// takes its next job sooner.
func (s *Starter) run() {
	defer close(s.done)
	growStack() // before the deep work: its stack grows once, cheaply (stack.go)
	u := s.execute()
	s.removeContainer() // before the schedd hears: no container outlives its job
	s.mu.Lock()
	s.result = u
	s.mu.Unlock()
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "job over", // attributes unboxed: no allocation
		slog.String("event", u.Event), slog.Int("exit_code", u.ExitCode), slog.Int("signal", u.ExitSignal), slog.String("reason", u.Reason))
	if s.cfg.Ended != nil {
		s.cfg.Ended(u)
	}
	s.park() // before the report: its answer may bring the claim's next job
	// Grown again if the garbage collector shrank it while the job ran.
	growStack()
	s.report(u)
	s.cleanup()
	s.cancel()
}

// execute goes through the job's phases and returns its last event.
func (s *Starter) execute() wire.JobUpdate {
	if s.cfg.Simulate {
		return s.simulate()
	}
	plan := planFiles
	if s.sharedFS() {
		plan = planShared
	}
	activated := s.cfg.Now()
	p, err := plan(s.job.Ad)
	if err != nil {
		return s.planFailed(err)
	}
	began := time.Now()
	box, err := s.sandbox()
	if err != nil {
		return s.failed(attr.HoldStartingJob, err)
	}
	s.mu.Lock()
	s.box = box
	s.mu.Unlock()
	if err := s.writeAds(); err != nil {
		return s.failed(attr.HoldStartingJob, err)
	}
	began = s.timing(PhaseSandbox, began)
	inputs, err := s.fetchInputs(p)
	s.timing(PhaseInput, began)
	if r := s.vacating(); r != "" {
		return s.evicted(r)
	}
	if errors.Is(err, wire.ErrUnreachable) {
		// The schedd is away (restarting, say), not the input wrong: the
		// job goes back to idle, as HTCondor's does when its shadow is gone.
		return s.evicted("the job's input could not be fetched: " + err.Error())
	}
	if err != nil {
		return s.held(attr.HoldTransferInput, fmt.Errorf("input %w", err))
	}
	if isContainerJob(s.job.Ad) {
		if err := s.prepareContainer(p); err != nil {
			if r := s.vacating(); r != "" {
				return s.evicted(r)
			}
			return s.held(attr.HoldInvalidDockerImage, err)
		}
	}
	start := s.cfg.Now()
	if err := s.spawn(p); err != nil {
		if r := s.vacating(); r != "" {
			return s.evicted(r)
		}
		return s.failed(attr.HoldStartingJob, err)
	}
	started := s.reportStarted(start)
	end, stopped := s.waitCheckpointing(p, inputs, started)
	var u wire.JobUpdate
	if stopped != nil {
		u = *stopped
	} else {
		u = s.afterExit(p, inputs, start, end)
	}
	s.runFacts(&u, activated, start, end)
	started.fold(&u) // kept as it is reported: kept once
	if s.cfg.Keep != nil {
		s.cfg.Keep(u) // before the start's report, which may wait for the schedd
	}
	started.settle(&u)
	return u
}

// startedReport is a job's started event, sent at once or, for a job that
// may end at once, after FoldStarted unless the job's last event carries
// it instead.
type startedReport struct {
	s     *Starter
	mu    sync.Mutex
	state int // 0 pending, 1 sent (or being sent), 2 folded
	at    time.Time
	timer *time.Timer // sends a pending start after FoldStarted; nil: sent at once
	stop  sync.Once   // stops the timer
	done  chan struct{}
}

// reportStarted reports that the job's process began at start.
func (s *Starter) reportStarted(start time.Time) *startedReport {
	r := &startedReport{s: s, at: start, done: make(chan struct{})}
	if s.cfg.FoldStarted <= 0 {
		r.state = 1
		s.report(s.event(wire.EventStarted))
		close(r.done)
		return r
	}
	r.timer = time.AfterFunc(s.cfg.FoldStarted, r.send)
	return r
}

// send sends the start unless it was folded meanwhile, then closes done.
func (r *startedReport) send() {
	defer close(r.done)
	r.mu.Lock()
	send := r.state == 0
	if send {
		r.state = 1
	}
	r.mu.Unlock()
	if send {
		r.s.report(r.s.event(wire.EventStarted))
	}
}

// now sends a pending start at once, unless the timer already runs send,
// and waits for it.
func (r *startedReport) now() {
	r.stop.Do(func() {
		if r.timer != nil && r.timer.Stop() {
			r.send()
		}
	})
	<-r.done
}

// settle completes the start's report before the last event, so that the
// schedd hears the events in order: folded into the exit of a job that
// ended by itself before the start was sent; else sent now (a vacated or
// held job), or waited for.
func (r *startedReport) settle(u *wire.JobUpdate) {
	r.fold(u)
	r.now() // a pending start not folded is sent at once
}

// fold folds a pending start into the exit of a job that ended by itself
// (u), at once; settle, called after, sees it folded.
func (r *startedReport) fold(u *wire.JobUpdate) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == 0 && u.Event == wire.EventExited {
		r.state = 2
		u.StartedAt = r.at.Unix()
	}
}

// flush sends a pending start now, never folded, and waits for it: a
// checkpoint's report follows its run's start, so a machine lost after a
// checkpoint still leaves the run counted and its execute event logged.
func (r *startedReport) flush() { r.now() }

// afterExit decides what became of a job whose process ended: evicted,
// held for its memory, held for an output it could not send, or exited.
func (s *Starter) afterExit(p *plan, inputs map[string]fileState, start, end time.Time) wire.JobUpdate {
	s.finalUsage(start, end)
	if r := s.vacating(); r != "" {
		return s.evicted(r)
	}
	if u := s.containerEnded(); u != nil {
		return *u
	}
	if reason := s.memoryExceeded(); reason != "" {
		return s.held(attr.HoldJobOutOfResources, errors.New(reason))
	}
	sending := time.Now()
	err := s.sendOutputs(p, inputs)
	s.timing(PhaseOutput, sending)
	if err != nil {
		if r := s.vacating(); r != "" {
			return s.evicted(r)
		}
		return s.held(attr.HoldTransferOutput, fmt.Errorf("output %w", err))
	}
	return s.exitEvent()
}

// memoryExceeded returns why the job went over its memory, "" if it did
// not: the startd killed it, or the kernel did under its cgroup limit.
func (s *Starter) memoryExceeded() string {
	s.mu.Lock()
	reason, g, peak := s.memHold, s.group, s.usage.PeakMemoryBytes
	s.mu.Unlock()
	if reason != "" || !s.cfg.HoldIfMemoryExceeded || g == nil || !s.cfg.Cgroups.Has("memory") {
		return reason
	}
	if g.Stats().OOMKills > 0 {
		return memoryReason(max(peak, s.cfg.MemoryMiB<<20+1), s.cfg.MemoryMiB)
	}
	return ""
}

// finalUsage completes the job's usage from its process's accounting and
// its cgroup's.
func (s *Starter) finalUsage(start, end time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := &s.usage
	u.Wall = end.Sub(start)
	if st := s.cmd.ProcessState; st != nil {
		u.UserCPU, u.SysCPU = st.UserTime(), st.SystemTime()
		u.PeakMemoryBytes = max(u.PeakMemoryBytes, maxRSS(st))
	}
	if s.group != nil {
		gs := s.group.Stats()
		u.UserCPU, u.SysCPU = max(u.UserCPU, gs.UserCPU), max(u.SysCPU, gs.SysCPU)
		u.PeakMemoryBytes = max(u.PeakMemoryBytes, gs.PeakMemoryBytes)
	}
}

// owner is the sandbox's owner: the job's user.
func (s *Starter) owner() *sandbox.Owner {
	if s.cfg.User == nil {
		return nil
	}
	return &sandbox.Owner{UID: s.cfg.User.UID, GID: s.cfg.User.GID}
}

// cleanup removes the sandbox and the cgroup.
func (s *Starter) cleanup() {
	s.mu.Lock()
	box, g := s.box, s.group
	s.mu.Unlock()
	if g != nil {
		if err := g.Remove(); err != nil {
			s.log.Warn("removing the job's cgroup", "err", err)
		}
	}
	if box != nil {
		if err := box.Remove(); err != nil {
			s.log.Warn("removing the sandbox", "dir", box.Path, "err", err)
		}
	}
}

// report sends an event; a schedd that cannot be told is logged.
func (s *Starter) report(u wire.JobUpdate) {
	if s.cfg.Report == nil {
		return
	}
	if err := s.cfg.Report(context.Background(), u); err != nil {
		s.log.Warn("reporting a job event", "event", u.Event, "err", err)
	}
}

// event returns an event of the job with its usage so far.
func (s *Starter) event(kind string) wire.JobUpdate {
	s.mu.Lock()
	u := s.usage
	s.mu.Unlock()
	return wire.JobUpdate{
		ClaimID: s.job.ClaimID, Job: s.job.ID, Event: kind, Time: s.cfg.Now().Unix(),
		WallSeconds: u.Wall.Seconds(), UserCPU: u.UserCPU.Seconds(), SysCPU: u.SysCPU.Seconds(),
		PeakMemoryMB: ceilMiB(u.PeakMemoryBytes),
	}
}

// exitEvent is the event of a job that ended by itself.
func (s *Starter) exitEvent() wire.JobUpdate {
	u := s.event(wire.EventExited)
	if code, ok := s.containerExit(); ok {
		u.ExitCode = code // the container's, not its runtime's process's
		return u
	}
	ws, _ := s.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		u.ExitBySignal, u.ExitSignal = true, int(ws.Signal())
	} else {
		u.ExitCode = s.cmd.ProcessState.ExitCode()
	}
	return u
}

func (s *Starter) evicted(reason string) wire.JobUpdate {
	u := s.event(wire.EventEvicted)
	u.Reason = reason
	return u
}

func (s *Starter) held(code int, err error) wire.JobUpdate {
	u := s.event(wire.EventHeld)
	u.HoldCode, u.Reason = code, err.Error()
	var pe *xferplugin.Error
	if errors.As(err, &pe) {
		u.HoldSubCode = pe.Code // the plugin's exit status, as HTCondor holds
	}
	return u
}

func (s *Starter) failed(code int, err error) wire.JobUpdate {
	u := s.event(wire.EventFailed)
	u.HoldCode, u.Reason = code, err.Error()
	return u
}

// planFailed holds a job whose files cannot be moved safely, and fails
// one that cannot be run at all.
func (s *Starter) planFailed(err error) wire.JobUpdate {
	var pe *planError
	if !errors.As(err, &pe) {
		return s.failed(attr.HoldStartingJob, err)
	}
	if pe.input {
		return s.held(attr.HoldTransferInput, fmt.Errorf("input %w", pe.err))
	}
	return s.held(attr.HoldTransferOutput, fmt.Errorf("output %w", pe.err))
}

// timing tells Config.Timing how long a phase that began at start took,
// and returns now, when the next phase begins.
func (s *Starter) timing(phase string, start time.Time) time.Time {
	now := time.Now()
	if s.cfg.Timing != nil {
		s.cfg.Timing(phase, now.Sub(start))
	}
	return now
}
