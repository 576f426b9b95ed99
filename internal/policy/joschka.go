package policy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/reliability"
)

// JoSchKa is the family of JoSchKa's distribution strategies (Bonn and
// Schmeck, paper 000; Bonn's dissertation, paper 001; algorithms.md §2):
// the machine asking picks a job type. Here each free slot of the cycle,
// in a seeded random order, is one machine asking: the strategy ranks the
// job types with idle jobs the slot matches, and the slot gets the
// oldest job of the highest JobPrio of the first type (within a type,
// jobs go by priority, as JoSchKa's userPriority). A type is a job's
// KiteJobType, else its JobBatchName, else its Owner
// (reliability.TypeOf).
//
// The strategies read what the pool's monitoring publishes
// (internal/reliability): a slot's KiteReliability R, KiteAvgFailedTime
// avF, KiteAvgSucceededTime avS, KiteAvgUptime avU, KiteBenchmark rB and
// DaemonStartTime (its current uptime acU is the cycle's time less it),
// and a request's KiteTypeRunning, KiteTypeDone, KiteTypeJobs and
// KiteTypeRuntime (avT). The power class nP and the spread of
// reliability are taken over the whole pool (Market.Pool, one value per
// Machine). A slot without R counts at its benchmark class B; missing
// avF, avS count as 0; a type that has not finished a job yet counts as
// the shortest (avT = 0), the runtime of JoSchKa's pseudo type. Only types
// with idle jobs take part ("known types" of the paper): a type whose jobs
// all run cannot be given a machine.
//
// The members, registered by name:
//
//	joschka-balanced   the type with the fewest running jobs (nrWORKING)
//	joschka-new-users  the type with the smallest share of its jobs done
//	                   (relDONE)
//	joschka-power      the type whose runtime class nTIME is nearest the
//	                   slot's power class nP (ties at random: the paper's
//	                   ambiguous classes)
//	joschka-runtime    the type whose runtime avT is nearest RLTV, the
//	                   target runtime: avF or avS by R, spread by s,
//	                   snapped to the nearest of the types' runtimes (the
//	                   longest excepted) and the midpoints between
//	                   adjacent runtimes (a pseudo type of runtime 0
//	                   included), and moved by a random -2..2 minutes
//	joschka-uptime     as runtime, from the slot's uptime: by default the
//	                   dissertation's improved rule (the expected uptime
//	                   left, avU - acU, or (R/5 + 1)(acU - avU) past the
//	                   mean, scaled by mean(rB)/rB), or avU spread by s
//	joschka-combined   the combined strategy: balanced while the running
//	                   jobs of the types are too uneven (min/max <
//	                   fair_level, raised to 0.5 when the types' runtime
//	                   indices differ by less than 4 or the middle 80 %
//	                   of the pool's R spans less than 4, and to 0.9 when
//	                   they are equal or it spans less than 2; with
//	                   fair_raise = "dissertation" the thresholds of the
//	                   dissertation, section 3.3.6 step 4: 0.33 below a
//	                   spread of 0.5 or an R span of 0.4, 0.67 when they
//	                   are equal or it spans less than 0.2), new users
//	                   first while a type has less than done_rate_low_boost
//	                   done, power-based with probability
//	                   power_index_prob, else runtime-based (uptime-based
//	                   with use_uptimes)
//
// Parameters (paper 000's values are the defaults):
//
//	fair_level           combined: the least min/max running ratio (0)
//	done_rate_low_boost  combined: types below this share done come first
//	                     (0.03)
//	power_index_prob     combined: the probability of power-based (0.1)
//	use_uptimes          combined: uptime- instead of runtime-based (false)
//	fair_raise           combined: "paper000" (0.5 and 0.9) or
//	                     "dissertation" (0.33 and 0.67): whose thresholds
//	                     raise fair_level ("paper000")
//	runlength_scale      runtime, uptime (mean rule), combined: the spread
//	                     s >= 0, or "dynamic": s = max avT / (min avT · m)
//	                     over the m types (2; uptime: 0)
//	uptime               uptime, combined: "remaining" (the improved rule)
//	                     or "mean" (avU spread by s)
//	snap                 runtime, uptime, combined: "types" (the
//	                     dissertation's rule: a target nearer a type's
//	                     runtime than to any midpoint takes that type, the
//	                     longest excepted) or "midpoints" (paper 000's
//	                     text: always the nearest midpoint, so a node
//	                     whose target is a type's runtime still tosses a
//	                     coin with a neighbour)
//	replicate            all: when no idle job matches a slot, start another
//	                     instance of a running job of the type the
//	                     strategy picks among the replica requests (true;
//	                     the pool must offer them)
type JoSchKa struct {
	mode                    jMode
	fairLevel, boost, power float64
	scale                   float64
	dynamic, useUptimes     bool
	uptime, snap            string
	raise                   fairRaise
	replicate               bool
}

