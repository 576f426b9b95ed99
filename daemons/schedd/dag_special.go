package schedd

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/dag"
)

// PROVISIONER and SERVICE nodes (the HTCondor manual,
// dagman-advance-functionality.rst, "PROVISIONER Node" and "SERVICE
// Node"). The run (internal/dag) starts them first and holds the other
// nodes back until the provisioner is ready; the schedd learns that the
// provisioner is ready from its job's ad, in the transaction that sets
// it, and removes the SERVICE nodes' jobs when the rest of the DAG is
// over.

// provisionerState is the job attribute a PROVISIONER node's job sets
// (by kite qedit, as condor_qedit or chirp would) to say it is ready,
// and provisioningComplete the value that says so
// (ProvisionerState::PROVISIONING_COMPLETE).
const (
	provisionerState     = "ProvisionerState"
	provisioningComplete = 2
)

// provisionerReady notes, in the queue's hook, a PROVISIONER node job
// whose ad now says PROVISIONING_COMPLETE: the DAG's other nodes may
// start. The note is written in the same transaction.
func (s *Server) provisionerReady(tx *queue.Tx, c *queue.Cluster, st *dagState, node int) {
	if node != st.rec.DAG.Provisioner || st.run.ProvisionerReady {
		return
	}
	for j := range c.Jobs {
		if tx.Job(j.ID) == nil {
			continue
		}
		if v := tx.View(j); v.Int(provisionerState, 0) == provisioningComplete {
			st.run.SetProvisionerReady()
			s.dagNote(st, "", "PROVISIONER node "+st.rec.DAG.Nodes[node].Name+" job "+j.ID.String()+" said it is ready")
			return
		}
	}
}

// stopServices removes the jobs of a DAG's SERVICE nodes that still run
// when the rest of the DAG is over (DAGMan removes them as it exits).
func (s *Server) stopServices(tx *queue.Tx, st *dagState) {
	running := st.run.RunningServices()
	if len(running) == 0 {
		return
	}
	reason := "DAG " + strconv.FormatInt(st.rec.ID, 10) + " is over: its SERVICE nodes are removed"
	s.stopNodeJobs(tx, st, reason, func(i int) bool { return st.rec.DAG.Nodes[i].Kind == dag.KindService })
}

// savePoint renders a node's save point file as the node first starts
// (not on a retry): the DAG's state as a rescue DAG, written once tx is
// durable (the HTCondor manual, dagman-completion.rst "DAG Save Point
// Files"). Without a directory in its name the file goes in save_files
// in the DAG's directory; a relative path is from the DAG's directory.
func (s *Server) savePoint(tx *queue.Tx, st *dagState, node int) {
	rec := &st.rec
	path := dag.SavePointPath(rec.Dir, rec.DAG.Nodes[node].SavePoint)
	var b bytes.Buffer
	_ = dag.WriteRescue(&b, st.run, s.now()) // a buffer: cannot fail
	s.dags.writes++
	w := fileWrite{seq: s.dags.writes, account: rec.Account, path: path, data: b.Bytes(), save: true}
	tx.AfterCommit(func() { s.dags.files.add([]fileWrite{w}) })
}

// writeSavePoint writes a save point file, first renaming one that is
// there to .old (as DAGMan does).
func writeSavePoint(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.Rename(path, path+".old"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
