package sim

import (
	"math"
	"strconv"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/matchmaker"
)

// run plays the events until every job is done, the duration is reached,
// or nothing more can happen.
func (e *engine) run() error {
	e.start()
	for e.q.len() > 0 && e.done < len(e.jobs) {
		if e.events&0xfff == 0 {
			if err := e.ctx.Err(); err != nil {
				return err
			}
		}
		e.events++
		ev := e.q.pop()
		if ev.t > e.limit {
			e.advance(e.limit)
			break
		}
		e.advance(ev.t)
		e.handle(ev)
		if e.stuck() {
			e.stalled = true
			break
		}
	}
	e.finishRun()
	return nil
}

// advance moves the clock, integrating the slots that are up.
func (e *engine) advance(t float64) {
	e.availAcc += e.poolWeight * (t - e.availT)
	e.availT = t
	e.now = t
}

// start puts every machine in its initial state and schedules the first
// arrival and sample.
func (e *engine) start() {
	e.chooseCrashing()
	for k, m := range e.machines {
		e.initMachine(int32(k), m)
	}
	if len(e.jobs) > 0 {
		e.q.push(event{t: e.jobs[0].arrival, kind: evArrival})
	}
	e.series.init(e.sampleStep(), len(e.w.types))
	e.q.push(event{t: 0, kind: evSample})
}

func (e *engine) sampleStep() float64 {
	if e.st.Sample > 0 {
		return e.st.Sample
	}
	if !e.capped {
		return e.limit / 200
	}
	return math.Max(e.horizon()/200, 1e-3)
}

func (e *engine) handle(ev event) {
	switch ev.kind {
	case evFinish:
		if jb := &e.jobs[ev.a]; jb.state == jobRunning && jb.gen == ev.gen {
			e.finish(ev.a)
		}
	case evReplicaEnd:
		e.replicaEnd(ev)
	case evArrival:
		e.arrive()
	case evRequeue:
		if jb := &e.jobs[ev.a]; jb.state == jobAway && jb.gen == ev.gen {
			e.away--
			e.pushIdle(ev.a)
			e.wantCycle()
		}
	case evCycle:
		if ev.gen == e.cycleGen {
			e.pending = false
			e.cycle()
		}
	case evSample:
		e.series.record(e.now, e.runningByType, e.doneByType)
		e.q.push(event{t: e.now + e.series.step, kind: evSample})
	default:
		e.machineEvent(ev)
	}
}

// arrive makes every job due now idle.
func (e *engine) arrive() {
	if !e.firstSeen {
		e.firstSeen, e.availAtFirst = true, e.availAcc
	}
	for e.next < len(e.jobs) && e.jobs[e.next].arrival <= e.now {
		e.arrivedByType[e.jobs[e.next].typ]++
		e.observeArrival(int32(e.next))
		e.pushIdle(int32(e.next))
		e.next++
	}
	e.maybeTune()
	if e.next < len(e.jobs) {
		e.q.push(event{t: e.jobs[e.next].arrival, kind: evArrival})
	}
	e.wantCycle()
}

// stuck reports a run that cannot go on: idle jobs that no cycle matched,
// and nothing left that could change that (no job running, queued,
// arriving or coming back, no cycle due, no machine to come back).
func (e *engine) stuck() bool {
	if e.idle == 0 || e.pending || e.running > 0 || e.queued > 0 || e.next < len(e.jobs) || e.away > 0 {
		return false
	}
	for _, m := range e.machines {
		if !m.up && e.returns(m) {
			return false
		}
	}
	return true
}

// wantCycle asks for a cycle as soon as the cycle delay allows, when one
// could match something.
func (e *engine) wantCycle() {
	if !e.matchable() {
		return
	}
	e.scheduleCycle(math.Max(e.now, e.lastCycle+e.st.Pool.CycleDelay))
}

// scheduleCycle makes the next cycle happen at t, unless one is due
// sooner.
func (e *engine) scheduleCycle(t float64) {
	if e.pending && e.cycleAt <= t {
		return
	}
	e.cycleGen++
	e.pending, e.cycleAt = true, t
	e.q.push(event{t: t, kind: evCycle, gen: e.cycleGen})
}

