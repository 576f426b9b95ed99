package schedd

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// A DAG that finishes leaves the live store in the transaction that
// records its end: its record and its nodes' are deleted and its ad goes
// to the history, as the DAGMan job's ad does when condor_dagman exits
// (kite history shows it: ClusterId the DAG's id, JobUniverse 7, Cmd
// condor_dagman, the DAG_* counts, ExitCode). So the live store holds only DAGs that run, however
// many have run. The schedd keeps the last dagKeepFinished finished DAGs
// in memory, with their nodes, for kite submit_dag --wait and kite q -dag,
// and in the store their final ads and graphs (bounded: dag_finished.go),
// which outlive a restart; older ones are found in the history.

// dagKeepFinished is how many finished DAGs the schedd keeps in memory,
// and their records in the store.
const dagKeepFinished = 64

// retireDAG records in tx that a DAG is over: its ad to the history, its
// records out of the store, and the DAG from the running ones to the
// recently finished.
func (s *Server) retireDAG(tx *queue.Tx, st *dagState) {
	ds := s.dags
	now := s.now().Unix()
	ad := s.dagAd(st)
	ad.Set(attr.JobUniverse, ast.Int(attr.UniverseScheduler))
	ad.Set(attr.Cmd, ast.Str("condor_dagman")) // what kite history shows, as for HTCondor's DAGMan job
	ad.Set(attr.Arguments, ast.Str("-Dag "+st.rec.DAG.File))
	ad.Set(attr.CompletionDate, ast.Int(now))
	ad.Set(attr.EnteredCurrentStatus, ast.Int(now))
	adJSON := classad.AppendJSON(nil, ad, false)
	tx.AddHistory(adJSON)
	s.keepFinished(tx, st, adJSON) // its picture (dag_finished.go)
	s.dagNote(st, "DAGMAN_FINISHED "+strconv.Itoa(st.rec.ExitCode),
		fmt.Sprintf("DAG %s (id %d) is over: status %d, exit %d", st.rec.DAG.File, st.rec.ID, st.rec.Status, st.rec.ExitCode))
	s.flushJournal(tx, st, false, true)
	tx.PutAux(dagKey(st.rec.ID), nil)
	for i := range st.run.Nodes {
		tx.PutAux(dagNodeKey(st.rec.ID, i), nil)
	}
	id := st.rec.ID
	s.subDAGDone(tx, st)
	delete(ds.m, id)
	done := ds.done
	ds.done = append(ds.done, st)
	if len(ds.done) > dagKeepFinished {
		ds.done = slices.Delete(slices.Clone(ds.done), 0, len(ds.done)-dagKeepFinished)
	}
	tx.OnRollback(func() {
		ds.m[id] = st
		ds.done = done
	})
}

// finishedDAG returns a finished DAG's info, shaped by the query: from
// memory when it is among the recent ones, else from its record in the
// store (dag_finished.go), else its ad from the history (without its
// nodes: a DAG that finished before the last dagKeepFinished).
func (s *Server) finishedDAG(q *wire.DAGQuery, id int64) (wire.DAGInfo, bool) {
	var info wire.DAGInfo
	found := false
	s.q.Read(func(rd *queue.Reader) {
		for _, st := range s.dags.done {
			if st.rec.ID == id {
				info, found = shapeDAGInfo(q, rd, st, s.dagInfo(st)), true
			}
		}
	})
	if found {
		return info, true
	}
	if info, ok := s.storedFinished(q, id); ok {
		return info, true
	}
	err := s.q.History(func(raw []byte) bool {
		if !bytes.Contains(raw, []byte(`"`+attr.DAGStatus+`"`)) {
			return true
		}
		ad, err := classad.ParseJSON(raw)
		if err != nil {
			return true
		}
		if c, _ := classad.EvalInt(ad, attr.ClusterID); c != id {
			return true
		}
		if _, ok := ad.Lookup(attr.DAGNodesTotal); !ok {
			return true
		}
		info, found = wire.DAGInfo{Ad: bytes.Clone(raw), Nodes: []wire.DAGNode{}}, true
		return false
	})
	if err != nil {
		s.log.Warn("DAGs: reading the history", "err", err)
	}
	return info, found
}
