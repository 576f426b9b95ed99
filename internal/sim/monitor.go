package sim

import (
	"fmt"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/reliability"
)

// Node monitoring (pool.monitor, or a strategy that needs it): the
// simulated pool keeps internal/reliability's record of every machine —
// its benchmark, the work times of the jobs it finished and lost, its
// periods up — and of every job type's runtimes, as the live pool does,
// and publishes them: the machine's in its slots' ads
// (KiteReliability, ...), the type's in the ads of its requests
// (KiteTypeRunning, ...). A run killed because another instance of its
// job finished first is neither a success nor a failure of its machine.
// With a strategy that reads busy slots (policy.Needs.Running), a busy
// slot's ad shows the job it runs (State "Claimed", JobId, KiteJobType,
// KiteBatch), as a startd copying job attributes would.

// prepareExtras sets up monitoring and replication for a run.
func (e *engine) prepareExtras() {
	e.monitor = e.st.Pool.Monitor || e.needs.Monitoring
	e.arrivedByType = make([]int, len(e.w.types))
	if e.monitor {
		e.nodes = make([]reliability.Node, len(e.machines))
		for k, m := range e.machines {
			e.nodes[k].Benchmark = m.bench
			e.publishNode(int32(k))
		}
		e.typeRec = make([]reliability.JobType, len(e.w.types))
	}
	if e.dispatch == Pull {
		e.repl.max = e.st.Pool.Replicas
	}
}

// publishNode writes a machine's monitoring into its slots' ads.
func (e *engine) publishNode(mi int32) {
	n := &e.nodes[mi]
	for _, si := range e.machines[mi].slots {
		n.Publish(e.slots[si].ad)
	}
}

// recordDone notes a job machine m finished after run seconds.
func (e *engine) recordDone(m *machine, j int32, run float64) {
	if !e.monitor {
		return
	}
	jb := &e.jobs[j]
	mi := e.machineIndex(m)
	e.nodes[mi].Done(run, e.expected(j, mi))
	e.typeRec[jb.typ].Done(run)
	e.publishNode(mi)
}

// recordAbort notes a job machine m lost after run seconds.
func (e *engine) recordAbort(m *machine, j int32, run float64) {
	if !e.monitor {
		return
	}
	mi := e.machineIndex(m)
	e.nodes[mi].Abort(run, e.expected(j, mi))
	e.publishNode(mi)
}

// recordUp notes a period up that ended.
func (e *engine) recordUp(m *machine, seconds float64) {
	if !e.monitor {
		return
	}
	mi := e.machineIndex(m)
	e.nodes[mi].Up(seconds)
	e.publishNode(mi)
}

// expected is the runtime machine mi's power promises job j.
func (e *engine) expected(j, mi int32) float64 {
	m := e.machines[mi]
	if m.peak <= 0 {
		return 0
	}
	return e.workOn(j, mi) / m.peak
}

// machineIndex finds a machine's index from its first slot.
func (e *engine) machineIndex(m *machine) int32 { return e.slots[m.slots[0]].machine }

// publishType writes a job type's statistics into a request's ad.
func (e *engine) publishType(ad *classad.Ad, typ int32) {
	if !e.monitor {
		return
	}
	reliability.PublishType(ad, &e.typeRec[typ], e.arrivedByType[typ], e.doneByType[typ], e.runningByType[typ])
}

// showJobAd writes a generated job's own values into an ad showing it.
func (e *engine) showJobAd(ad *classad.Ad, j int32) {
	jb := &e.jobs[j]
	batch := ""
	if jb.batch >= 0 {
		batch = e.w.batches[jb.batch].name
	}
	showJob(ad, jb, e.groups[jb.group].sizeAttr, batch)
	if jb.batch >= 0 {
		setNumber(ad, attr.KiteBatchWork, e.batchWork(jb.batch))
	}
}

// batchWork is the total work of a batch's tasks.
func (e *engine) batchWork(b int32) float64 {
	if e.batchWorks == nil {
		e.batchWorks = make([]float64, len(e.w.batches))
		for i := range e.jobs {
			if k := e.jobs[i].batch; k >= 0 {
				e.batchWorks[k] += e.jobs[i].work
			}
		}
	}
	return e.batchWorks[b]
}

// showBusy makes a busy slot's ad show the job it runs, for strategies
// that read busy slots.
func (e *engine) showBusy(si, j int32) {
	if !e.needs.Running || e.dispatch != Pull {
		return
	}
	ad := e.slots[si].ad
	jb := &e.jobs[j]
	ad.Set(attr.State, ast.Str("Claimed"))
	ad.Set(attr.Activity, ast.Str("Busy"))
	ad.Set(attr.JobID, ast.Str(fmt.Sprintf("%d.%d", jb.group+1, jb.index)))
	ad.Set(attr.KiteJobType, ast.Str(e.w.types[jb.typ]))
	if jb.batch >= 0 {
		ad.Set(attr.KiteBatch, ast.Str(e.w.batches[jb.batch].name))
	}
}

// showIdle undoes showBusy when a slot is free again.
func (e *engine) showIdle(si int32) {
	if !e.needs.Running || e.dispatch != Pull {
		return
	}
	ad := e.slots[si].ad
	ad.Set(attr.State, ast.Str("Unclaimed"))
	ad.Set(attr.Activity, ast.Str("Idle"))
	ad.Delete(attr.JobID)
	ad.Delete(attr.KiteJobType)
	ad.Delete(attr.KiteBatch)
}