type jMode uint8

const (
	jBalanced jMode = iota
	jNewUsers
	jPower
	jRuntime
	jUptime
	jCombined
)

var jNames = [...]string{"joschka-balanced", "joschka-new-users", "joschka-power", "joschka-runtime",
	"joschka-uptime", "joschka-combined"}

func init() {
	for m := range jNames {
		Register(jNames[m], func() Strategy { return newJoSchKa(jMode(m)) })
	}
}

func newJoSchKa(m jMode) *JoSchKa {
	j := &JoSchKa{mode: m, fairLevel: 0, boost: 0.03, power: 0.1, scale: 2, uptime: "remaining",
		snap: "types", replicate: true, raise: fairRaises["paper000"]}
	if m == jUptime {
		j.scale = 0
	}
	return j
}

// Name implements Strategy.
func (j *JoSchKa) Name() string { return jNames[j.mode] }

// Needs implements Needful.
func (j *JoSchKa) Needs() Needs {
	return Needs{Significant: reliability.TypeAttrs, Monitoring: true, Replicas: j.replicate}
}

// Configure implements Configurable.
func (j *JoSchKa) Configure(p Params) error {
	known := []string{"replicate"}
	switch j.mode {
	case jRuntime:
		known = append(known, "runlength_scale", "snap")
	case jUptime:
		known = append(known, "runlength_scale", "snap", "uptime")
	case jCombined:
		known = append(known, "runlength_scale", "snap", "uptime", "fair_level", "done_rate_low_boost",
			"power_index_prob", "use_uptimes", "fair_raise")
	}
	if err := p.only(known...); err != nil {
		return err
	}
	var err error
	set := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	set(func() (e error) { j.replicate, e = p.Bool("replicate", true); return })
	set(func() (e error) { j.fairLevel, e = p.Float("fair_level", j.fairLevel, 0, 1); return })
	set(func() (e error) { j.boost, e = p.Float("done_rate_low_boost", j.boost, 0, 1); return })
	set(func() (e error) { j.power, e = p.Float("power_index_prob", j.power, 0, 1); return })
	set(func() (e error) { j.useUptimes, e = p.Bool("use_uptimes", false); return })
	set(func() (e error) { j.uptime, e = p.OneOf("uptime", "remaining", "mean"); return })
	set(func() (e error) { j.snap, e = p.OneOf("snap", "types", "midpoints"); return })
	set(func() error {
		name, e := p.OneOf("fair_raise", "paper000", "dissertation")
		j.raise = fairRaises[name]
		return e
	})
	set(func() error { return j.configureScale(p) })
	return err
}

// configureScale reads runlength_scale: a number >= 0 or "dynamic" (-1,
// JoSchKa's configuration value for dynamic, is accepted too).
func (j *JoSchKa) configureScale(p Params) error {
	v, ok := p["runlength_scale"]
	if !ok {
		return nil
	}
	if s, isStr := v.(string); isStr {
		if s != "dynamic" {
			return fmt.Errorf(`parameter "runlength_scale": want a number >= 0 or "dynamic", got %q`, s)
		}
		j.dynamic = true
		return nil
	}
	f, err := p.Float("runlength_scale", 0, math.Inf(-1), math.Inf(1))
	if err != nil {
		return err
	}
	if f < 0 && f != -1 || math.IsInf(f, 1) {
		return fmt.Errorf(`parameter "runlength_scale": want a number >= 0 or "dynamic", got %v`, f)
	}
	j.dynamic, j.scale = f == -1, max(f, 0)
	return nil
}

// jType is a job type as one cycle sees it.
type jType struct {
	name    string
	reqs    []int // idle requests, highest JobPrio first, then oldest
	reps    []int // replica requests, likewise
	running int   // running jobs, and those given a slot this cycle
	done    float64
	jobs    float64
	avT     float64 // 0 while no job finished
	avTI    int
	key     float64 // the current ranking's key
	tie     uint32
}

func (t *jType) relDone() float64 {
	if t.jobs <= 0 {
		return 0
	}
	return t.done / t.jobs
}

