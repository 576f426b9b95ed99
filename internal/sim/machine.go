package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
)

// machine is one simulated host (a startd).
type machine struct {
	name  string
	group int32
	peak  float64 // speed in work units per second when not loaded
	speed float64 // current speed
	bench float64 // benchmark ms (0: none)
	slots []int32 // its slots (one in queue mode)
	cores int     // jobs it runs at once

	// Availability: the machine is up when no reason holds it down.
	failed, crashed, off bool
	crashing             bool // one of its group's crashing fraction
	downs                int  // explicit down intervals in force
	up                   bool
	upSince              float64
	failGen              uint32 // invalidates failure events
	loadGen              uint32 // invalidates speed events
	loaded               bool
	failRNG, loadRNG     *rand.Rand

	// Jobs: running ones, and (queue mode) those waiting in its queue.
	running    []int32
	reps       []int32 // replica runs (replicate.go)
	queue      []int32
	queueHead  int
	queuedWork float64

	// Counters, for metrics and monitoring ads.
	workDone                 float64 // work units of jobs completed here
	busy                     float64 // seconds of runs, completed or not
	completed, aborted       int
	timeCompleted, timeAbort float64
	restarts                 int
	uptimeTotal              float64
	timeKilled               float64 // seconds of runs killed when another instance won
	version                  uint32  // bumped when a published counter changes
}

func (m *machine) queued() int { return len(m.queue) - m.queueHead }

// holds reports whether the machine's queue (queue mode) has reached limit.
func (m *machine) full(limit int) bool {
	return limit > 0 && len(m.running)+m.queued() >= limit
}

// stream returns a random source for one purpose of a run: the same seed
// gives every policy the same workload, machines and failures.
func stream(seed uint64, purpose string, i int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	h.Write([]byte(strconv.Itoa(i)))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// buildMachines draws the machines of every group: speeds, benchmarks and
// their own random sources for failures and load.
func buildMachines(st *Setup, seed uint64) []*machine {
	var out []*machine
	for g := range st.Machines {
		mg := &st.Machines[g]
		r := stream(seed, "machines", g)
		width := len(strconv.Itoa(mg.Count))
		for i := range mg.Count {
			m := &machine{
				name:  fmt.Sprintf("%s%0*d", mg.Name, width, i+1),
				group: int32(g),
				peak:  mg.Speed.Sample(r),
				cores: mg.Slots,
			}
			if mg.Benchmark.Kind != "" {
				m.bench = mg.Benchmark.Sample(r)
			}
			m.speed = m.peak
			k := len(out)
			m.failRNG = stream(seed, "failures", k)
			m.loadRNG = stream(seed, "load", k)
			out = append(out, m)
		}
	}
	return out
}

// totalSpeed is the work the pool can do per second.
func totalSpeed(ms []*machine) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.peak * float64(m.cores)
	}
	return s
}

// nextFailure returns when a machine that (re)started at t0 next fails,
// or +Inf. In each whole minute of uptime it fails with the probability
// in force then: zero for the first Safe seconds, rising linearly over
// Ramp seconds to the level of the Changes schedule. Minutes where the
// probability is constant are skipped with a geometric draw.
func (f *Failure) nextFailure(r *rand.Rand, t0 float64) float64 {
	safe := math.Ceil(f.Safe / 60)
	ramp := math.Ceil(f.Ramp / 60)
	m := 0.0 // whole minutes since t0 already survived
	for guard := 0; guard < 1_000_000; guard++ {
		t := t0 + 60*m
		level, until := f.levelAt(t)
		switch {
		case m < safe:
			m = safe
		case m < safe+ramp:
			q := level * (m + 1 - safe) / ramp
			if r.Float64() < q {
				return t0 + 60*(m+1)
			}
			m++
		case level <= 0:
			if math.IsInf(until, 1) {
				return math.Inf(1)
			}
			m = math.Max(m+1, math.Ceil((until-t0)/60))
		case level >= 1:
			return t0 + 60*(m+1)
		default:
			// Minutes survived before the one that fails.
			g := math.Floor(math.Log(1-r.Float64()) / math.Log1p(-level))
			if t0+60*(m+g) < until { // the failing minute starts while the level holds
				return t0 + 60*(m+g+1)
			}
			m = math.Max(m+1, math.Ceil((until-t0)/60))
		}
	}
	return math.Inf(1)
}

// levelAt returns the per-minute failure probability in force at t and
// when it next changes (+Inf: never).
func (f *Failure) levelAt(t float64) (level, until float64) {
	level, until = f.PerMinute, math.Inf(1)
	for _, c := range f.Changes {
		if c.At <= t {
			level = c.PerMinute
			continue
		}
		until = c.At
		break
	}
	return level, until
}

// sojourn draws how long a machine stays in a load state left with
// probability p per step.
func (l *LoadModel) sojourn(r *rand.Rand, p float64) float64 {
	if p <= 0 {
		return math.Inf(1)
	}
	if p >= 1 {
		return l.Step
	}
	steps := 1 + math.Floor(math.Log(1-r.Float64())/math.Log1p(-p))
	return steps * l.Step
}

// speedIn draws a speed fraction from a state's range.
func speedIn(r *rand.Rand, rng [2]float64) float64 {
	return rng[0] + (rng[1]-rng[0])*r.Float64()
}
