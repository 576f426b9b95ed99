package starter

import (
	"fmt"
	"math"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// The job attributes a simulated job is read from (Config.Simulate):
// its run time in seconds (a number; missing is 0) and its exit code
// (missing is 0). A submit file sets them as +KiteSimRunTime = 60.
const (
	SimRunTime  = "KiteSimRunTime"
	SimExitCode = "KiteSimExitCode"
)

// simulate runs a job without a process, for scale tests of the whole
// pool: the job "runs" for its declared run time (SimRunTime) on the
// starter's clock and exits with SimExitCode. No sandbox is made and no
// file moves; everything around the run is the real starter's: the
// started event (folded into the exit of a short job), the kept result,
// Ended before the report, and a vacate that evicts the job at once.
func (s *Starter) simulate() wire.JobUpdate {
	run, code, err := simulated(s.job.Ad)
	if err != nil {
		return s.failed(attr.HoldStartingJob, err)
	}
	if r := s.vacating(); r != "" {
		return s.evicted(r)
	}
	start := s.cfg.Now()
	started := s.reportStarted(start)
	t := time.NewTimer(run)
	select {
	case <-t.C:
	case <-s.ctx.Done(): // a vacate
		t.Stop()
	}
	s.mu.Lock()
	s.usage.Wall = s.cfg.Now().Sub(start)
	s.mu.Unlock()
	u := s.event(wire.EventExited)
	u.ExitCode = code
	if r := s.vacating(); r != "" {
		u = s.evicted(r)
	}
	if s.cfg.Keep != nil {
		s.cfg.Keep(u)
	}
	started.settle(&u)
	return u
}

// simulated reads a simulated job's run time and exit code.
func simulated(ad *classad.Ad) (time.Duration, int, error) {
	secs := classad.EvalNumberOr(ad, SimRunTime, 0)
	if secs < 0 || math.IsNaN(secs) || secs > math.MaxInt64/float64(time.Second) {
		return 0, 0, fmt.Errorf("simulated job: %s = %v is not a run time in seconds", SimRunTime, secs)
	}
	code := classad.EvalIntOr(ad, SimExitCode, 0)
	if code < 0 || code > 255 {
		return 0, 0, fmt.Errorf("simulated job: %s = %d is not an exit code (0 to 255)", SimExitCode, code)
	}
	return time.Duration(secs * float64(time.Second)), int(code), nil
}
