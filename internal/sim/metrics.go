package sim

import (
	"cmp"
	"math"
	"slices"

	"github.com/kite-sched/kite/internal/sita"
)

// Metrics describe a run, or one type of job in it. Times are seconds.
//
// A job's total time runs from its arrival to the end of its successful
// run; its execution time is that run's length; its waiting time is the
// rest (queueing, and any runs lost with their machines). Slowdown is
// total / execution, averaged over jobs (Harchol-Balter's slowdown, the
// waiting time over the size on speed-1 hosts, is this minus one).
// Passing follows paper 002: a job passes an earlier one when it was
// submitted later, is no smaller (work), and finished first; Passing is
// the share of finished jobs (batches, when the workload has them) that
// passed some earlier one. AvEff and AvDone are JoSchKa's: the share of
// worked machine time that ended in a success, and the mean over job
// types of the time-averaged share of the type's jobs done. Imbalance is
// SITA-E's M over the hosts' completed work (algorithms.md §1), and
// ImbalancePct M as a percentage of the mean load.
type Metrics struct {
	Jobs     int     `json:"jobs"`
	Done     int     `json:"done"`
	Aborted  int     `json:"aborted_runs"`
	Complete bool    `json:"complete"`
	Makespan float64 `json:"makespan"`

	Utilization  float64 `json:"utilization"`
	WaitMean     float64 `json:"wait_mean"`
	WaitVar      float64 `json:"wait_var"`
	ExecMean     float64 `json:"exec_mean"`
	ExecVar      float64 `json:"exec_var"`
	TotalMean    float64 `json:"total_mean"`
	TotalVar     float64 `json:"total_var"`
	Slowdown     float64 `json:"slowdown"`
	Passing      float64 `json:"passing"`
	AvEff        float64 `json:"aveff"`
	AvDone       float64 `json:"avdone"`
	Imbalance    float64 `json:"imbalance"`
	ImbalancePct float64 `json:"imbalance_pct"`
	// Replicas counts the extra instances of running jobs started
	// (replication); Wasted is the machine-seconds of runs killed because
	// another instance of their job finished first (also in AvEff's
	// worked time).
	Replicas int     `json:"replicas,omitempty"`
	Wasted   float64 `json:"wasted,omitempty"`
}

// TypeMetrics are one job type's metrics.
type TypeMetrics struct {
	Type string `json:"type"`
	Metrics
}

// BatchMetrics treat each batch (paper 002's job: a set of tasks) as one
// job: it waits from its submission to its first task's start, executes
// until its last task ends.
type BatchMetrics struct {
	Batches   int     `json:"batches"`
	Done      int     `json:"done"`
	WaitMean  float64 `json:"wait_mean"`
	WaitVar   float64 `json:"wait_var"`
	ExecMean  float64 `json:"exec_mean"`
	ExecVar   float64 `json:"exec_var"`
	TotalMean float64 `json:"total_mean"`
	TotalVar  float64 `json:"total_var"`
	Slowdown  float64 `json:"slowdown"`
	Passing   float64 `json:"passing"`
}

// HostLoad is what one machine did.
type HostLoad struct {
	Name      string  `json:"name"`
	Work      float64 `json:"work"` // work units of jobs completed
	Busy      float64 `json:"busy"` // seconds of runs, lost ones too
	Completed int     `json:"completed"`
	Aborted   int     `json:"aborted"`
}

// Series is the running jobs of each type over time (and the share of
// each type's jobs done), for plots like JoSchKa's.
type Series struct {
	Times   []float64   `json:"times"`
	Types   []string    `json:"types"`
	Running [][]int     `json:"running"` // [type][sample]
	Done    [][]float64 `json:"done"`    // [type][sample], 0..1
}

// series records samples at a fixed step, halving its resolution when it
// holds too many.
type series struct {
	step    float64
	times   []float64
	running [][]int
	done    [][]int
}

const maxSamples = 400

func (s *series) init(step float64, types int) {
	s.step = step
	s.running = make([][]int, types)
	s.done = make([][]int, types)
}

func (s *series) record(t float64, running, done []int) {
	s.times = append(s.times, t)
	for k := range running {
		s.running[k] = append(s.running[k], running[k])
		s.done[k] = append(s.done[k], done[k])
	}
	if len(s.times) > 2*maxSamples {
		s.times = halve(s.times)
		for k := range s.running {
			s.running[k] = halve(s.running[k])
			s.done[k] = halve(s.done[k])
		}
		s.step *= 2
	}
}

func halve[T any](v []T) []T {
	out := v[:0]
	for i := 0; i < len(v); i += 2 {
		out = append(out, v[i])
	}
	return out
}

// finishRun closes the books: runs still going count as busy time.
func (e *engine) finishRun() {
	e.advance(e.now)
	for _, m := range e.machines {
		for _, j := range m.running {
			m.busy += e.now - e.jobs[j].start
		}
		for _, r := range m.reps {
			m.busy += e.now - e.repl.runs[r].start
		}
	}
	e.series.record(e.now, e.runningByType, e.doneByType)
}

