package sim

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	clustering "github.com/kite-sched/kite/internal/autocluster"
	"github.com/kite-sched/kite/internal/fairshare"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
	"github.com/kite-sched/kite/internal/reliability"
)

// engine is one run: a setup, a policy and a seed, in virtual time.
//
// It plays the schedds (idle jobs grouped into autoclusters, each shown
// to the negotiator by its first job's ad) and the startds (slot ads that
// change as machines fail, slow down and fill their queues), and calls
// matchmaker.Cycle with the run's strategy, as the live negotiator does,
// every Interval and CycleDelay after new idle jobs or free slots. The
// snapshot a cycle sees holds only the free slots and the autoclusters
// with idle jobs, both kept up to date as events happen, so a cycle costs
// what changed since the last, not the size of the pool.
type engine struct {
	ctx      context.Context
	st       *Setup
	pol      PolicySpec
	dispatch string
	seed     uint64
	now      float64
	limit    float64
	q        eventHeap

	w        *workload
	jobs     []job
	machines []*machine
	slots    []*slotState
	byName   map[string]int32
	free     freeSet

	acs     []*autocluster
	subs    []*submitter
	groups  []groupInfo
	signer  *clustering.Signer // the schedds' grouping into autoclusters
	acByKey map[string]int32
	keyBuf  []byte

	idle, next, away, done int
	running, queued        int

	strategy   policy.Strategy
	negPol     matchmaker.Policy
	acct       *fairshare.Accountant
	cycleGen   uint32
	cycleAt    float64
	pending    bool // a cycle is scheduled
	lastCycle  float64
	cycles     int
	matches    int
	poolWeight float64 // slots up now (queue mode: cores)
	slotBuf    []*classad.Ad
	subBuf     []matchmaker.Submitter

	// Metrics as the run goes.
	availAcc, availT float64 // slot-seconds up (poolWeight), integrated to availT
	availAtFirst     float64
	firstSeen        bool
	runningByType    []int
	doneByType       []int
	series           series
	stalled, capped  bool
	events           int
	unitCache        []unit

	// What the strategy needs of the pool; node monitoring and job-type
	// statistics (monitor.go); replication (replicate.go).
	needs         policy.Needs
	pool          []*classad.Ad // every slot's ad
	monitor       bool
	nodes         []reliability.Node
	typeRec       []reliability.JobType
	arrivedByType []int
	repl          replication
	wasted        float64 // machine-seconds of runs killed when another instance won
	batchWorks    []float64
	affCache      map[[2]int32]float64 // affinity by machine group and autocluster
	affErr        error                // an affinity that gave no positive number
	tune          *tuning              // SITA-E tuning (tune.go), nil without
}

// groupInfo is what a run knows of a workload group.
type groupInfo struct {
	template *classad.Ad // generated groups: what their jobs share
	own      *classad.Ad // generated groups: a job's own values, for its signature
	apart    int8        // generated groups: 0 not known yet, 1 jobs have the template's signature, 2 their own values count
	sizeAttr string
	sub      int32
	// Groups read from files: each job's own ad and submitter.
	ads  []*classad.Ad
	subs []int32
}

// autocluster is a schedd's group of alike idle jobs.
type autocluster struct {
	id    string
	sub   int32
	group int32
	prio  int
	ad    *classad.Ad // generated groups: the template with the first job's values
	fifo  []int32     // idle jobs in order of arrival
	head  int
	back  []int32 // jobs idle again after a loss, a min-heap by job index
	idle  int
	shown int32 // the job the ad shows, -1 none
	live  bool  // in its submitter's list
	// Replication: its running jobs, and the ad of its replica request.
	running []int32
	repAd   *classad.Ad
}

// submitter is one owner's schedd queue.
type submitter struct {
	name    string
	acs     []int32 // autoclusters that may have idle jobs
	running int
}

// freeSet is the slots a cycle may match, with O(1) add and remove.
type freeSet struct {
	idx []int32
	pos []int32 // by slot: index in idx, -1 if absent
}

func (f *freeSet) has(s int32) bool { return f.pos[s] >= 0 }

func (f *freeSet) add(s int32) {
	if f.pos[s] >= 0 {
		return
	}
	f.pos[s] = int32(len(f.idx))
	f.idx = append(f.idx, s)
}

func (f *freeSet) remove(s int32) {
	p := f.pos[s]
	if p < 0 {
		return
	}
	last := f.idx[len(f.idx)-1]
	f.idx[p] = last
	f.pos[last] = p
	f.idx = f.idx[:len(f.idx)-1]
	f.pos[s] = -1
}

