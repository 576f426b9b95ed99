package starter

import (
	"fmt"
	"sync"
	"syscall"
	"time"
)

// Usage is what a job used.
type Usage struct {
	Wall            time.Duration
	UserCPU, SysCPU time.Duration
	MemoryBytes     int64   // at the last sample
	PeakMemoryBytes int64   // the most seen
	CPURate         float64 // cpus kept busy over the last sample interval
}

// sampler measures the job every SampleInterval while its process runs,
// at the times a time.Ticker made when it began would tick, from a timer
// rather than a goroutine of its own: most jobs end before the first.
type sampler struct {
	s        *Starter
	measure  func() (mem int64, cpu time.Duration) // nil: Starter.measure
	interval time.Duration
	mu       sync.Mutex // held while sampling, and to stop
	stopped  bool
	timer    *time.Timer
	next     time.Time // when the timer is due, on the ticker's grid
	lastCPU  time.Duration
	lastAt   time.Time
}

// startSampling begins sampling the job; stop ends it.
func (s *Starter) startSampling() *sampler { return startSampler(s, nil) }

// startSampler begins sampling what measure measures (nil: the job).
func startSampler(s *Starter, measure func() (int64, time.Duration)) *sampler {
	sm := &sampler{s: s, measure: measure, interval: s.cfg.SampleInterval, lastAt: s.cfg.Now()}
	sm.mu.Lock() // a first tick waits for its timer to be kept
	defer sm.mu.Unlock()
	sm.next = time.Now().Add(sm.interval)
	sm.timer = time.AfterFunc(sm.interval, sm.tick)
	return sm
}

// stop ends the sampling, after a sample under way: none follows.
func (sm *sampler) stop() {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	sm.stopped = true
	sm.timer.Stop()
}

// tick takes a sample, then sets the timer for the next tick of the grid;
// at once when sampling took past it, as a ticker's tick kept in its
// channel would be taken, the ticks missed before that one dropped.
func (sm *sampler) tick() {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.stopped {
		return
	}
	sm.sample()
	now := time.Now()
	sm.next = sm.next.Add(sm.interval)
	if !sm.next.After(now) { // the last tick passed, kept; the next from it
		sm.next = sm.next.Add(now.Sub(sm.next) / sm.interval * sm.interval)
		sm.timer.Reset(0)
		return
	}
	sm.timer.Reset(sm.next.Sub(now))
}

// sample measures the job once.
func (sm *sampler) sample() {
	s := sm.s
	measure := sm.measure
	if measure == nil {
		measure = s.measure
	}
	mem, cpu := measure()
	now := s.cfg.Now()
	s.mu.Lock()
	s.usage.MemoryBytes = mem
	s.usage.PeakMemoryBytes = max(s.usage.PeakMemoryBytes, mem)
	if dt := now.Sub(sm.lastAt); dt > 0 && cpu >= sm.lastCPU {
		s.usage.CPURate = float64(cpu-sm.lastCPU) / float64(dt)
	}
	s.mu.Unlock()
	sm.lastCPU, sm.lastAt = cpu, now
	s.checkMemory(mem)
}

// measure returns the job's memory now and its cpu time so far: from its
// cgroup where the kernel accounts them, else from its processes.
func (s *Starter) measure() (mem int64, cpu time.Duration) {
	s.mu.Lock()
	g, cmd := s.group, s.cmd
	s.mu.Unlock()
	var pids []int
	if g != nil {
		st := g.Stats()
		cpu = st.UserCPU + st.SysCPU
		if s.cfg.Cgroups.Has("memory") {
			mem = st.MemoryBytes
		}
		pids, _ = g.Procs()
	} else if cmd != nil && cmd.Process != nil {
		pids = groupPids(cmd.Process.Pid)
	}
	for _, pid := range pids {
		if mem == 0 || !s.cfg.Cgroups.Has("memory") {
			mem += rssBytes(pid)
		}
		if g == nil {
			cpu += cpuTime(pid)
		}
	}
	return mem, cpu
}

// checkMemory kills a job over its memory request when the startd, not
// the kernel, enforces it.
func (s *Starter) checkMemory(mem int64) {
	limit := s.cfg.MemoryMiB << 20
	if !s.cfg.HoldIfMemoryExceeded || limit <= 0 || mem <= limit || s.kernelLimitsMemory() {
		return
	}
	s.mu.Lock()
	if s.memHold == "" {
		s.memHold = memoryReason(mem, s.cfg.MemoryMiB)
	}
	s.mu.Unlock()
	s.signalTree(syscall.SIGKILL)
}

// kernelLimitsMemory reports whether the job's cgroup limits its memory.
func (s *Starter) kernelLimitsMemory() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.group != nil && s.cfg.Cgroups.Has("memory")
}

// memoryReason is the hold reason of a job over its slot's memory: the
// request, rounded up to the partitionable slot's quantum (internal/fit).
func memoryReason(usedBytes, slotMiB int64) string {
	return fmt.Sprintf("memory use of %d MiB went over the job's limit of %d MiB (its slot's Memory, from RequestMemory); resubmit it with a larger request_memory",
		ceilMiB(usedBytes), slotMiB)
}

// ceilMiB rounds bytes up to MiB.
func ceilMiB(b int64) int64 { return (b + 1<<20 - 1) >> 20 }
