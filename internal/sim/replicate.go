package sim

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/matchmaker"
)

// Replication (pool.replicas > 0, pull dispatch): the simulated schedds
// offer, besides their idle jobs, one replica request per autocluster
// with running jobs — its ad says KiteReplica = true and its count is how
// many more instances its running jobs may have, up to pool.replicas
// extra each — and the negotiator passes them to strategies that
// replicate (policy.Needs.Replicas). A replica request matched to a slot
// starts another instance of the autocluster's running job with the
// fewest instances (the oldest first), from the beginning. The first
// instance to finish wins: the job is done, the others are killed and
// their slots freed, and their time counts as wasted. An instance lost
// with its machine is an aborted run; when the original is lost, the
// oldest replica carries on as the job's run instead of the job going
// back to idle.

// replication is a run's replica runs.
type replication struct {
	max     int // extra instances a running job may have (0: none)
	runs    []replicaRun
	free    []int32           // dead runs to reuse
	of      map[int32][]int32 // job → its live replica runs
	started int
}

// replicaRun is one extra instance of a running job.
type replicaRun struct {
	job, machine, slot           int32
	start, remaining, lastUpdate float64
	gen                          uint32
	live                         bool
}

// replicaPrefix starts the request ID of an autocluster's replica
// request.
const replicaPrefix = "r"

// replicating reports whether the run offers replica requests.
func (e *engine) replicating() bool { return e.repl.max > 0 && e.needs.Replicas }

// instances counts a running job's instances.
func (e *engine) instances(j int32) int { return 1 + len(e.repl.of[j]) }

// replicaRequests adds each autocluster's replica request to its
// submitter's requests (adding submitters that have no idle job).
func (e *engine) replicaRequests(out []matchmaker.Submitter) []matchmaker.Submitter {
	at := map[string]int{}
	for k := range out {
		at[out[k].Name] = k
	}
	for _, a := range e.acs {
		n := 0
		for _, j := range a.running {
			n += max(0, 1+e.repl.max-e.instances(j))
		}
		if n == 0 {
			continue
		}
		s := e.subs[a.sub]
		k, ok := at[s.name]
		if !ok {
			k = len(out)
			at[s.name] = k
			out = append(out, matchmaker.Submitter{Name: s.name, Schedd: "sim",
				Priority: e.acct.Effective(s.name), InUse: float64(s.running)})
		}
		out[k].Requests = append(out[k].Requests, matchmaker.Request{ID: replicaPrefix + a.id, Count: n, Ad: e.replicaAd(a)})
	}
	return out
}

// replicaAd is an autocluster's replica request ad: the ad of one of its
// running jobs, marked KiteReplica = true.
func (e *engine) replicaAd(a *autocluster) *classad.Ad {
	j := a.running[0]
	jb := &e.jobs[j]
	g := &e.groups[a.group]
	if a.repAd == nil {
		if g.ads != nil {
			a.repAd = g.ads[jb.index].Clone()
		} else {
			a.repAd = g.template.Clone()
		}
		a.repAd.Set(attr.KiteReplica, ast.Bool(true))
	}
	if g.ads == nil {
		e.showJobAd(a.repAd, j)
	}
	e.publishType(a.repAd, jb.typ)
	return a.repAd
}

// matchReplica starts a replica of one of autocluster id's running jobs
// on slot si; false when the request is not a replica request.
func (e *engine) matchReplica(request string, si int32) bool {
	rest, ok := strings.CutPrefix(request, replicaPrefix)
	if !ok {
		return false
	}
	id, err := strconv.Atoi(rest)
	if err != nil || id < 0 || id >= len(e.acs) || !e.free.has(si) || e.dispatch != Pull {
		return true
	}
	j := int32(-1)
	for _, r := range e.acs[id].running {
		if e.instances(r) > e.repl.max {
			continue
		}
		if j < 0 || e.instances(r) < e.instances(j) ||
			e.instances(r) == e.instances(j) && e.jobs[r].start < e.jobs[j].start {
			j = r
		}
	}
	if j >= 0 {
		e.free.remove(si)
		e.startReplica(j, e.slots[si].machine, si)
	}
	return true
}

// startReplica starts another instance of job j on a machine's slot.
func (e *engine) startReplica(j, mi, si int32) {
	m := e.machines[mi]
	var r int32
	if n := len(e.repl.free); n > 0 {
		r = e.repl.free[n-1]
		e.repl.free = e.repl.free[:n-1]
	} else {
		r = int32(len(e.repl.runs))
		e.repl.runs = append(e.repl.runs, replicaRun{})
	}
	run := &e.repl.runs[r]
	gen := run.gen + 1
	*run = replicaRun{job: j, machine: mi, slot: si, start: e.now, lastUpdate: e.now, remaining: e.workOn(j, mi),
		gen: gen, live: true}
	if e.repl.of == nil {
		e.repl.of = map[int32][]int32{}
	}
	e.repl.of[j] = append(e.repl.of[j], r)
	e.repl.started++
	e.jobs[j].reps++
	m.reps = append(m.reps, r)
	e.slots[si].rep = r
	e.subs[e.subOf(j)].running++
	e.showBusy(si, j)
	e.scheduleReplicaEnd(r, m)
}