// result computes a run's metrics.
func (e *engine) result() *RunResult {
	r := &RunResult{
		Setup: e.st.Label, Policy: e.pol.Name, Strategy: e.pol.Strategy, Dispatch: e.dispatch, Seed: e.seed,
		End: e.now, Stalled: e.stalled, Cycles: e.cycles, Matches: e.matches, Events: e.events,
	}
	byBatch, passed := e.passing()
	steady := e.steady()
	r.Warmup = e.st.Warmup
	if e.tune != nil {
		r.Retunes = e.tune.moves
	}
	r.All = e.metrics(steady, byBatch, passed)
	r.All.Complete = e.done == len(e.jobs)
	r.Complete = r.All.Complete
	r.Limited = !r.Complete && !r.Stalled && e.now >= e.limit
	busy, avail := 0.0, e.availAcc-e.availAtFirst
	var eff, all float64
	loads := make([]float64, len(e.machines))
	for k, m := range e.machines {
		busy += m.busy
		eff += m.timeCompleted
		all += m.timeCompleted + m.timeAbort + m.timeKilled
		loads[k] = m.workDone
		r.Hosts = append(r.Hosts, HostLoad{Name: m.name, Work: m.workDone, Busy: m.busy, Completed: m.completed, Aborted: m.aborted})
	}
	if avail > 0 {
		r.All.Utilization = busy / avail
	}
	if all > 0 {
		r.All.AvEff = eff / all
	}
	r.All.Replicas, r.All.Wasted = e.repl.started, e.wasted
	r.All.Imbalance, _, r.All.ImbalancePct = sita.Imbalance(loads)
	r.All.AvDone = 0 // JoSchKa's: the mean over the types
	for k, name := range e.w.types {
		tm := TypeMetrics{Type: name, Metrics: e.metrics(func(j *job) bool { return j.typ == int32(k) && steady(j) }, byBatch, passed)}
		r.All.AvDone += tm.AvDone / float64(len(e.w.types))
		r.Types = append(r.Types, tm)
	}
	r.Batches = e.batchMetrics(passed)
	r.Series = Series{Times: e.series.times, Types: e.w.types, Running: e.series.running}
	for k := range e.w.types {
		n := 0
		for i := range e.jobs {
			if e.jobs[i].typ == int32(k) {
				n++
			}
		}
		done := make([]float64, len(e.series.done[k]))
		for i, d := range e.series.done[k] {
			done[i] = float64(d) / float64(max(n, 1))
		}
		r.Series.Done = append(r.Series.Done, done)
	}
	return r
}

// steady selects the jobs the job metrics count: those that arrived no
// earlier than the first job after the warm-up (jobs are in order of
// arrival), or all of them without a warm-up.
func (e *engine) steady() func(*job) bool {
	if e.st.Warmup <= 0 || e.st.Warmup >= len(e.jobs) {
		return func(*job) bool { return true }
	}
	from := e.jobs[e.st.Warmup].arrival
	return func(j *job) bool { return j.arrival >= from }
}

// metrics summarizes the jobs keep selects. units and passed come from
// passing: when units are jobs, a job's flag is its own.
func (e *engine) metrics(keep func(*job) bool, byBatch bool, passed []bool) Metrics {
	var m Metrics
	var wait, exec, total, slow moments
	first, last := math.Inf(1), math.Inf(-1)
	end := e.now
	var doneArea float64
	nPassed := 0
	for i := range e.jobs {
		j := &e.jobs[i]
		if !keep(j) {
			continue
		}
		m.Jobs++
		m.Aborted += int(j.aborts)
		first = math.Min(first, j.arrival)
		if j.state != jobDone {
			continue
		}
		m.Done++
		last = math.Max(last, j.finish)
		x := j.finish - j.start
		tot := j.finish - j.arrival
		exec.add(x)
		total.add(tot)
		wait.add(tot - x)
		if x > 0 {
			slow.add(tot / x)
		}
		if end > 0 {
			doneArea += (end - j.finish) / end
		}
		if !byBatch && passed[i] {
			nPassed++
		}
	}
	if m.Jobs == 0 {
		return m
	}
	m.Complete = m.Done == m.Jobs
	if m.Done > 0 {
		if !m.Complete {
			last = end
		}
		m.Makespan = last - first
	}
	m.WaitMean, m.WaitVar = wait.mean(), wait.variance()
	m.ExecMean, m.ExecVar = exec.mean(), exec.variance()
	m.TotalMean, m.TotalVar = total.mean(), total.variance()
	m.Slowdown = slow.mean()
	m.AvDone = doneArea / float64(m.Jobs)
	if byBatch {
		m.Passing = e.batchPassing(keep, passed)
	} else if m.Done > 0 {
		m.Passing = float64(nPassed) / float64(m.Done)
	}
	return m
}

// moments accumulates a mean and a (population) variance.
type moments struct {
	n         int
	mean_, m2 float64
}