// jCycle is one cycle's state.
type jCycle struct {
	s     *JoSchKa
	m     Market
	now   float64 // seconds since the epoch
	types []*jType
	// The pool: reliability span, spread and mean benchmark, once needed.
	pooled          bool
	rLo, rHi, major float64
	meanBench       float64
	cands           []*jType
}

// Distribute implements Strategy.
func (j *JoSchKa) Distribute(m Market) {
	c := &jCycle{s: j, m: m, now: float64(m.Now().UnixNano()) / float64(time.Second)}
	c.collectTypes()
	if len(c.types) == 0 {
		return
	}
	slots := m.Slots()
	for _, i := range m.Rand().Perm(len(slots)) {
		for m.Free(i) && c.serve(i) {
		}
	}
	for k := range m.Requests() {
		if m.Remaining(k) > 0 && !m.Requests()[k].Replica {
			noSlot(m, k)
		}
	}
}

// collectTypes groups the requests by job type, with the type's
// statistics from its first request.
func (c *jCycle) collectTypes() {
	byName := map[string]*jType{}
	reqs := c.m.Requests()
	for k := range reqs {
		ad := reqs[k].Ad
		name := reliability.TypeOf(ad)
		t := byName[name]
		if t == nil {
			t = &jType{name: name,
				running: int(classad.EvalNumberOr(ad, attr.KiteTypeRunning, 0)),
				done:    classad.EvalNumberOr(ad, attr.KiteTypeDone, 0),
				jobs:    classad.EvalNumberOr(ad, attr.KiteTypeJobs, 0),
				avT:     max(0, classad.EvalNumberOr(ad, attr.KiteTypeRuntime, 0)),
			}
			t.avTI = reliability.RuntimeIndex(t.avT)
			byName[name] = t
			c.types = append(c.types, t)
		}
		if reqs[k].Replica {
			t.reps = append(t.reps, k)
		} else {
			t.reqs = append(t.reqs, k)
		}
	}
	order := func(a, b int) int {
		pa, pb := classad.EvalNumberOr(reqs[a].Ad, attr.JobPrio, 0), classad.EvalNumberOr(reqs[b].Ad, attr.JobPrio, 0)
		if c := cmp.Compare(pb, pa); c != 0 {
			return c
		}
		return cmp.Compare(classad.EvalNumberOr(reqs[a].Ad, attr.QDate, 0), classad.EvalNumberOr(reqs[b].Ad, attr.QDate, 0))
	}
	for _, t := range c.types {
		slices.SortStableFunc(t.reqs, order)
		slices.SortStableFunc(t.reps, order)
	}
	slices.SortFunc(c.types, func(a, b *jType) int { return cmp.Compare(a.name, b.name) })
}

// idleTypes are the types with idle jobs left: the "known types" the
// strategies compare.
func (c *jCycle) idleTypes() []*jType {
	out := c.cands[:0]
	for _, t := range c.types {
		for _, k := range t.reqs {
			if c.m.Remaining(k) > 0 {
				out = append(out, t)
				break
			}
		}
	}
	c.cands = out
	return out
}

// serve gives slot i a job, or a replica when no idle job matches it; it
// reports whether it made a match.
func (c *jCycle) serve(i int) bool {
	idle := c.idleTypes()
	if len(idle) > 0 && c.pick(i, idle, false) {
		return true
	}
	if !c.s.replicate {
		return false
	}
	var reps []*jType
	for _, t := range c.types {
		if len(t.reps) > 0 {
			reps = append(reps, t)
		}
	}
	if len(reps) == 0 {
		return false
	}
	if len(idle) == 0 {
		idle = reps
	}
	return c.pickAmong(i, idle, reps)
}

// pick ranks the idle types for slot i by the strategy and gives the slot
// a job of the first that has one it matches.
func (c *jCycle) pick(i int, idle []*jType, replica bool) bool {
	c.rank(i, idle, idle)
	return c.assignFirst(i, idle, replica)
}

// pickAmong ranks the types with replica requests, judged against the
// idle types (the pool's known types), and starts a replica.
func (c *jCycle) pickAmong(i int, known, reps []*jType) bool {
	c.rank(i, known, reps)
	return c.assignFirst(i, reps, true)
}