func (e *engine) scheduleReplicaEnd(r int32, m *machine) {
	run := &e.repl.runs[r]
	if m.speed > 0 {
		e.q.push(event{t: e.now + run.remaining/m.speed, kind: evReplicaEnd, a: r, gen: run.gen})
	}
}

// replicaEnd handles a replica run's end: it finished first.
func (e *engine) replicaEnd(ev event) {
	run := &e.repl.runs[ev.a]
	if !run.live || run.gen != ev.gen {
		return
	}
	j := run.job
	jb := &e.jobs[j]
	if jb.state != jobRunning {
		return
	}
	// The original instance lost the race.
	pm := e.machines[jb.machine]
	e.wasted += e.now - jb.start
	pm.timeKilled += e.now - jb.start
	e.stopRun(j, pm)
	e.freeAfterRun(jb.machine, jb.slot)
	e.promote(ev.a)
	e.finish(j)
}

// promote makes replica run r its job's run (the original is gone).
func (e *engine) promote(r int32) {
	run := &e.repl.runs[r]
	j := run.job
	jb := &e.jobs[j]
	m := e.machines[run.machine]
	e.dropReplica(r)
	jb.state = jobRunning
	jb.machine, jb.slot = run.machine, run.slot
	jb.start = run.start
	jb.remaining, jb.lastUpdate = max(0, run.remaining-m.speed*(e.now-run.lastUpdate)), e.now
	m.running = append(m.running, j)
	e.slots[run.slot].job = j
	e.running++
	e.runningByType[jb.typ]++
	e.trackRunning(j, true) // the replica's share of its submitter becomes the job's
	if jb.firstStart < 0 || run.start < jb.firstStart {
		jb.firstStart = run.start
	}
	e.scheduleFinish(j, m)
}

// promoteReplica carries a job whose run was lost on with its oldest
// replica; false when it has none.
func (e *engine) promoteReplica(j int32) bool {
	reps := e.repl.of[j]
	if len(reps) == 0 {
		return false
	}
	oldest := int32(-1)
	for _, r := range reps {
		if !e.machines[e.repl.runs[r].machine].up {
			continue // going down with the original
		}
		if oldest < 0 || cmp.Less(e.repl.runs[r].start, e.repl.runs[oldest].start) {
			oldest = r
		}
	}
	if oldest < 0 {
		return false
	}
	e.promote(oldest)
	return true
}

// dropReplica takes replica run r off its machine, slot and job,
// without freeing the slot.
func (e *engine) dropReplica(r int32) {
	run := &e.repl.runs[r]
	m := e.machines[run.machine]
	m.reps = remove32(m.reps, r)
	if s := e.slots[run.slot]; s.rep == r {
		s.rep = -1
	}
	if reps := remove32(e.repl.of[run.job], r); len(reps) > 0 {
		e.repl.of[run.job] = reps
	} else {
		delete(e.repl.of, run.job)
	}
	run.live = false
	run.gen++
	e.repl.free = append(e.repl.free, r)
}

// endReplica stops replica run r: its time is busy time, wasted when it
// was killed; the slot is freed.
func (e *engine) endReplica(r int32, killed bool) {
	run := &e.repl.runs[r]
	m := e.machines[run.machine]
	d := e.now - run.start
	m.busy += d
	if killed {
		m.timeKilled += d
		e.wasted += d
	}
	e.subs[e.subOf(run.job)].running--
	si := run.slot
	e.dropReplica(r)
	e.showIdle(si)
	if e.dispatch == Pull && m.up {
		e.free.add(si)
	}
}

// killReplicas kills the replicas of a job that finished.
func (e *engine) killReplicas(j int32) {
	for len(e.repl.of[j]) > 0 {
		e.endReplica(e.repl.of[j][0], true)
	}
}

// loseReplicas aborts the replica runs of a machine that went down.
func (e *engine) loseReplicas(m *machine) {
	for len(m.reps) > 0 {
		r := m.reps[len(m.reps)-1]
		run := &e.repl.runs[r]
		d := e.now - run.start
		m.aborted++
		m.timeAbort += d
		e.recordAbort(m, run.job, d)
		e.endReplica(r, false)
	}
}

// respeedReplicas brings a machine's replica runs to a new speed.
func (e *engine) respeedReplicas(m *machine, old float64) {
	for _, r := range m.reps {
		run := &e.repl.runs[r]
		run.remaining = max(0, run.remaining-old*(e.now-run.lastUpdate))
		run.lastUpdate = e.now
		run.gen++
	}
	for _, r := range m.reps {
		e.scheduleReplicaEnd(r, m)
	}
}

// trackRunning keeps an autocluster's list of running jobs, which its
// replica request offers.
func (e *engine) trackRunning(j int32, on bool) {
	if !e.replicating() {
		return
	}
	a := e.acs[e.jobs[j].ac]
	if on {
		a.running = append(a.running, j)
		return
	}
	a.running = remove32(a.running, j)
}

// remove32 removes v from s, moving the last element into its place.
func remove32(s []int32, v int32) []int32 {
	for k, x := range s {
		if x == v {
			s[k] = s[len(s)-1]
			return s[:len(s)-1]
		}
	}
	return s
}