// newEngine prepares a run.
func newEngine(ctx context.Context, st *Setup, pol PolicySpec, seed uint64) (*engine, error) {
	e := &engine{ctx: ctx, st: st, pol: pol, dispatch: pol.Dispatch, seed: seed, acByKey: map[string]int32{},
		lastCycle: math.Inf(-1)}
	if e.dispatch == "" {
		e.dispatch = st.Pool.Dispatch
	}
	var err error
	e.strategy, err = policy.NewWith(pol.Strategy, pol.Params)
	if err != nil {
		return nil, err
	}
	e.negPol = matchmaker.Policy{PreJobRank: st.Pool.preJob, PostJobRank: st.Pool.postJob, Strategy: e.strategy}
	e.needs = policy.NeedsOf(e.strategy)
	e.acct = fairshare.NewAccountant(time.Duration(st.Pool.HalfLife*float64(time.Second)), st.Pool.PrioFactor)
	e.machines = buildMachines(st, seed)
	e.w, err = buildWorkload(st, seed, totalSpeed(e.machines))
	if err != nil {
		return nil, err
	}
	e.jobs = e.w.jobs
	if st.Warmup > 0 && st.Warmup >= len(e.jobs) {
		return nil, fmt.Errorf("warmup = %d would leave out every one of the %d jobs", st.Warmup, len(e.jobs))
	}
	for i := range e.jobs {
		e.jobs[i].firstStart, e.jobs[i].finish, e.jobs[i].machine, e.jobs[i].slot, e.jobs[i].ac = -1, -1, -1, -1, -1
	}
	plan, err := planSita(pol.Sita, st, e.w, e.machines)
	if err != nil {
		return nil, err
	}
	if e.slots, err = buildSlots(st, e.machines, e.dispatch, plan); err != nil {
		return nil, err
	}
	e.byName = make(map[string]int32, len(e.slots))
	e.free.pos = make([]int32, len(e.slots))
	for i, s := range e.slots {
		e.byName[s.name] = int32(i)
		e.free.pos[i] = -1
		s.rep = -1
		e.pool = append(e.pool, s.ad)
	}
	e.prepareJobs(plan)
	if err := e.startTuning(pol.Sita, plan); err != nil {
		return nil, err
	}
	e.runningByType = make([]int, len(e.w.types))
	e.doneByType = make([]int, len(e.w.types))
	e.prepareExtras()
	e.limit = st.Duration
	if e.limit == 0 {
		e.limit = math.Max(365*86400, 100*e.horizon())
		e.capped = true
	}
	return e, nil
}

// horizon estimates when a run should be over: the last arrival plus the
// work at the pool's full speed.
func (e *engine) horizon() float64 {
	work := 0.0
	for i := range e.jobs {
		work += e.jobs[i].work
	}
	last := 0.0
	if n := len(e.jobs); n > 0 {
		last = e.jobs[n-1].arrival
	}
	return last + work/math.Max(totalSpeed(e.machines), 1e-300)
}

// prepareJobs makes the submitters and the job templates, and finds the
// significant attributes autoclusters group by.
func (e *engine) prepareJobs(plan *sitaPlan) {
	sitaJob := plan
	if plan != nil && plan.cfg.Source != "job" {
		sitaJob = nil
	}
	subIndex := map[string]int32{}
	subOf := func(owner string) int32 {
		name := owner + "@sim"
		if k, ok := subIndex[name]; ok {
			return k
		}
		subIndex[name] = int32(len(e.subs))
		e.subs = append(e.subs, &submitter{name: name})
		return subIndex[name]
	}
	typeOfGroup := make([]string, len(e.st.Workload))
	for i := range e.jobs {
		typeOfGroup[e.jobs[i].group] = e.w.types[e.jobs[i].typ]
	}
	e.groups = make([]groupInfo, len(e.st.Workload))
	for g := range e.st.Workload {
		wg := &e.st.Workload[g]
		gi := &e.groups[g]
		gi.sizeAttr = wg.SizeAttr
		if wg.File == "" {
			gi.template = jobTemplate(wg, g, typeOfGroup[g], sitaJob)
			gi.own = classad.NewAd()
			gi.sub = subOf(wg.Owner)
			continue
		}
		// The file's ads are shared by every run: each run works on its
		// own copies.
		gi.ads = make([]*classad.Ad, len(wg.ads))
		gi.subs = make([]int32, len(wg.ads))
		for i := range wg.ads {
			ad := wg.ads[i].ad.Clone()
			setNumber(ad, attr.KiteWork, wg.ads[i].work)
			ad.Set(attr.KiteJobType, ast.Str(wg.ads[i].typ))
			ad.Set(attr.JobStatus, ast.Int(attr.Idle))
			ad.Set(attr.QDate, ast.Int(int64(epoch+math.Floor(wg.ads[i].arrival))))
			if sitaJob != nil {
				setSitaJob(ad, sitaJob)
			}
			gi.ads[i] = ad
			gi.subs[i] = subOf(wg.ads[i].owner)
		}
	}
	slotAds := make([]*classad.Ad, len(e.slots))
	for i, s := range e.slots {
		slotAds[i] = s.ad
	}
	significant := matchmaker.Significant(slotAds, &e.negPol)
	significant = append(significant, e.st.Pool.Significant...)
	e.signer = clustering.NewSigner(append(significant, affinityRefs(e.st)...))
}
