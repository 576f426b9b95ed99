package scale

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/wire"
)

// Run is one measured run: a pool, its queue, how long it is watched.
type Run struct {
	Options
	Jobs    int           // queued in one submit
	RunTime time.Duration // each job's declared run time
	// Window is how long the start rate is measured, from a run time
	// after the fill, as claims are reused for the next jobs; 0 measures
	// no rate.
	Window time.Duration
	// Timeout bounds each phase (ingest, submit, fill, rate); 0 is ten
	// minutes.
	Timeout time.Duration
	// Profile, when not "", is where the run's CPU profile is written.
	Profile string
	// BlockProfile and MutexProfile, when not "", are where the block
	// and mutex profiles of the start rate's window are written: where
	// goroutines waited, and on which locks, while claims were reused.
	BlockProfile, MutexProfile string
}

// Figures are what a run measured. Durations are wall-clock times of
// this process; CPU is the process's CPU time split by daemon while the
// jobs were submitted, filled the pool and turned over (the fill, a run
// time, the window).
type Figures struct {
	Hosts, Slots, Jobs int
	RunTime            time.Duration // each job's declared run time
	HostsUp            time.Duration // the startds started and serving
	Ingest             time.Duration // ... and every slot ad in the collector
	Submit             time.Duration // the submit of every job acknowledged (durable)
	Fill               time.Duration // from the submit's answer until 99 % of the slots run jobs (Filled)
	StartRate          float64       // jobs started per second over the window (claim reuse)
	Turnover           Turnover      // each slot's period between starts, at the window's end
	Demand             float64       // slots / run time: the start rate that keeps every slot busy
	CPU                map[string]time.Duration
	ProcessCPU         time.Duration // user+system over the same span
	Span               time.Duration // the span CPU covers
	HeapBase           uint64        // live heap before the pool
	HeapHosts          uint64        // ... with the pool up, ads in the collector
	HeapRun            uint64        // ... with the queue, every slot claimed
	Goroutines         int           // at the end of the window
	Cycles             int64         // negotiation cycles over the span
	Cycle              wire.CycleReport
}

// Measure starts a pool, queues the jobs and measures it (see Figures).
func Measure(tb testing.TB, r Run) Figures {
	tb.Helper()
	if r.Timeout == 0 {
		r.Timeout = 10 * time.Minute
	}
	f := Figures{Hosts: r.Hosts, Jobs: r.Jobs, RunTime: r.RunTime, HeapBase: HeapBytes()}
	began := time.Now()
	pl := Start(tb, r.Options)
	f.Slots, f.HostsUp = pl.Slots(), time.Since(began)
	phase := func(what string, wait func(ctx context.Context) error) {
		tb.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
		defer cancel()
		if err := wait(ctx); err != nil {
			tb.Fatalf("%s: %v", what, err)
		}
		tb.Logf("%s: done at %v", what, time.Since(began).Round(time.Millisecond))
	}
	phase("ingest", pl.WaitIngest)
	f.Ingest = time.Since(began)
	f.HeapHosts = HeapBytes()
	prof, err := StartCPU()
	if err != nil {
		tb.Logf("no CPU split by daemon: %v", err)
	} else {
		defer pprof.StopCPUProfile() // a phase that fails stops the test
	}
	cpu0, spanStart, cycle0 := processCPU(), time.Now(), pl.Negotiator.LastCycle().Number
	phase("submit", func(ctx context.Context) error { return pl.Submit(ctx, r.Jobs, r.RunTime) })
	submitted := time.Now()
	f.Submit = submitted.Sub(spanStart)
	phase("fill", pl.waitFill)
	f.Fill = time.Since(submitted)
	if r.Window > 0 {
		f.Demand = float64(f.Slots) / r.RunTime.Seconds()
		phase("start rate", func(ctx context.Context) (err error) {
			// the jobs that filled the pool end a run time after their
			// activations, which reach the startds after the schedd
			// counts the jobs running: a run time after the fill, every
			// slot takes its jobs one after another on its claim
			if err := pause(ctx, r.RunTime); err != nil {
				return err
			}
			stop := startWaitProfiles(r.BlockProfile, r.MutexProfile)
			f.StartRate, err = pl.startRate(ctx, r.Window)
			if err = errors.Join(err, stop()); err != nil {
				return err
			}
			f.Turnover, err = pl.Turnover(ctx)
			return err
		})
	}
	f.Span, f.ProcessCPU = time.Since(spanStart), processCPU()-cpu0
	if prof != nil {
		if f.CPU, err = prof.Stop(r.Profile); err != nil {
			tb.Fatal(err)
		}
	}
	f.Goroutines, f.Cycle = runtime.NumGoroutine(), pl.Negotiator.LastCycle()
	f.Cycles = f.Cycle.Number - cycle0
	f.HeapRun = HeapBytes()
	return f
}

// Filled is the share of the slots that must run jobs at once for the
// pool to count as filled: with jobs ending and claims reused, a few
// slots are always between two jobs.
const Filled = 0.99

// waitFill waits until Filled of the slots run jobs.
func (pl *Pool) waitFill(ctx context.Context) error {
	want := int(Filled * float64(pl.Slots()))
	for {
		c, err := pl.Counts(ctx)
		if err != nil {
			return err
		}
		if c.Running >= want {
			return nil
		}
		if err := pause(ctx, 50*time.Millisecond); err != nil {
			return fmt.Errorf("%d of %d slots run jobs (%d idle; the last cycle: %+v): %w",
				c.Running, pl.Slots(), c.Idle, pl.Negotiator.LastCycle(), err)
		}
	}
}

// startRate counts the jobs that leave Idle over window, from now. Once
// every slot runs a job, a window as long as the jobs' run time sees each
// slot start one more job (its claim reused) if the pool keeps up.
func (pl *Pool) startRate(ctx context.Context, window time.Duration) (float64, error) {
	before, err := pl.Counts(ctx)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := pause(ctx, window); err != nil {
		return 0, err
	}
	after, err := pl.Counts(ctx)
	if err != nil {
		return 0, err
	}
	if after.Idle == 0 {
		return 0, fmt.Errorf("the queue ran dry within the window: queue more jobs")
	}
	return float64(before.Idle-after.Idle) / time.Since(t0).Seconds(), nil
}

// startWaitProfiles starts recording every blocking event and every
// contended lock when block or mutex names a file; the function it
// returns stops recording and writes the profiles (for go tool pprof
// -top FILE), which then hold only the events since the start.
func startWaitProfiles(block, mutex string) func() error {
	if block != "" {
		runtime.SetBlockProfileRate(1)
	}
	if mutex != "" {
		runtime.SetMutexProfileFraction(1)
	}
	return func() error {
		var errs []error
		if block != "" {
			errs = append(errs, writeProfile("block", block))
			runtime.SetBlockProfileRate(0)
		}
		if mutex != "" {
			errs = append(errs, writeProfile("mutex", mutex))
			runtime.SetMutexProfileFraction(0)
		}
		return errors.Join(errs...)
	}
}

// writeProfile writes the named runtime profile to file.
func writeProfile(name, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("%s profile: %w", name, err)
	}
	return f.Close()
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