func (s *moments) add(x float64) {
	s.n++
	d := x - s.mean_
	s.mean_ += d / float64(s.n)
	s.m2 += d * (x - s.mean_)
}

func (s *moments) mean() float64 { return s.mean_ }

func (s *moments) variance() float64 {
	if s.n == 0 {
		return 0
	}
	return s.m2 / float64(s.n)
}

// unit is a job, or a batch of them, for passing.
type unit struct {
	submit, work, finish, start float64
	done                        bool
	tasks, finished             int
}

// units returns the passing units: batches when the workload has any
// (then byBatch), jobs otherwise.
func (e *engine) units() (us []unit, byBatch bool) {
	if e.unitCache != nil {
		return e.unitCache, len(e.w.batches) > 0
	}
	defer func() { e.unitCache = us }()
	if len(e.w.batches) == 0 {
		us = make([]unit, len(e.jobs))
		for i := range e.jobs {
			j := &e.jobs[i]
			us[i] = unit{submit: j.arrival, work: j.work, finish: j.finish, start: j.firstStart, done: j.state == jobDone}
		}
		return us, false
	}
	us = make([]unit, len(e.w.batches))
	for i := range us {
		us[i] = unit{submit: math.Inf(1), start: math.Inf(1)}
	}
	for i := range e.jobs {
		j := &e.jobs[i]
		if j.batch < 0 {
			continue
		}
		u := &us[j.batch]
		u.tasks++
		u.submit = math.Min(u.submit, j.arrival)
		u.work += j.work
		if j.firstStart >= 0 {
			u.start = math.Min(u.start, j.firstStart)
		}
		if j.state == jobDone {
			u.finished++
			u.finish = math.Max(u.finish, j.finish)
		}
	}
	for i := range us {
		us[i].done = us[i].finished == us[i].tasks
	}
	return us, true
}

// passing flags each unit that passed an earlier one: submitted later,
// no smaller, finished first. Earlier units are swept in order of
// submission into a Fenwick tree of the latest finish by work rank.
func (e *engine) passing() (byBatch bool, passed []bool) {
	us, byBatch := e.units()
	passed = make([]bool, len(us))
	order := make([]int, len(us))
	works := make([]float64, len(us))
	for i := range us {
		order[i] = i
		works[i] = us[i].work
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(us[a].submit, us[b].submit) })
	slices.Sort(works)
	works = slices.Compact(works)
	tree := make([]float64, len(works)+1)
	for i := range tree {
		tree[i] = math.Inf(-1)
	}
	rank := func(w float64) int { k, _ := slices.BinarySearch(works, w); return k + 1 }
	for lo := 0; lo < len(order); {
		hi := lo
		for hi < len(order) && us[order[hi]].submit == us[order[lo]].submit {
			hi++
		}
		for _, u := range order[lo:hi] {
			if !us[u].done {
				continue
			}
			latest := math.Inf(-1)
			for k := rank(us[u].work); k > 0; k -= k & -k {
				latest = math.Max(latest, tree[k])
			}
			passed[u] = latest > us[u].finish
		}
		for _, u := range order[lo:hi] {
			f := us[u].finish
			if !us[u].done {
				f = math.Inf(1)
			}
			for k := rank(us[u].work); k < len(tree); k += k & -k {
				tree[k] = math.Max(tree[k], f)
			}
		}
		lo = hi
	}
	return byBatch, passed
}

// batchPassing is the share of finished batches of the kept jobs that
// passed.
func (e *engine) batchPassing(keep func(*job) bool, passed []bool) float64 {
	us, _ := e.units()
	seen := make([]bool, len(us))
	n, p := 0, 0
	for i := range e.jobs {
		j := &e.jobs[i]
		if j.batch < 0 || !keep(j) || seen[j.batch] {
			continue
		}
		seen[j.batch] = true
		if us[j.batch].done {
			n++
			if passed[j.batch] {
				p++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(p) / float64(n)
}

// batchMetrics are the metrics of batches as jobs, or nil without batches.
func (e *engine) batchMetrics(passed []bool) *BatchMetrics {
	us, byBatch := e.units()
	if !byBatch {
		return nil
	}
	b := &BatchMetrics{Batches: len(us)}
	var wait, exec, total, slow moments
	p := 0
	for i, u := range us {
		if !u.done {
			continue
		}
		b.Done++
		wait.add(u.start - u.submit)
		exec.add(u.finish - u.start)
		total.add(u.finish - u.submit)
		if u.finish > u.start {
			slow.add((u.finish - u.submit) / (u.finish - u.start))
		}
		if passed[i] {
			p++
		}
	}
	b.WaitMean, b.WaitVar = wait.mean(), wait.variance()
	b.ExecMean, b.ExecVar = exec.mean(), exec.variance()
	b.TotalMean, b.TotalVar = total.mean(), total.variance()
	b.Slowdown = slow.mean()
	if b.Done > 0 {
		b.Passing = float64(p) / float64(b.Done)
	}
	return b
}