// rank sets the key of each of types for slot i by the strategy that
// applies, and sorts them best first (ties at random). known are the
// types the pool-wide comparisons run over.
func (c *jCycle) rank(i int, known, types []*jType) {
	mode := c.s.mode
	if mode == jCombined {
		mode = c.combined(known)
	}
	ad := c.m.Slots()[i].Ad
	switch mode {
	case jBalanced:
		for _, t := range types {
			t.key = float64(t.running)
		}
	case jNewUsers:
		for _, t := range types {
			t.key = t.relDone()
		}
	case jPower:
		c.pool()
		np := float64(reliability.PowerClass(slotR(ad), c.rLo, c.rHi))
		lo, hi := indexSpan(known)
		for _, t := range types {
			t.key = math.Abs(float64(reliability.TimeClass(t.avTI, lo, hi)) - np)
		}
	case jRuntime, jUptime:
		target := c.target(mode, ad, known)
		rltv := c.rltv(target, known)
		for _, t := range types {
			t.key = math.Abs(rltv - t.avT)
		}
	}
	r := c.m.Rand()
	for _, t := range types {
		t.tie = r.Uint32()
	}
	slices.SortFunc(types, func(a, b *jType) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.tie, b.tie)
	})
}

// fairRaise is when the combined strategy raises fair_level: to low
// when the types' runtime indices span less than lowDiff or the middle
// 80 % of R less than lowMajor, to high when the indices span nothing
// or R less than highMajor.
type fairRaise struct {
	lowDiff, lowMajor, low float64
	highMajor, high        float64
}

// fairRaises are paper 000's thresholds (§4.2 step 3) and the
// dissertation's (section 3.3.6, step 4).
var fairRaises = map[string]fairRaise{
	"paper000":     {lowDiff: 4, lowMajor: 4, low: 0.5, highMajor: 2, high: 0.9},
	"dissertation": {lowDiff: 0.5, lowMajor: 0.4, low: 0.33, highMajor: 0.2, high: 0.67},
}

// level is fair_level after the raises.
func (f fairRaise) level(fair, diff, major float64) float64 {
	if (diff < f.lowDiff || major < f.lowMajor) && fair < f.low {
		fair = f.low
	}
	if (diff == 0 || major < f.highMajor) && fair < f.high {
		fair = f.high
	}
	return fair
}

// combined decides which strategy the combined one applies now (paper
// 000, §4.2, steps 2 to 6).
func (c *jCycle) combined(known []*jType) jMode {
	s := c.s
	c.pool()
	lo, hi := indexSpan(known)
	diff := float64(hi - lo)
	fair := s.raise.level(s.fairLevel, diff, c.major)
	least, most, minDone := math.MaxInt, 0, math.Inf(1)
	for _, t := range known {
		least, most = min(least, t.running), max(most, t.running)
		minDone = math.Min(minDone, t.relDone())
	}
	ratio := 1.0 // nothing running: as even as can be
	if most > 0 {
		ratio = float64(least) / float64(most)
	}
	switch {
	case ratio < fair:
		return jBalanced
	case minDone < s.boost:
		return jNewUsers
	case c.m.Rand().Float64() < s.power:
		return jPower
	case s.useUptimes:
		return jUptime
	}
	return jRuntime
}

// assignFirst gives slot i a job (or a replica) of the first of types
// that has one it matches.
func (c *jCycle) assignFirst(i int, types []*jType, replica bool) bool {
	for _, t := range types {
		reqs := t.reqs
		if replica {
			reqs = t.reps
		}
		for _, k := range reqs {
			if c.m.Remaining(k) == 0 || !c.m.Matches(k, i) {
				continue
			}
			if _, why := c.m.Assign(k, i); why != OK {
				continue
			}
			if !replica {
				t.running++
			}
			return true
		}
	}
	return false
}

// pool computes, once a cycle, the span and spread of reliability over
// the pool's machines and their mean benchmark.
func (c *jCycle) pool() {
	if c.pooled {
		return
	}
	c.pooled = true
	seen := map[string]bool{}
	var rs []float64
	bench, nb := 0.0, 0
	for _, ad := range c.m.Pool() {
		if name, ok := classad.EvalString(ad, attr.Machine); ok {
			if seen[name] {
				continue
			}
			seen[name] = true
		}
		rs = append(rs, slotR(ad))
		if b, ok := classad.EvalNumber(ad, attr.KiteBenchmark); ok && b > 0 {
			bench += b
			nb++
		}
	}
	if len(rs) > 0 {
		c.rLo, c.rHi = slices.Min(rs), slices.Max(rs)
		c.major = reliability.MajorityInterval(rs)
	}
	if nb > 0 {
		c.meanBench = bench / float64(nb)
	}
}

// slotR is a slot's reliability index, or its benchmark class when the
// pool publishes none.
func slotR(ad *classad.Ad) float64 {
	if r, ok := classad.EvalNumber(ad, attr.KiteReliability); ok {
		return r
	}
	return float64(reliability.BenchmarkIndex(classad.EvalNumberOr(ad, attr.KiteBenchmark, 0)))
}

