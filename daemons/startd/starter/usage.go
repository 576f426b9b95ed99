package starter

import (
	"fmt"
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

// sample measures the job every SampleInterval until stop is closed.
func (s *Starter) sample(stop <-chan struct{}) {
	t := time.NewTicker(s.cfg.SampleInterval)
	defer t.Stop()
	lastCPU, lastAt := time.Duration(0), s.cfg.Now()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		mem, cpu := s.measure()
		now := s.cfg.Now()
		s.mu.Lock()
		s.usage.MemoryBytes = mem
		s.usage.PeakMemoryBytes = max(s.usage.PeakMemoryBytes, mem)
		if dt := now.Sub(lastAt); dt > 0 && cpu >= lastCPU {
			s.usage.CPURate = float64(cpu-lastCPU) / float64(dt)
		}
		s.mu.Unlock()
		lastCPU, lastAt = cpu, now
		s.checkMemory(mem)
	}
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
