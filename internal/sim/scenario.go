package sim

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/policy"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/tomlstrict"
)

// Scenario is a simulation plan: a pool, a workload and the policies to
// compare on them, each run with every seed. A [vary] section makes one
// Setup per value of one key; without it there is one.
type Scenario struct {
	Name, Description string
	File              string
	Seeds             []uint64
	// Unit is the time unit reports print: "s", "min", "h" or "d".
	Unit string
	// Vary is the varied key ("" for none); Setups has one entry per value.
	Vary   string
	Setups []*Setup
	// Confidence, when not 0, is the level (e.g. 0.95) of the confidence
	// intervals the summary gives each mean over the seeds (Student's t
	// over independent replications; see CI).
	Confidence float64
}

// Setup is one fully specified simulation: everything but the policy
// and the seed, which each run adds.
type Setup struct {
	// Label names the varied value ("a=1.1"); "" without [vary].
	Label string
	// Duration stops a run at this virtual time (seconds; 0: when every
	// job is done, or nothing more can happen).
	Duration float64
	// Sample is the interval of the running-jobs series (0: automatic).
	Sample float64
	// Warmup is how many jobs, the first to arrive, the job metrics leave
	// out: a steady-state estimate does not count the jobs that found the
	// pool empty. The pool's own numbers (utilization, avEff, host loads,
	// M) still cover the whole run.
	Warmup   int
	Pool     Pool
	Machines []MachineGroup
	Workload []WorkloadGroup
	Policies []PolicySpec
}

// Dispatch models.
const (
	// Pull is HTCondor's: a job waits in its schedd until a slot is free;
	// a slot runs one job at a time and is matchable only while idle.
	Pull = "pull"
	// Queue is immediate dispatch to hosts with FCFS queues: each host
	// advertises one slot that stays matchable while its queue has room,
	// with the work it holds in KiteWorkLeft.
	Queue = "queue"
)

// Pool is how the simulated negotiator and schedds work.
type Pool struct {
	Dispatch string
	// Interval is the longest time between cycles; CycleDelay the
	// shortest, and how soon a cycle follows new idle jobs or free slots.
	Interval, CycleDelay float64
	// QueueLimit caps the jobs (running and queued) a host takes in queue
	// mode (0: no cap).
	QueueLimit int
	// RequeueDelay is how long a job lost with its machine stays away
	// before it is idle again (a lease expiring; JoSchKa: 16-20 min).
	RequeueDelay float64
	// Significant adds job attributes autoclusters are told apart by.
	Significant []string
	// HalfLife and PrioFactor configure the accountant (fair share).
	HalfLife, PrioFactor float64
	// PreJobRank and PostJobRank are the negotiator's ranks.
	PreJobRank, PostJobRank string
	preJob, postJob         *classad.Program
	// Monitor publishes each host's job and failure counters in its slot
	// ads (KiteJobsCompleted, ...), its node monitoring
	// (internal/reliability: KiteReliability, ...) and the job types'
	// statistics in request ads (KiteTypeRunning, ...), for strategies
	// that learn from them (those that need it turn it on themselves).
	Monitor bool
	// Replicas is how many extra instances of a running job may run at
	// once (pull dispatch; 0: none), offered as replica requests to
	// strategies that replicate (see replicate.go).
	Replicas int
}

// MachineGroup is Count alike machines.
type MachineGroup struct {
	Name  string
	Count int
	Slots int
	// Speed is in work units per second (drawn per machine).
	Speed Dist
	// Benchmark is JoSchKa's benchmark time in ms (drawn per machine;
	// none when Kind is "").
	Benchmark Dist
	Memory    float64 // MB per slot
	Disk      float64 // KB per slot
	// Attrs are extra slot attributes (ClassAd expressions), Start its
	// START expression and Rank its Rank.
	Attrs       []Attr
	Start, Rank string
	// Affinity is a ClassAd expression of the job (TARGET; MY is the
	// slot) giving how many times faster than its speed the machine runs
	// that job ("" for 1): hosts faster at some jobs than at others, an
	// inconsistent matrix of expected execution times. The slot ads show
	// it as KitePower = KiteSpeed * (Affinity).
	Affinity string
	affinity *classad.Program
	// SitaInterval pins the group's interval under SITA-E policies (0:
	// spread over the pool).
	SitaInterval int
	Failure      *Failure
	Crash        *Crash
	Schedule     *Schedule
	Down         [][2]float64
	Load         *LoadModel
}

