package sim

import (
	"math"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// The simulated startds: machines that fail, are repaired, switch off
// for the night, crash for good, and slow down under their owners' load.

// initMachine schedules a machine's availability and load processes and
// brings it up unless something holds it down at time 0.
func (e *engine) initMachine(mi int32, m *machine) {
	mg := &e.st.Machines[m.group]
	if s := mg.Schedule; s != nil {
		on, next := s.at(0)
		m.off = !on
		kind := evOff
		if !on {
			kind = evOn
		}
		if !math.IsInf(next, 1) {
			e.q.push(event{t: next, kind: kind, a: mi})
		}
	}
	for _, d := range mg.Down {
		if d[0] <= 0 {
			m.downs++
		} else {
			e.q.push(event{t: d[0], kind: evDown, a: mi})
		}
		e.q.push(event{t: d[1], kind: evDownEnd, a: mi})
	}
	if l := mg.Load; l != nil {
		m.speed = m.peak * speedIn(m.loadRNG, l.Steady)
		e.q.push(event{t: l.sojourn(m.loadRNG, l.ToLoaded), kind: evSpeed, a: mi, gen: m.loadGen})
	}
	if m.crashing {
		e.q.push(event{t: mg.Crash.At.Sample(m.failRNG), kind: evCrash, a: mi})
	}
	e.update(mi)
}

// chooseCrashing marks each group's crashing machines: the first
// round(fraction × count) of a seeded shuffle.
func (e *engine) chooseCrashing() {
	first := 0
	for g := range e.st.Machines {
		mg := &e.st.Machines[g]
		if c := mg.Crash; c != nil {
			n := int(math.Round(c.Fraction * float64(mg.Count)))
			for k, p := range stream(e.seed, "crash", g).Perm(mg.Count) {
				e.machines[first+k].crashing = p < n
			}
		}
		first += mg.Count
	}
}

// at returns whether a schedule has machines on at t, and when it next
// switches.
func (s *Schedule) at(t float64) (on bool, next float64) {
	k := math.Floor((t - s.Phase) / s.Period)
	begin := s.Phase + k*s.Period
	if t < begin+s.Up {
		if s.Up == s.Period {
			return true, math.Inf(1)
		}
		return true, begin + s.Up
	}
	return false, begin + s.Period
}

// machineEvent handles a change of a machine's availability or load.
func (e *engine) machineEvent(ev event) {
	m := e.machines[ev.a]
	mg := &e.st.Machines[m.group]
	switch ev.kind {
	case evFail:
		if ev.gen != m.failGen || !m.up {
			return
		}
		m.failed = true
		m.restarts++
		e.q.push(event{t: e.now + mg.Failure.Repair.Sample(m.failRNG), kind: evRepair, a: ev.a})
	case evRepair:
		m.failed = false
	case evCrash:
		m.crashed = true
		m.restarts++
		if r := mg.Crash.Repair; r != nil {
			e.q.push(event{t: e.now + r.Sample(m.failRNG), kind: evCrashRepair, a: ev.a})
		}
	case evCrashRepair:
		m.crashed = false
	case evOff, evOn:
		on, next := mg.Schedule.at(e.now)
		m.off = !on
		kind := evOff
		if !on {
			kind = evOn
		}
		if !math.IsInf(next, 1) {
			e.q.push(event{t: next, kind: kind, a: ev.a})
		}
	case evDown:
		m.downs++
	case evDownEnd:
		m.downs--
	case evSpeed:
		if ev.gen != m.loadGen {
			return
		}
		l := mg.Load
		m.loaded = !m.loaded
		rng, leave := l.Steady, l.ToLoaded
		if m.loaded {
			rng, leave = l.Loaded, l.ToSteady
		}
		e.setSpeed(ev.a, m.peak*speedIn(m.loadRNG, rng))
		e.q.push(event{t: e.now + l.sojourn(m.loadRNG, leave), kind: evSpeed, a: ev.a, gen: m.loadGen})
		return
	}
	e.update(ev.a)
}

// update brings a machine up or down as its reasons say.
func (e *engine) update(mi int32) {
	m := e.machines[mi]
	up := !(m.failed || m.crashed || m.off || m.downs > 0)
	switch {
	case up && !m.up:
		e.bringUp(mi)
	case !up && m.up:
		e.takeDown(mi)
	}
}

// returns reports whether a machine that is down will come back.
func (e *engine) returns(m *machine) bool {
	if m.crashed && e.st.Machines[m.group].Crash.Repair == nil {
		return false
	}
	return true // failures are repaired, nights end, down intervals end
}

func (e *engine) bringUp(mi int32) {
	m := e.machines[mi]
	mg := &e.st.Machines[m.group]
	m.up = true
	m.upSince = e.now
	for _, si := range m.slots {
		s := e.slots[si]
		s.ad.Set(attr.DaemonStartTime, ast.Int(int64(epoch+math.Floor(e.now))))
		e.free.add(si)
		e.poolWeight += s.weight
	}
	if f := mg.Failure; f != nil {
		m.failGen++
		if t := f.nextFailure(m.failRNG, e.now); !math.IsInf(t, 1) {
			e.q.push(event{t: t, kind: evFail, a: mi, gen: m.failGen})
		}
	}
	e.wantCycle()
}

// takeDown loses a machine's running jobs (aborted work) and its queue.
func (e *engine) takeDown(mi int32) {
	m := e.machines[mi]
	m.up = false
	m.failGen++
	m.uptimeTotal += e.now - m.upSince
	e.recordUp(m, e.now-m.upSince)
	m.version++
	for len(m.running) > 0 {
		j := m.running[len(m.running)-1]
		jb := &e.jobs[j]
		run := e.now - jb.start
		e.stopRun(j, m)
		m.aborted++
		m.timeAbort += run
		jb.aborts++
		e.recordAbort(m, j, run)
		if e.dispatch == Pull {
			e.slots[jb.slot].job = -1
			e.showIdle(jb.slot)
		}
		if !e.promoteReplica(j) {
			e.lose(j)
		}
	}
	e.loseReplicas(m)
	for ; m.queueHead < len(m.queue); m.queueHead++ {
		j := m.queue[m.queueHead]
		e.queued--
		e.lose(j)
	}
	m.queue, m.queueHead, m.queuedWork = m.queue[:0], 0, 0
	for _, si := range m.slots {
		e.free.remove(si)
		e.poolWeight -= e.slots[si].weight
	}
}

// lose sends a job back to its schedd: idle again after the requeue delay.
func (e *engine) lose(j int32) {
	jb := &e.jobs[j]
	jb.machine, jb.slot = -1, -1
	if d := e.st.Pool.RequeueDelay; d > 0 {
		jb.state = jobAway
		e.away++
		e.q.push(event{t: e.now + d, kind: evRequeue, a: j, gen: jb.gen})
		return
	}
	e.pushIdle(j)
	e.wantCycle()
}

// setSpeed changes a machine's speed: its running jobs keep the work done
// so far and finish at the new pace.
func (e *engine) setSpeed(mi int32, speed float64) {
	m := e.machines[mi]
	for _, j := range m.running {
		jb := &e.jobs[j]
		jb.remaining = math.Max(0, jb.remaining-m.speed*(e.now-jb.lastUpdate))
		jb.lastUpdate = e.now
		jb.gen++
	}
	old := m.speed
	m.speed = speed
	for _, j := range m.running {
		e.scheduleFinish(j, m)
	}
	e.respeedReplicas(m, old)
	for _, si := range m.slots {
		setNumber(e.slots[si].ad, attr.KiteSpeed, speed)
	}
}
