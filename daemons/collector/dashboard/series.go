package dashboard

import (
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
)

// ring is a bounded series: once full, each new value replaces the
// oldest.
type ring[T any] struct {
	items []T
	next  int
	full  bool
}

func newRing[T any](n int) *ring[T] { return &ring[T]{items: make([]T, n)} }

func (r *ring[T]) add(v T) {
	r.items[r.next] = v
	r.next++
	if r.next == len(r.items) {
		r.next, r.full = 0, true
	}
}

// all returns the values, oldest first, in a new slice.
func (r *ring[T]) all() []T {
	if !r.full {
		return append([]T(nil), r.items[:r.next]...)
	}
	out := make([]T, 0, len(r.items))
	out = append(out, r.items[r.next:]...)
	return append(out, r.items[:r.next]...)
}

// last returns the newest value, if any.
func (r *ring[T]) last() (T, bool) {
	var zero T
	if !r.full && r.next == 0 {
		return zero, false
	}
	i := r.next - 1
	if i < 0 {
		i = len(r.items) - 1
	}
	return r.items[i], true
}

// PoolSample is the pool's state at one moment, for the utilization plots.
type PoolSample struct {
	Time     int64   `json:"t"` // Unix seconds
	Slots    int     `json:"slots"`
	Claimed  int     `json:"claimed"`
	Cpus     float64 `json:"cpus"`
	CpusBusy float64 `json:"cpus_busy"`
	Machines int     `json:"machines"`
	Running  int     `json:"running_jobs"`
	Idle     int     `json:"idle_jobs"`
	Held     int     `json:"held_jobs"`
}

// MachineSample is one machine's state at one moment.
type MachineSample struct {
	Time     int64   `json:"t"`
	Slots    int     `json:"slots"`
	Claimed  int     `json:"claimed"`
	Cpus     float64 `json:"cpus"`
	CpusBusy float64 `json:"cpus_busy"`
	Load     float64 `json:"load"`
	// Absent is set while gossip reports the machine's startd gone.
	Absent bool `json:"absent,omitempty"`
}

// Sampler keeps the pool's recent history: one PoolSample per sample and
// one MachineSample per machine, each series bounded. A machine that has
// not been seen for as many samples as its series holds is forgotten.
// It is safe for concurrent use.
type Sampler struct {
	mu       sync.Mutex
	pool     *ring[PoolSample]
	machines map[string]*machineSeries
	perHost  int
	count    int64 // samples taken
}

type machineSeries struct {
	r    *ring[MachineSample]
	seen int64 // the sample that last saw the machine
}

// NewSampler returns a sampler keeping poolSamples samples of the pool and
// machineSamples of each machine (each at least 1).
func NewSampler(poolSamples, machineSamples int) *Sampler {
	return &Sampler{pool: newRing[PoolSample](max(poolSamples, 1)), machines: map[string]*machineSeries{},
		perHost: max(machineSamples, 1)}
}

// Sample records the pool's state at now from its slot and submitter ads.
func (s *Sampler) Sample(now time.Time, slots, submitters []*classad.Ad) {
	machines := Machines(slots)
	ps := PoolSample{Time: now.Unix(), Machines: len(machines)}
	for _, m := range machines {
		ps.Slots += m.Slots
		ps.Claimed += m.States["Claimed"]
		ps.Cpus += m.Cpus
		ps.CpusBusy += m.CpusBusy
	}
	for _, o := range Owners(submitters, nil) {
		ps.Running += o.Running
		ps.Idle += o.Idle
		ps.Held += o.Held
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	s.pool.add(ps)
	for _, m := range machines {
		ms := s.machines[m.Name]
		if ms == nil {
			ms = &machineSeries{r: newRing[MachineSample](s.perHost)}
			s.machines[m.Name] = ms
		}
		ms.seen = s.count
		ms.r.add(MachineSample{Time: ps.Time, Slots: m.Slots, Claimed: m.States["Claimed"], Cpus: m.Cpus,
			CpusBusy: m.CpusBusy, Load: m.Load, Absent: m.Absent})
	}
	for name, ms := range s.machines {
		if s.count-ms.seen >= int64(s.perHost) {
			delete(s.machines, name)
		}
	}
}

// Pool returns the pool's samples, oldest first.
func (s *Sampler) Pool() []PoolSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pool.all()
}

// Last returns the newest pool sample, if there is one.
func (s *Sampler) Last() (PoolSample, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pool.last()
}

// Machine returns a machine's samples, oldest first (nil for a machine it
// does not know).
func (s *Sampler) Machine(name string) []MachineSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ms := s.machines[name]; ms != nil {
		return ms.r.all()
	}
	for n, ms := range s.machines {
		if strings.EqualFold(n, name) {
			return ms.r.all()
		}
	}
	return nil
}

// History is the utilization history the page plots.
type History struct {
	// Interval is the time between samples, in seconds.
	Interval float64      `json:"interval_seconds"`
	Samples  []PoolSample `json:"samples"`
}