// Attr is one attribute of an ad, as ClassAd source.
type Attr struct {
	Name string
	Expr classad.Expr
}

// Failure is a random failure process: in each minute a machine is up,
// it fails with probability PerMinute (changing at given times, as
// JoSchKa's swap at minute 1000), except during the first Safe seconds
// after it starts, after which the probability ramps up linearly over
// Ramp seconds (JoSchKa's zerofp and incfp). A failed machine loses its
// jobs and is back after Repair.
type Failure struct {
	PerMinute float64
	Changes   []Change
	Safe      float64
	Ramp      float64
	Repair    Dist
}

// Change sets a failure probability from time At on.
type Change struct {
	At        float64
	PerMinute float64
}

// Crash fails a Fraction of a group's machines once, at a time drawn from
// At; they come back after Repair, or never when Repair is nil (paper
// 004's failing nodes).
type Crash struct {
	Fraction float64
	At       Dist
	Repair   *Dist
}

// Schedule switches machines on for Up seconds of every Period, starting
// at Phase: office PCs that are off at night.
type Schedule struct {
	Period, Up, Phase float64
}

// LoadModel is paper 002's two-state speed model: a machine moves between
// a steady state (speed a fraction in Steady of its peak) and a loaded
// one (a fraction in Loaded), with the given probabilities per Step;
// each time it enters a state its speed is drawn anew from the state's
// range.
type LoadModel struct {
	ToLoaded, ToSteady float64
	Step               float64
	Steady, Loaded     [2]float64
}

// WorkloadGroup is a set of jobs alike but for their sizes and arrivals.
type WorkloadGroup struct {
	// Type names the jobs for per-type metrics (KiteJobType); Owner is
	// their submitter.
	Type, Owner string
	Count       int
	// Size is each job's work in work units.
	Size    Dist
	Arrival Arrival
	// SameTasks draws the sizes of one batch and repeats them in every
	// batch (paper 002: all jobs have the same tasks).
	SameTasks bool
	// SizeAttr also writes the size into this job attribute (e.g.
	// ImageSize, which SITA-E reads).
	SizeAttr                                string
	Attrs                                   []Attr
	Requirements, Rank                      string
	RequestCpus, RequestMemory, RequestDisk float64
	Prio                                    int
	// File holds job ads (a JSON array: kite q -json, kite history
	// -json) instead of generated jobs; TypeAttr names their type.
	File     string
	TypeAttr string
	ads      []fileJob
}

// Arrival processes.
const (
	Once     = "once"     // all at At
	Poisson  = "poisson"  // rate per second, or the rate that gives Load
	Interval = "interval" // one every Every seconds from At
	Batches  = "batches"  // Count jobs per batch, a batch every Every seconds from At
)

// Arrival says when a group's jobs arrive.
type Arrival struct {
	Process string
	At      float64
	Rate    float64 // poisson: jobs per second
	// Load sets a Poisson rate from the pool's speed: rate = Load ×
	// (total speed) / (mean size).
	Load  float64
	Every float64
	// Batch is the jobs per batch (Batches).
	Batch int
}

// PolicySpec is one policy to compare.
type PolicySpec struct {
	Name     string
	Strategy string
	Params   policy.Params
	// Dispatch overrides the pool's dispatch model for this policy.
	Dispatch string
	// Sita gives the hosts SITA-E size intervals.
	Sita *SitaSpec
	// Batch offers every idle job in each cycle under queue dispatch
	// (rather than each submitter's oldest alone), for batch heuristics
	// that map a whole set of jobs onto the hosts' queues.
	Batch bool
}

// SitaSpec configures SITA-E host ads (internal/sita) for a policy: n
// intervals spread over the machines in order (or pinned per group), the
// bounded Pareto parameters given or fitted to the workload's sizes.
type SitaSpec struct {
	Intervals int
	// Source is sita.SourceConfig (boundaries as literals in the host
	// ads) or sita.SourceJob (computed from the jobs' own k, p, a, which
	// the simulated submit writes, as paper 003 does).
	Source string
	// K, P, A are B(k, p, a) when given; otherwise Fit says how to get
	// them: "moments" or "mle" over the workload's sizes, or "workload"
	// for the generating distribution of the (first) Pareto group.
	K, P, A float64
	Fit     string
	// Attribute is the job attribute holding the size (default KiteWork).
	Attribute string
	// Tune, when not nil, moves the boundaries as the sizes drift
	// (source = config only; tune.go).
	Tune *TuneSpec
}