// cycle runs one negotiation cycle on the free slots and idle jobs.
func (e *engine) cycle() {
	e.lastCycle = e.now
	if !e.matchable() {
		return
	}
	e.cycles++
	now := time.Unix(epoch, 0).Add(time.Duration(e.now * float64(time.Second)))
	inUse := make(map[string]float64, len(e.subs))
	for _, s := range e.subs {
		if s.running > 0 {
			inUse[s.name] = float64(s.running)
		}
	}
	_ = e.acct.Update(now, inUse) // in memory: it cannot fail
	snap := &matchmaker.Snapshot{
		Slots:      e.freeAds(),
		Submitters: e.requests(),
		Now:        now,
		Priorities: e.acct.Priorities(),
		PoolWeight: e.poolWeight,
		Pool:       e.pool,
	}
	pol := e.negPol
	pol.Seed = splitmix(e.seed ^ uint64(e.cycles)*0x9e3779b97f4a7c15)
	res := matchmaker.Cycle(snap, &pol)
	for i := range res.Matches {
		e.match(&res.Matches[i])
	}
	e.matches += len(res.Matches)
	if !e.matchable() {
		return
	}
	switch {
	case len(res.Matches) > 0:
		e.scheduleCycle(e.now + e.st.Pool.CycleDelay)
	case onlyNoMatch(res.Stats.Rejections):
		// Nothing but a change in the pool can help: events ask for the
		// next cycle.
	default:
		e.scheduleCycle(e.now + e.st.Pool.Interval)
	}
}

// matchable reports whether a cycle could match something: a free slot,
// and an idle job or (replicating) a running one.
func (e *engine) matchable() bool {
	return len(e.free.idx) > 0 && (e.idle > 0 || e.replicating() && e.running > 0)
}

func onlyNoMatch(r map[string]int) bool {
	for k, n := range r {
		if n > 0 && k != "no-match" {
			return false
		}
	}
	return true
}

// splitmix scrambles a seed (SplitMix64's finalizer).
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// freeAds returns the ads of the free slots, brought up to date.
func (e *engine) freeAds() []*classad.Ad {
	out := e.slotBuf[:0]
	for _, si := range e.free.idx {
		s := e.slots[si]
		m := e.machines[s.machine]
		if e.dispatch == Queue {
			setNumber(s.ad, attr.KiteWorkLeft, e.workLeft(m))
			s.ad.Set(attr.KiteQueueLength, ast.Int(int64(len(m.running)+m.queued())))
		}
		if e.st.Pool.Monitor && s.shown != m.version {
			e.publishCounters(s, m)
		}
		out = append(out, s.ad)
	}
	e.slotBuf = out
	return out
}

// publishCounters writes a machine's job and failure counters into a
// slot's ad.
func (e *engine) publishCounters(s *slotState, m *machine) {
	s.ad.Set(attr.KiteJobsCompleted, ast.Int(int64(m.completed)))
	s.ad.Set(attr.KiteJobsAborted, ast.Int(int64(m.aborted)))
	setNumber(s.ad, attr.KiteWorkTimeCompleted, m.timeCompleted)
	setNumber(s.ad, attr.KiteWorkTimeAborted, m.timeAbort)
	s.ad.Set(attr.KiteRestarts, ast.Int(int64(m.restarts)))
	setNumber(s.ad, attr.KiteUptimeTotal, m.uptimeTotal)
	s.shown = m.version
}

// workLeft is the work a machine still holds: what remains of its running
// jobs now, and its queue.
func (e *engine) workLeft(m *machine) float64 {
	w := m.queuedWork
	for _, j := range m.running {
		jb := &e.jobs[j]
		w += math.Max(0, jb.remaining-m.speed*(e.now-jb.lastUpdate))
	}
	return w
}

