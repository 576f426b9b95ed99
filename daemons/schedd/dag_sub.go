package schedd

import (
	"fmt"
	"os"
	"strconv"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

// SUBDAG EXTERNAL nodes (the HTCondor manual, dagman-using-other-dags.rst
// "A DAG Within a DAG Is a SUBDAG"): the node's job is a whole DAG, which
// DAGMan runs as a nested condor_dagman job. The schedd runs it as a DAG
// of its own, under a new id (the node's "job"), whose ad names its
// parent (DAGManJobId, DAGNodeName). The node's job succeeds when the
// nested DAG does: its $RETURN is the nested DAG's exit code, which the
// POST script, RETRY and ABORT-DAG-ON see as a job's.
//
// The nested DAG's file is read when the node is submitted, as the
// DAG's owner (a PRE script may write it), with the files it includes
// and splices; its working directory, where its paths start, is the
// outer DAG's, or the node's DIR ("SUBDAG Working Directory"). Its newest
// rescue DAG is applied, as DAGMan's nested condor_dagman applies it by
// default ("SUBDAGs and Rescue"). So a nested DAG that failed wrote
// its own rescue DAG, and the node's retry, or the outer DAG run again
// from its rescue DAG, runs only what of the nested DAG did not succeed.
// Removing the outer DAG removes the nested ones; holding it does not
// hold them (each is a DAG of its own, as each DAGMan job is a job).

// maxDAGDepth bounds the nesting of SUBDAG EXTERNAL nodes: a DAG that
// nests itself fails its node there rather than nesting forever.
const maxDAGDepth = 16

// readSubDAG reads and parses a SUBDAG EXTERNAL node's DAG as the DAG's
// owner and applies its newest rescue DAG.
func (s *Server) readSubDAG(st *dagState, i int) (*dag.DAG, error) {
	rec := &st.rec
	if rec.Depth+1 > maxDAGDepth {
		return nil, fmt.Errorf("SUBDAG EXTERNAL: DAGs nested more than %d deep", maxDAGDepth)
	}
	n := rec.DAG.Nodes[i]
	path := inDir(nodeDir(rec, n), n.Submit)
	read := func(name string) (b []byte, err error) {
		err = s.ids.Do(rec.Account, func() error { b, err = os.ReadFile(name); return err })
		return b, err
	}
	src, err := read(path)
	if err != nil {
		return nil, err
	}
	d, err := dag.Parse(path, src, dag.Options{Dir: nodeDir(rec, n), ReadFile: read})
	if err != nil {
		return nil, err
	}
	newest, err := dag.NewestRescue(path, func(name string) error {
		return s.ids.Do(rec.Account, func() error { _, err := os.Stat(name); return err })
	})
	if err != nil {
		return nil, err
	}
	if newest > 0 {
		rescue := dag.RescueName(path, newest)
		rsrc, err := read(rescue)
		if err != nil {
			return nil, err
		}
		if err := dag.ApplyRescue(d, rescue, rsrc); err != nil {
			return nil, err
		}
	}
	return d, runnable(d)
}

// queueSubDAG queues a SUBDAG EXTERNAL node's DAG under id in tx and
// marks the node submitted with it.
func (s *Server) queueSubDAG(tx *queue.Tx, st *dagState, i int, id int64, d *dag.DAG) error {
	rec := &st.rec
	child := &dagState{rec: dagRecord{
		ID: id, Owner: rec.Owner, Account: rec.Account, Dir: nodeDir(rec, rec.DAG.Nodes[i]), DAG: d,
		QDate: s.now().Unix(), BatchName: rec.BatchName, OutDir: rec.OutDir,
		Parent: rec.ID, ParentNode: i, NodeName: rec.DAG.Nodes[i].Name, Depth: rec.Depth + 1,
		Priority: rec.Priority + rec.DAG.Nodes[i].Priority,
	}, run: dag.NewRun(d), inflight: map[int]bool{}}
	if err := s.addDAG(tx, child); err != nil {
		return err
	}
	st.run.Submitted(i, id, "")
	s.nodeEvent(st, i, "SUBMIT", strconv.FormatInt(id, 10)+".0", "SUBDAG "+d.File)
	return nil
}

// subDAGDone ends, in tx, the node of the DAG a finished nested DAG was
// run for, with the nested DAG's exit code.
func (s *Server) subDAGDone(tx *queue.Tx, child *dagState) {
	rec := &child.rec
	parent := s.dags.m[rec.Parent]
	if rec.Parent == 0 || parent == nil {
		return
	}
	ns := parent.run.Nodes[rec.ParentNode]
	if ns.Status != dag.Submitted || ns.Cluster != rec.ID {
		return // the node ended already (its DAG was removed)
	}
	s.nodeEvent(parent, rec.ParentNode, "JOB_TERMINATED", strconv.FormatInt(rec.ID, 10)+".0", "")
	s.nodeJobsDone(parent, rec.ParentNode, rec.ExitCode)
	s.settleDAG(tx, parent)
}

// stopSubDAG removes the nested DAG of a SUBDAG EXTERNAL node whose DAG
// stops.
func (s *Server) stopSubDAG(tx *queue.Tx, id int64) {
	child := s.dags.m[id]
	if child == nil || child.rec.Finished || child.run.Removed {
		return
	}
	s.actDAG(tx, child, wire.ActRemove, "")
}