// Load reads a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, string(data))
}

// Parse reads a scenario from text, as if from the file name; files it
// names are read relative to the file's directory.
func Parse(name, text string) (*Scenario, error) {
	raw, r, err := tomlstrict.Read(name, text)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{File: name}
	top := r.Table("", raw)
	sc.Name = top.Str("name", strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)))
	sc.Description = top.Str("description", "")
	sc.Unit = top.OneOf("unit", "s", "s", "min", "h", "d")
	sc.Seeds = readSeeds(top)
	if top.Has("confidence") {
		sc.Confidence = top.NumberIn("confidence", 0.95, 0.5, 0.999)
	}
	vary := top.Sub("vary")
	variants := []variant{{}}
	if vary != nil {
		variants = readVary(vary)
		sc.Vary = vary.Str("key", "")
	}
	vary.Done()
	for _, v := range variants {
		doc := raw
		if v.path != nil {
			doc = deepCopy(raw).(map[string]any)
			if err := v.apply(doc); err != nil {
				r.Errorf(v.at, "%v", err)
				continue
			}
			for _, p := range v.set {
				r.Positions().Alias(p, v.at)
			}
		}
		st := readSetup(r.Table("", doc), filepath.Dir(name))
		st.Label = v.label
		sc.Setups = append(sc.Setups, st)
	}
	for _, k := range []string{"duration", "sample", "warmup", "pool", "machines", "workload", "policy"} {
		top.MarkRead(k) // read by readSetup
	}
	top.Done()
	if err := r.Err(); err != nil {
		return nil, err
	}
	return sc, nil
}

// table is the reader's view of one table of a scenario.
type table = tomlstrict.Table

func readSeeds(t *table) []uint64 {
	if !t.Has("seeds") {
		return []uint64{1}
	}
	var out []uint64
	for i, v := range t.Array("seeds") {
		n, ok := v.(int64)
		if !ok || n < 0 {
			t.Errorf(tomlstrict.Index("seeds", i), "want a seed (an integer >= 0), got %s", tomlstrict.Describe(v))
			continue
		}
		out = append(out, uint64(n))
	}
	if len(out) == 0 {
		t.Errorf("seeds", "must hold at least one seed")
		return []uint64{1}
	}
	return out
}

// readSetup reads everything a variant can change.
func readSetup(t *table, dir string) *Setup {
	st := &Setup{
		Duration: nonNegDuration(t, "duration", 0),
		Sample:   nonNegDuration(t, "sample", 0),
		Warmup:   t.Int("warmup", 0, 0, math.MaxInt32),
	}
	st.Pool = readPool(t.Sub("pool"))
	machines := t.Tables("machines")
	if len(machines) == 0 && !t.Has("machines") {
		t.Errorf("machines", "a scenario needs at least one [[machines]] group")
	}
	groupNames := map[string]bool{}
	for _, m := range machines {
		mg := readMachines(m)
		if groupNames[mg.Name] {
			m.Errorf("name", "%q names another group too: machine names must differ", mg.Name)
		}
		groupNames[mg.Name] = true
		st.Machines = append(st.Machines, mg)
	}
	work := t.Tables("workload")
	if len(work) == 0 && !t.Has("workload") {
		t.Errorf("workload", "a scenario needs at least one [[workload]] group")
	}
	for _, w := range work {
		st.Workload = append(st.Workload, readWorkload(w, dir))
	}
	pols := t.Tables("policy")
	if len(pols) == 0 && !t.Has("policy") {
		t.Errorf("policy", "a scenario needs at least one [[policy]] to run")
	}
	names := map[string]bool{}
	for _, p := range pols {
		ps := readPolicy(p, st)
		if names[ps.Name] {
			p.Errorf("name", "policy name %q is used twice", ps.Name)
		}
		names[ps.Name] = true
		st.Policies = append(st.Policies, ps)
	}
	return st
}