// indexSpan is the span of the runtime indices of types.
func indexSpan(types []*jType) (lo, hi int) {
	lo, hi = math.MaxInt, math.MinInt
	for _, t := range types {
		lo, hi = min(lo, t.avTI), max(hi, t.avTI)
	}
	return lo, hi
}

// spread returns the runtime-based spread factor for reliability r:
// 2^(-s/2) at R = -5, 2^(-s/4) at -4 and -3, 1 from -2 to 1, 1 + s/2 at 2
// and 3, 1 + s at 4 and 5; and whether the slot is reliable (R >= 0, so
// that avS rather than avF is the base).
func spread(r, s float64) (float64, bool) {
	switch n := math.Round(r); {
	case n <= -5:
		return math.Exp2(-0.5 * s), false
	case n <= -3:
		return math.Exp2(-0.25 * s), false
	case n <= -1:
		return 1, false
	case n <= 1:
		return 1, true
	case n <= 3:
		return 1 + 0.5*s, true
	}
	return 1 + s, true
}

// scaleOf is the spread s in force: fixed, or dynamic over the known
// types with runtimes.
func (c *jCycle) scaleOf(known []*jType) float64 {
	if !c.s.dynamic {
		return c.s.scale
	}
	lo, hi, m := math.Inf(1), 0.0, 0
	for _, t := range known {
		if t.avT > 0 {
			lo, hi, m = math.Min(lo, t.avT), math.Max(hi, t.avT), m+1
		}
	}
	if m == 0 {
		return 0
	}
	return hi / (lo * float64(m))
}

// target is avTARGET, the runtime slot i should get, in seconds.
func (c *jCycle) target(mode jMode, ad *classad.Ad, known []*jType) float64 {
	r := slotR(ad)
	if mode == jRuntime {
		f, reliable := spread(r, c.scaleOf(known))
		base := classad.EvalNumberOr(ad, attr.KiteAvgFailedTime, 0)
		if reliable {
			base = classad.EvalNumberOr(ad, attr.KiteAvgSucceededTime, 0)
		}
		return f * math.Max(base, 0)
	}
	up := c.now - classad.EvalNumberOr(ad, attr.DaemonStartTime, c.now)
	up = math.Max(up, 0)
	avU, known2 := classad.EvalNumber(ad, attr.KiteAvgUptime)
	if c.s.uptime == "mean" {
		// A machine up for longer than its mean is up at least this long
		// (and one that never went down has no mean yet).
		if !known2 || up > avU {
			avU = up
		}
		f, _ := spread(r, c.scaleOf(known))
		return f * avU
	}
	var t float64
	switch {
	case !known2:
		t = (r/reliability.K + 1) * up // it has outlived every period it showed
	case up <= avU:
		t = avU - up
	default:
		t = (r/reliability.K + 1) * (up - avU)
	}
	c.pool()
	if rb, ok := classad.EvalNumber(ad, attr.KiteBenchmark); ok && rb > 0 && c.meanBench > 0 {
		t *= c.meanBench / rb
	}
	return math.Max(t, 0)
}

// rltv is the runtime target value: target snapped to the nearest
// midpoint between adjacent runtimes of the known types (a pseudo type of
// runtime 0 below them), or with snap = "types" to the nearest runtime
// when that is nearer (the longest type excepted), moved by a whole
// number of minutes from -2 to 2 (the paper's integer minutes: at a
// midpoint, a coin toss between the neighbours).
func (c *jCycle) rltv(target float64, known []*jType) float64 {
	rts := make([]float64, 1, len(known)+1) // the pseudo type's 0
	for _, t := range known {
		rts = append(rts, t.avT)
	}
	slices.Sort(rts)
	rts = slices.Compact(rts)
	best := math.Inf(1)
	var mid float64
	for k := 0; k+1 < len(rts); k++ {
		m := (rts[k] + rts[k+1]) / 2
		if d := math.Abs(target - m); d < best {
			best, mid = d, m
		}
	}
	v := mid
	if len(rts) == 1 {
		v = 0
	}
	if c.s.snap == "types" && len(rts) > 2 {
		near, nd := 0.0, math.Inf(1)
		for _, rt := range rts[1 : len(rts)-1] { // real types but the longest
			if d := math.Abs(target - rt); d < nd {
				near, nd = rt, d
			}
		}
		if nd < best {
			v = near
		}
	}
	return v + float64(c.m.Rand().IntN(5)-2)*60
}