// match carries out one match of the cycle.
func (e *engine) match(mt *matchmaker.Match) {
	si, ok := e.byName[mt.SlotName]
	if ok && e.matchReplica(mt.Request, si) {
		return
	}
	id, err := strconv.Atoi(mt.Request)
	if !ok || err != nil || id < 0 || id >= len(e.acs) || !e.free.has(si) {
		return
	}
	a := e.acs[id]
	j := e.pop(a)
	if j < 0 {
		return
	}
	s := e.slots[si]
	m := e.machines[s.machine]
	if e.dispatch == Pull {
		e.free.remove(si)
		e.startRun(j, s.machine, si)
		return
	}
	jb := &e.jobs[j]
	jb.state = jobQueued
	jb.machine = s.machine
	m.queue = append(m.queue, j)
	m.queuedWork += e.workOn(j, s.machine)
	e.queued++
	e.startQueued(s.machine)
	if m.full(e.st.Pool.QueueLimit) {
		e.free.remove(si)
	}
}

// startQueued starts queued jobs on a machine's free cores.
func (e *engine) startQueued(mi int32) {
	m := e.machines[mi]
	for len(m.running) < m.cores && m.queued() > 0 {
		j := m.queue[m.queueHead]
		m.queueHead++
		if m.queueHead > 64 && m.queueHead*2 > len(m.queue) {
			m.queue = append(m.queue[:0], m.queue[m.queueHead:]...)
			m.queueHead = 0
		}
		m.queuedWork -= e.workOn(j, mi)
		e.queued--
		e.startRun(j, mi, m.slots[0])
	}
	if m.queued() == 0 {
		m.queuedWork = 0 // no drift from float sums
	}
}

// startRun starts job j on a machine's slot.
func (e *engine) startRun(j, mi, si int32) {
	jb := &e.jobs[j]
	m := e.machines[mi]
	jb.state = jobRunning
	jb.start, jb.lastUpdate, jb.remaining = e.now, e.now, e.workOn(j, mi)
	if jb.firstStart < 0 {
		jb.firstStart = e.now
	}
	jb.machine, jb.slot = mi, si
	if e.dispatch == Pull {
		e.slots[si].job = j
		e.showBusy(si, j)
	}
	e.trackRunning(j, true)
	m.running = append(m.running, j)
	e.running++
	e.runningByType[jb.typ]++
	e.subs[e.subOf(j)].running++
	e.scheduleFinish(j, m)
}

func (e *engine) subOf(j int32) int32 { return e.acs[e.jobs[j].ac].sub }

func (e *engine) scheduleFinish(j int32, m *machine) {
	jb := &e.jobs[j]
	if m.speed > 0 {
		e.q.push(event{t: e.now + jb.remaining/m.speed, kind: evFinish, a: j, gen: jb.gen})
	}
}

// finish completes job j's run.
func (e *engine) finish(j int32) {
	jb := &e.jobs[j]
	m := e.machines[jb.machine]
	e.stopRun(j, m)
	run := e.now - jb.start
	m.completed++
	m.timeCompleted += run
	m.workDone += jb.work
	jb.state = jobDone
	jb.finish = e.now
	e.done++
	e.doneByType[jb.typ]++
	e.recordDone(m, j, run)
	e.freeAfterRun(jb.machine, jb.slot)
	e.killReplicas(j)
	e.wantCycle()
}

// stopRun takes job j off its machine.
func (e *engine) stopRun(j int32, m *machine) {
	jb := &e.jobs[j]
	for k, r := range m.running {
		if r == j {
			m.running[k] = m.running[len(m.running)-1]
			m.running = m.running[:len(m.running)-1]
			break
		}
	}
	m.busy += e.now - jb.start
	m.version++
	jb.gen++
	e.trackRunning(j, false)
	e.running--
	e.runningByType[jb.typ]--
	e.subs[e.subOf(j)].running--
}

// freeAfterRun frees what a run held: its slot (pull), or a core that the
// queue's next job takes (queue).
func (e *engine) freeAfterRun(mi, si int32) {
	m := e.machines[mi]
	if e.dispatch == Pull {
		e.slots[si].job = -1
		e.showIdle(si)
		if m.up {
			e.free.add(si)
		}
		return
	}
	e.startQueued(mi)
	if m.up && !m.full(e.st.Pool.QueueLimit) {
		e.free.add(m.slots[0])
	}
}