func readPool(t *table) Pool {
	p := Pool{Dispatch: Pull, Interval: 60, CycleDelay: 1, HalfLife: 86400, PrioFactor: 1000}
	if t == nil {
		return p
	}
	defer t.Done()
	p.Dispatch = t.OneOf("dispatch", Pull, Pull, Queue)
	p.Interval = duration(t, "interval", p.Interval)
	if p.Interval <= 0 {
		t.Errorf("interval", "must be positive")
		p.Interval = 60
	}
	p.CycleDelay = nonNegDuration(t, "cycle_delay", p.CycleDelay)
	p.QueueLimit = t.Int("queue_limit", 0, 0, math.MaxInt32)
	p.RequeueDelay = nonNegDuration(t, "requeue_delay", 0)
	for i, s := range t.Strings("significant") {
		if err := sita.ValidAttrName(s); err != nil {
			t.Errorf(tomlstrict.Index("significant", i), "%v", err)
			continue
		}
		p.Significant = append(p.Significant, s)
	}
	p.HalfLife = duration(t, "half_life", p.HalfLife)
	if p.HalfLife <= 0 {
		t.Errorf("half_life", "must be positive")
		p.HalfLife = 86400
	}
	p.PrioFactor = t.Positive("prio_factor", p.PrioFactor)
	p.PreJobRank, p.preJob = expr(t, "pre_job_rank")
	p.PostJobRank, p.postJob = expr(t, "post_job_rank")
	p.Monitor = t.Bool("monitor", false)
	p.Replicas = t.Int("replicas", 0, 0, 1<<16)
	return p
}

