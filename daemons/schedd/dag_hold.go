package schedd

import (
	"context"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
)

// Holding a DAG (kite hold of its id, as condor_hold of the DAGMan job:
// the HTCondor manual, dagman-interaction.rst "Suspending a Running
// DAG") pauses it: no node job is submitted and no script starts, the PRE
// and POST scripts that run are killed (they run again after the
// release, as DAGMan's recovery runs them again), and the node jobs in
// the queue go on undisturbed; their ends are recorded as they come. A
// held DAG does not finish, even when nothing of it runs any more. kite
// release resumes it. The hold is part of the DAG's record: it outlives a
// restart.
//
// A node job that goes on hold runs the node's HOLD script (SCRIPT HOLD;
// dagman-introduction.rst "Scripts"): after the commit
// that holds the job, on a best-effort basis; its exit status changes
// nothing and it is not run again after a restart. At most MaxHold run
// at once (-maxhold, DAGMan's -MaxHold; dag_throttle.go): the others
// wait, in order, for one to end.

// holdDAG holds a running DAG in tx, killing its scripts once the hold is
// durable.
func (s *Server) holdDAG(tx *queue.Tx, st *dagState, reason string) bool {
	if st.rec.Held {
		return false
	}
	old := st.rec
	st.rec.Held, st.rec.HoldReason = true, reason
	s.putDAGRecord(tx, st)
	s.dagNote(st, "", "DAG held: "+reason)
	s.flushJournal(tx, st, false, true)
	tx.OnRollback(func() { st.rec = old })
	if stop := st.stopScripts; stop != nil {
		ctx := st.runCtx
		st.runCtx, st.stopScripts = nil, nil // a new one after the release
		tx.OnRollback(func() { st.runCtx, st.stopScripts = ctx, stop })
		tx.AfterCommit(stop)
	}
	return true
}

// releaseDAG releases a held DAG in tx; the pump goes on with it.
func (s *Server) releaseDAG(tx *queue.Tx, st *dagState) bool {
	if !st.rec.Held {
		return false
	}
	old := st.rec
	st.rec.Held, st.rec.HoldReason = false, ""
	s.putDAGRecord(tx, st)
	s.dagNote(st, "", "DAG released")
	s.flushJournal(tx, st, false, false)
	tx.OnRollback(func() { st.rec = old })
	tx.AfterCommit(s.dags.wake)
	return true
}

// scriptContext is the context a DAG's scripts run in: done when the
// schedd stops or the DAG is held. Call it with the queue locked.
func (st *dagState) scriptContext(parent context.Context) context.Context {
	if st.runCtx == nil {
		st.runCtx, st.stopScripts = context.WithCancel(parent)
	}
	return st.runCtx
}

// heldNodeJobs finds, in the hook's transaction, the jobs of a node that
// go on hold now and starts the node's HOLD script for each once the hold
// is durable.
func (s *Server) heldNodeJobs(tx *queue.Tx, c *queue.Cluster, st *dagState, node int) {
	sc := st.rec.DAG.Nodes[node].Scripts[dag.Hold]
	if sc == nil || st.rec.Held {
		return
	}
	for j := range c.Jobs {
		if tx.Job(j.ID) == nil || j.Status() == attr.Held || tx.Status(j) != attr.Held {
			continue
		}
		w := nodeWork{st: st, node: node, argv: scriptArgs(st, node, dag.Hold), ctx: st.scriptContext(s.dags.ctx)}
		w.argv = withJobID(w.argv, sc.Argv, j.ID)
		s.queueHoldScript(tx, st, w)
	}
}

// withJobID puts the held job's id for $JOBID in a HOLD script's
// arguments (a node's jobs are one cluster, each held on its own).
func withJobID(argv, raw []string, id queue.JobID) []string {
	for k := 1; k < len(raw); k++ {
		if raw[k] == "$JOBID" {
			argv[k] = id.String()
		}
	}
	return argv
}

// runHoldScript runs a HOLD script, best effort: its status is logged.
// Its end lets a HOLD script that waits start, unless life, the
// schedd's, is over.
func (s *Server) runHoldScript(w nodeWork, life context.Context) {
	rec := &w.st.rec
	n := rec.DAG.Nodes[w.node]
	rc := s.runScript(w.ctx, rec, n, dag.Hold, w.argv)
	s.log.Info("DAG HOLD script ran", "dag", rec.ID, "node", n.Name, "status", rc)
	if life.Err() == nil { // not the schedd stopping
		s.holdScriptDone(w.st)
	}
}