func readMachines(t *table) MachineGroup {
	defer t.Done()
	g := MachineGroup{
		Name:   t.Str("name", "host"),
		Count:  t.Int("count", 1, 1, 1<<24),
		Slots:  t.Int("slots", 1, 1, 1<<16),
		Speed:  readDist(t, "speed", Const(1), true),
		Memory: t.Positive("memory", 4096),
		Disk:   t.Positive("disk", 10_000_000),
		Attrs:  attrs(t, "attrs"),
	}
	if !validName(g.Name) {
		t.Errorf("name", "%q: names are letters, digits, '-', '_' and '.'", g.Name)
	}
	g.Benchmark = readDist(t, "benchmark", Dist{}, true)
	g.Start, _ = expr(t, "start")
	g.Rank, _ = expr(t, "rank")
	g.Affinity, g.affinity = expr(t, "affinity")
	g.SitaInterval = t.Int("sita_interval", 0, 0, sita.MaxIntervals)
	if f := t.Sub("failure"); f != nil {
		g.Failure = readFailure(f)
	}
	if c := t.Sub("crash"); c != nil {
		g.Crash = readCrash(c)
	}
	if s := t.Sub("schedule"); s != nil {
		g.Schedule = readSchedule(s)
	}
	for i, d := range t.Array("down") {
		elem := tomlstrict.Index("down", i)
		pair, ok := d.([]any)
		if !ok || len(pair) != 2 {
			t.Errorf(elem, "want [from, to], got %s", tomlstrict.Describe(d))
			continue
		}
		from, err1 := toDuration(pair[0])
		to, err2 := toDuration(pair[1])
		if err := errors.Join(err1, err2); err != nil {
			t.Errorf(elem, "%v", err)
			continue
		}
		if !(from >= 0 && to > from) {
			t.Errorf(elem, "want 0 <= from < to, got [%g, %g]", from, to)
			continue
		}
		g.Down = append(g.Down, [2]float64{from, to})
	}
	if l := t.Sub("load"); l != nil {
		g.Load = readLoad(l)
	}
	return g
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func readFailure(t *table) *Failure {
	defer t.Done()
	f := &Failure{
		PerMinute: t.NumberIn("per_minute", 0, 0, 1),
		Safe:      nonNegDuration(t, "safe", 0),
		Ramp:      nonNegDuration(t, "ramp", 0),
		Repair:    readDist(t, "repair", Const(0), false),
	}
	last := -1.0
	for _, c := range t.Tables("changes") {
		ch := Change{At: nonNegDuration(c, "at", 0), PerMinute: c.NumberIn("per_minute", 0, 0, 1)}
		if !c.Has("at") || !c.Has("per_minute") {
			c.Errorf("", "a change needs at and per_minute")
		}
		if ch.At <= last {
			c.Errorf("at", "changes must come in order of time")
		}
		last = ch.At
		f.Changes = append(f.Changes, ch)
		c.Done()
	}
	return f
}

func readCrash(t *table) *Crash {
	defer t.Done()
	c := &Crash{Fraction: t.NumberIn("fraction", 1, 0, 1), At: readDist(t, "at", Const(0), false)}
	if !t.Has("at") {
		t.Errorf("", "a crash needs at (a time or a distribution of times)")
	}
	if v, ok := t.Peek("repair"); ok {
		if s, isStr := v.(string); isStr && s == "never" {
			t.MarkRead("repair")
		} else {
			d := readDist(t, "repair", Const(0), false)
			c.Repair = &d
		}
	}
	return c
}

func readSchedule(t *table) *Schedule {
	defer t.Done()
	s := &Schedule{Period: duration(t, "period", 86400), Up: duration(t, "up", 0), Phase: nonNegDuration(t, "phase", 0)}
	if !t.Has("up") {
		t.Errorf("", "a schedule needs up (how long machines are on in each period)")
	}
	if !(s.Period > 0) || !(s.Up > 0 && s.Up <= s.Period) {
		t.Errorf("", "want 0 < up <= period, got up %g s of period %g s", s.Up, s.Period)
	}
	return s
}

func readLoad(t *table) *LoadModel {
	defer t.Done()
	l := &LoadModel{
		ToLoaded: t.NumberIn("to_loaded", 0, 0, 1),
		ToSteady: t.NumberIn("to_steady", 1, 0, 1),
		Step:     duration(t, "step", 1),
		Steady:   fractionRange(t, "steady", [2]float64{1, 1}),
		Loaded:   fractionRange(t, "loaded", [2]float64{0, 0}),
	}
	if l.Step <= 0 {
		t.Errorf("step", "must be positive")
		l.Step = 1
	}
	if l.ToLoaded > 0 && l.ToSteady == 0 {
		t.Errorf("to_steady", "a machine that can become loaded must be able to recover (to_steady > 0)")
	}
	return l
}

func readWorkload(t *table, dir string) WorkloadGroup {
	defer t.Done()
	w := WorkloadGroup{
		Type:          t.Str("type", ""),
		Owner:         t.Str("owner", "sim"),
		SizeAttr:      t.Str("size_attr", ""),
		Attrs:         attrs(t, "attrs"),
		RequestCpus:   t.Positive("request_cpus", 1),
		RequestMemory: t.Number("request_memory", 128),
		RequestDisk:   t.Number("request_disk", 1000),
		Prio:          t.Int("prio", 0, -1<<20, 1<<20),
		SameTasks:     t.Bool("same_tasks", false),
	}
	w.Requirements, _ = expr(t, "requirements")
	w.Rank, _ = expr(t, "rank")
	if w.SizeAttr != "" {
		if err := sita.ValidAttrName(w.SizeAttr); err != nil {
			t.Errorf("size_attr", "%v", err)
		}
	}
	if !validName(w.Owner) {
		t.Errorf("owner", "%q: owners are letters, digits, '-', '_' and '.'", w.Owner)
	}
	if f := t.Str("file", ""); f != "" {
		w.File = f
		if !filepath.IsAbs(f) {
			w.File = filepath.Join(dir, f)
		}
		w.TypeAttr = t.Str("type_attr", "")
		for _, k := range []string{"count", "size", "arrival", "same_tasks"} {
			if t.Has(k) {
				t.Errorf(k, "a workload read from a file takes its jobs from the file: %s does not apply", k)
			}
		}
		ads, err := readJobFile(w.File, w.TypeAttr, w.SizeAttr)
		if err != nil {
			t.Errorf("file", "%v", err)
		}
		w.ads = ads
		w.Count = len(ads)
		return w
	}
	w.Size = readDist(t, "size", Const(1), true)
	if !t.Has("size") {
		t.Errorf("", "a workload group needs size (a number or a distribution) or file")
	}
	if w.Size.Exact() {
		w.Count = t.Int("count", w.Size.Total(), 1, 1<<27)
		if w.Count != w.Size.Total() {
			t.Errorf("count", "count %d differs from the %d sizes the counts give", w.Count, w.Size.Total())
		}
	} else {
		w.Count = t.Int("count", 1, 1, 1<<27)
	}
	w.Arrival = readArrival(t.Sub("arrival"), w.Count)
	if w.SameTasks && w.Arrival.Process != Batches {
		t.Errorf("same_tasks", "same_tasks needs batches (arrival.process = \"batches\")")
	}
	return w
}

func readArrival(t *table, count int) Arrival {
	a := Arrival{Process: Once}
	if t == nil {
		return a
	}
	defer t.Done()
	a.Process = t.OneOf("process", Once, Once, Poisson, Interval, Batches)
	a.At = nonNegDuration(t, "at", 0)
	need := func(k string) {
		if !t.Has(k) {
			t.Errorf("", "process %q needs %s", a.Process, k)
		}
	}
	switch a.Process {
	case Poisson:
		if t.Has("rate") == t.Has("load") {
			t.Errorf("", "process \"poisson\" needs rate (jobs per second) or load (a fraction of the pool's speed), not both")
		}
		a.Rate = t.Positive("rate", 0)
		a.Load = t.Positive("load", 0)
	case Interval:
		need("every")
		a.Every = nonNegDuration(t, "every", 0)
	case Batches:
		need("every")
		need("batch")
		a.Every = nonNegDuration(t, "every", 0)
		a.Batch = t.Int("batch", 1, 1, 1<<27)
		if count%a.Batch != 0 {
			t.Errorf("batch", "%d jobs do not make whole batches of %d", count, a.Batch)
		}
	}
	return a
}

func readPolicy(t *table, st *Setup) PolicySpec {
	defer t.Done()
	p := PolicySpec{Strategy: t.Str("strategy", "condor")}
	p.Name = t.Str("name", p.Strategy)
	p.Dispatch = t.OneOf("dispatch", st.Pool.Dispatch, Pull, Queue)
	p.Batch = t.Bool("batch", false)
	if p.Batch && p.Dispatch != Queue {
		t.Errorf("batch", "batch needs queue dispatch (hosts with queues to map jobs onto)")
	}
	if st.Pool.Replicas > 0 && p.Dispatch == Queue {
		t.Errorf("dispatch", "pool.replicas needs pull dispatch: queue dispatch does not replicate")
	}
	if pt := t.Sub("params"); pt != nil {
		p.Params = policy.Params{}
		for _, k := range pt.Keys() {
			p.Params[k], _ = pt.Get(k)
		}
	}
	if _, err := policy.NewWith(p.Strategy, p.Params); err != nil {
		path := t.Key("strategy")
		if p.Params != nil && strings.Contains(err.Error(), "parameter") {
			path = t.Key("params")
		}
		t.Reader().Errorf(path, "%v", err)
	}
	if s := t.Sub("sita"); s != nil {
		p.Sita = readSita(s, st)
	}
	return p
}

func readSita(t *table, st *Setup) *SitaSpec {
	defer t.Done()
	s := &SitaSpec{
		Intervals: t.Int("intervals", 0, 1, sita.MaxIntervals),
		Source:    t.OneOf("source", sita.SourceConfig, sita.SourceConfig, sita.SourceJob),
		K:         t.Number("k", 0),
		P:         t.Number("p", 0),
		A:         t.Number("a", 0),
		Attribute: t.Str("attribute", "KiteWork"),
	}
	if !t.Has("intervals") {
		t.Errorf("", "sita needs intervals (the number of size intervals)")
	}
	given := t.Has("k") || t.Has("p") || t.Has("a")
	s.Fit = t.OneOf("fit", "", "", sita.Moments, sita.MLE, "workload")
	switch {
	case given && s.Fit != "":
		t.Errorf("fit", "give k, p and a, or fit, not both")
	case given:
		if err := (sita.Pareto{K: s.K, P: s.P, A: s.A}).Validate(); err != nil {
			t.Errorf("", "%v", err)
		}
	case s.Fit == "":
		s.Fit = sita.Moments
	}
	if err := sita.ValidAttrName(s.Attribute); err != nil {
		t.Errorf("attribute", "%v", err)
	}
	if s.Attribute != "KiteWork" {
		for i, w := range st.Workload {
			if w.File == "" && w.SizeAttr != s.Attribute {
				t.Errorf("attribute", "workload[%d] does not write its sizes into %s (set its size_attr)", i, s.Attribute)
			}
		}
	}
	if s.Fit == "workload" && workloadPareto(st) == nil {
		t.Errorf("fit", "fit = \"workload\" needs a workload group with pareto sizes")
	}
	if tt := t.Sub("tune"); tt != nil {
		s.Tune = readTune(tt, s)
	}
	return s
}

// readTune reads sita.tune: { every = "10m", window = 2000, min_sizes =
// 1000, threshold = 10, hold = "1h", method = "moments" }.
func readTune(t *table, s *SitaSpec) *TuneSpec {
	defer t.Done()
	ts := &TuneSpec{Every: duration(t, "every", 600)}
	if !(ts.Every > 0) {
		t.Errorf("every", "must be positive")
	}
	ts.Config = sita.TuneConfig{
		Intervals: s.Intervals,
		Window:    t.Int("window", 2000, 2, 1<<24),
		MinSizes:  t.Int("min_sizes", 0, 0, 1<<24),
		Threshold: t.NumberIn("threshold", 10, 0.001, 99.999),
		Hold:      time.Duration(nonNegDuration(t, "hold", 0) * float64(time.Second)),
		Method:    t.OneOf("method", sita.Moments, sita.Moments, sita.MLE),
	}
	if s.Source != sita.SourceConfig {
		t.Errorf("", "tune needs source = \"config\": with source = \"job\" the boundaries come from each job's own k, p and a")
	}
	if s.Intervals > 0 {
		if _, err := ts.Config.Check(); err != nil {
			t.Errorf("", "%v", err)
		}
	}
	return ts
}

// workloadPareto returns the first Pareto size distribution of a setup.
func workloadPareto(st *Setup) *sita.Pareto {
	for _, w := range st.Workload {
		if w.Size.Kind == "pareto" {
			return &w.Size.Pareto
		}
	}
	return nil
}

// variant is one value of [vary].
type variant struct {
	label string
	path  []step // nil: no change
	value any
	at    string   // where the value is written, for errors
	set   []string // paths the value was written to
}

// step is one segment of a varied key: a name and, for arrays of
// tables, an element (-1: every element).
type step struct {
	name  string
	index int
	array bool
}

func readVary(t *table) []variant {
	key := t.Str("key", "")
	values := t.Array("values")
	if key == "" || len(values) == 0 {
		t.Errorf("", "vary needs key (e.g. \"workload.size.a\") and values (an array)")
		return []variant{{}}
	}
	path, err := parseVaryKey(key)
	if err != nil {
		t.Errorf("key", "%v", err)
		return []variant{{}}
	}
	var out []variant
	last := path[len(path)-1].name
	for i, v := range values {
		out = append(out, variant{label: fmt.Sprintf("%s=%s", last, valueText(v)), path: path, value: v, at: tomlstrict.Index(t.Key("values"), i)})
	}
	return out
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// parseVaryKey reads "workload.size.a" or "workload[1].arrival.every".
func parseVaryKey(key string) ([]step, error) {
	var out []step
	for _, part := range strings.Split(key, ".") {
		s := step{name: part, index: -1}
		if i := strings.IndexByte(part, '['); i >= 0 {
			if !strings.HasSuffix(part, "]") {
				return nil, fmt.Errorf("%q: bad element in %q", part, key)
			}
			n, err := strconv.Atoi(part[i+1 : len(part)-1])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q: bad element in %q", part, key)
			}
			s.name, s.index, s.array = part[:i], n, true
		}
		if s.name == "" {
			return nil, fmt.Errorf("%q is not a key", key)
		}
		out = append(out, s)
	}
	switch out[0].name {
	case "duration", "sample", "pool", "machines", "workload", "policy":
	default:
		return nil, fmt.Errorf("%q: only duration, sample, pool, machines, workload and policy keys can vary", key)
	}
	return out, nil
}

// apply writes the variant's value into doc.
func (v *variant) apply(doc map[string]any) error {
	return v.walk(doc, "", 0)
}

func (v *variant) walk(m map[string]any, path string, k int) error {
	s := v.path[k]
	here := tomlstrict.Join(path, s.name)
	if k == len(v.path)-1 {
		if s.array {
			return fmt.Errorf("%s: the varied key must name a value, not an element", here)
		}
		m[s.name] = v.value
		v.set = append(v.set, here)
		return nil
	}
	next, ok := m[s.name]
	if !ok {
		next = map[string]any{}
		m[s.name] = next
	}
	switch x := next.(type) {
	case map[string]any:
		if s.array {
			return fmt.Errorf("%s is a table, not an array", here)
		}
		return v.walk(x, here, k+1)
	case []map[string]any:
		if s.index >= len(x) {
			return fmt.Errorf("%s has %d elements: no element %d", here, len(x), s.index)
		}
		for i, e := range x {
			if s.index < 0 || s.index == i {
				if err := v.walk(e, tomlstrict.Index(here, i), k+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return fmt.Errorf("%s is %s, not a table", here, tomlstrict.Describe(next))
}

// deepCopy copies a decoded TOML document.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e).(map[string]any)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
