package schedd

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
)

// DAGs (HTCondor's DAGMan, run by the schedd itself). A DAG's state
// lives in the queue's store beside its node jobs, and changes in the
// same transactions as they do: the queue's hook sees a node job leave
// the queue (completed or removed) and records the node's end in the
// transaction that records the job's, so a schedd that stops at any
// moment loses no progress, and a node is marked submitted in the
// transaction that submits its job, so no node runs twice.
//
// Storage (the queue's aux bucket; ids zero-padded so keys sort):
//
//	dag/<id>           the DAG: its parsed file, owner, throttles, flags
//	dagn/<id>/<node>   a node's state (dag.NodeState)
//
// both deleted, and the DAG's ad added to the history, in the transaction
// that records the DAG's end (dag_retire.go).
//
// What takes time runs outside the queue's lock, from the pump
// (dag_pump.go): PRE and POST scripts, as the DAG's owner, and reading
// and expanding a node's submit file. The pump marks the node PRERUN,
// POSTRUN or SUBMITTED first, durably; after a restart it runs again what
// such a node was doing (a script runs again; a job whose submit did not
// commit is submitted, once).

// dagRecord is what the store keeps of a DAG beside its nodes.
type dagRecord struct {
	ID        int64    `json:"id"`
	Owner     string   `json:"owner"`
	Account   string   `json:"account"`
	Dir       string   `json:"dir"` // the DAG file's directory
	BatchName string   `json:"batch_name"`
	DAG       *dag.DAG `json:"dag"`
	MaxJobs   int      `json:"maxjobs,omitempty"`
	MaxIdle   int      `json:"maxidle,omitempty"`
	MaxPre    int      `json:"maxpre,omitempty"`
	MaxPost   int      `json:"maxpost,omitempty"`
	// MaxHold bounds its HOLD scripts running at once, MaxSubmits its
	// node submissions per submit interval (dag_throttle.go); 0: none.
	MaxHold    int `json:"maxhold,omitempty"`
	MaxSubmits int `json:"maxsubmits,omitempty"`
	// HoldClaim, in seconds, is its DAGMAN_HOLD_CLAIM_TIME (the CONFIG
	// file's); nil: the schedd's dag_hold_claim_time.
	HoldClaim *int   `json:"hold_claim,omitempty"`
	OutDir    string `json:"outdir,omitempty"`
	QDate     int64  `json:"qdate"`
	Removed   bool   `json:"removed,omitempty"`
	Aborted   bool   `json:"aborted,omitempty"`
	AbortCode int    `json:"abort_code,omitempty"`
	// ProvisionerReady: the PROVISIONER node's job said it is ready
	// (dag_special.go).
	ProvisionerReady bool   `json:"provisioner_ready,omitempty"`
	Finished         bool   `json:"finished,omitempty"`
	ExitCode         int    `json:"exit_code,omitempty"`
	Status           int    `json:"status,omitempty"`
	Rescue           string `json:"rescue,omitempty"` // the rescue DAG written at the end
	// Held: kite hold paused the DAG, saying HoldReason (dag_hold.go).
	Held       bool   `json:"held,omitempty"`
	HoldReason string `json:"hold_reason,omitempty"`
	// Parent, ParentNode and NodeName: the DAG and node a nested DAG
	// (SUBDAG EXTERNAL) runs for, Depth its nesting (dag_sub.go).
	Parent     int64  `json:"parent,omitempty"`
	ParentNode int    `json:"parent_node,omitempty"`
	NodeName   string `json:"node_name,omitempty"`
	Depth      int    `json:"depth,omitempty"`
	// Priority, of a nested DAG: its SUBDAG node's effective PRIORITY,
	// added to each of its nodes' (dagman-advance-functionality.rst
	// "Effective node priorities").
	Priority int `json:"priority,omitempty"`
}

// dagState is a DAG in memory: its record and run, and what the pump
// has in flight for it. It is read and changed with the queue locked.
type dagState struct {
	rec      dagRecord
	run      *dag.Run
	inflight map[int]bool // nodes whose script or submit runs now
	// left holds the nodes that left inflight since the pump last looked
	// (dag_pump.go resumes those whose work is still to do).
	left   map[int]bool
	ending bool // over: its files are being written (dag_api.go)
	// runCtx is what its scripts run in, ended by stopScripts when the
	// DAG is held (dag_hold.go); nil until the pump next starts work.
	runCtx      context.Context
	stopScripts context.CancelFunc
	j           dagJournal // its informational files (dag_journal.go)
	// holds and subs are its HOLD scripts and its submissions in this
	// submit interval, against MaxHold and MaxSubmits (dag_throttle.go).
	holds holdScripts
	subs  submitWindow
}

// landed takes a node out of flight: its script or submit is over. The
// pump looks at it again in case its work is still to do (a hold stopped
// the script, the DAG was held before the submit, a commit failed).
func (st *dagState) landed(i int) {
	delete(st.inflight, i)
	if st.left == nil {
		st.left = map[int]bool{}
	}
	st.left[i] = true
}

// nodeRef names a node of a DAG.
type nodeRef struct {
	dag  int64
	node int
}

// dagSet is the schedd's DAGs; everything in it is read and changed with
// the queue locked (in Update functions, the queue's hook, or Read).
type dagSet struct {
	m         map[int64]*dagState // the DAGs that run
	done      []*dagState         // the last finished, oldest first (dag_retire.go)
	kept      []string            // the store's finished DAGs, oldest first: their keys' ends (dag_finished.go)
	byCluster map[int64]nodeRef   // node job clusters in the queue
	kick      chan struct{}       // the pump has work
	ctx       context.Context     // the pump's: the schedd's life
	files     *dagFiles           // the writer of their informational files
	writes    uint64              // transactions that handed it writes
	// submits bounds the node submits that read and expand submit files
	// at once: a fan-out of thousands of nodes queues them a few at a
	// time instead of thousands of goroutines starving the jobs that run.
	submits chan struct{}
}

func dagKey(id int64) string { return fmt.Sprintf("dag/%012d", id) }

func dagNodeKey(id int64, node int) string { return fmt.Sprintf("dagn/%012d/%08d", id, node) }

// openDAGs loads the DAGs the queue keeps and hooks them to its
// transactions after the job factories.
func (s *Server) openDAGs() error {
	ds := &dagSet{m: map[int64]*dagState{}, byCluster: map[int64]nodeRef{}, kick: make(chan struct{}, 1), ctx: context.Background(), files: newDAGFiles(),
		submits: make(chan struct{}, maxNodeSubmits)}
	err := s.q.Aux("dag/", func(key string, val []byte) error {
		var rec dagRecord
		if err := json.Unmarshal(val, &rec); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if rec.DAG == nil || len(rec.DAG.Nodes) == 0 {
			return fmt.Errorf("%s: no DAG", key)
		}
		st := &dagState{rec: rec, run: dag.NewRun(rec.DAG), inflight: map[int]bool{}}
		st.run.SetFlags(rec.Removed, rec.Aborted, rec.AbortCode)
		st.run.ProvisionerReady = st.run.ProvisionerReady || rec.ProvisionerReady
		ds.m[rec.ID] = st
		return nil
	})
	if err != nil {
		return fmt.Errorf("loading DAGs: %w", err)
	}
	err = s.q.Aux("dagn/", func(key string, val []byte) error {
		id, node, ok := parseNodeKey(key)
		st := ds.m[id]
		if !ok || st == nil || node >= len(st.run.Nodes) {
			return fmt.Errorf("%s: no such DAG node", key)
		}
		return json.Unmarshal(val, &st.run.Nodes[node])
	})
	if err != nil {
		return fmt.Errorf("loading DAG nodes: %w", err)
	}
	refs, err := s.finishedRefs()
	if err != nil {
		return fmt.Errorf("loading the finished DAGs' records: %w", err)
	}
	for _, ref := range refs {
		ds.kept = append(ds.kept, ref.suffix)
	}
	s.q.Read(func(r *queue.Reader) {
		for _, st := range ds.m {
			st.run.Rebuild()
			ds.register(r, st)
		}
	})
	s.dags = ds
	prev := s.q.Hook()
	s.q.SetHook(func(tx *queue.Tx) error {
		if prev != nil {
			if err := prev(tx); err != nil {
				return err
			}
		}
		return s.dagHook(tx)
	})
	if err := s.resumeDAGs(); err != nil {
		return fmt.Errorf("resuming DAGs: %w", err)
	}
	return nil
}

// register notes the clusters of a loaded DAG's submitted nodes. A
// node whose cluster is gone (which the store's transactions rule out)
// is taken as removed, so that the DAG goes on.
func (ds *dagSet) register(r *queue.Reader, st *dagState) {
	for i, n := range st.run.Nodes {
		if n.Status != dag.Submitted || n.Cluster == 0 {
			continue
		}
		if st.rec.DAG.Nodes[i].Kind == dag.KindSubDAG { // its job is a DAG
			if ds.m[n.Cluster] == nil {
				st.run.JobDone(i, dag.ReturnRemoved)
			}
			continue
		}
		if r.Cluster(n.Cluster) == nil {
			st.run.JobDone(i, dag.ReturnRemoved)
			continue
		}
		ds.byCluster[n.Cluster] = nodeRef{st.rec.ID, i}
	}
}

func parseNodeKey(key string) (int64, int, bool) {
	rest, ok := strings.CutPrefix(key, "dagn/")
	if !ok {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(rest, "/")
	id, err1 := strconv.ParseInt(a, 10, 64)
	node, err2 := strconv.Atoi(b)
	return id, node, ok && err1 == nil && err2 == nil
}

// dagHook runs at the end of every transaction: a node job cluster whose
// last job leaves ends its node, in the same transaction.
func (s *Server) dagHook(tx *queue.Tx) error {
	ds := s.dags
	if len(ds.byCluster) == 0 {
		return nil
	}
	changed := map[*dagState]bool{} // true: a node's job ended
	for _, c := range tx.Clusters() {
		ref, ok := ds.byCluster[c.ID]
		if !ok {
			continue
		}
		st := ds.m[ref.dag]
		s.heldNodeJobs(tx, c, st, ref.node)
		s.provisionerReady(tx, c, st, ref.node)
		for j := range c.Jobs {
			if tx.Job(j.ID) == nil { // leaving the queue now
				v := tx.View(j)
				st.run.JobReturn(ref.node, jobReturn(&v))
			}
			s.nodeJobEvent(tx, st, ref.node, j)
		}
		changed[st] = changed[st] || false
		if tx.Counts(c).Total() > 0 {
			continue
		}
		delete(ds.byCluster, c.ID)
		tx.OnRollback(func() { ds.byCluster[c.ID] = ref })
		s.nodeJobsDone(st, ref.node, st.run.Nodes[ref.node].Return)
		changed[st] = true
	}
	for st, ended := range changed {
		if ended { // its children, its retry, its POST script: no pump's transaction between
			s.startReady(tx, st)
		}
		s.settleDAG(tx, st)
	}
	return nil
}

// startReady starts in tx what a DAG may start now (startNodes) and runs
// the scripts and submits once tx is durable. The pump calls it, and so
// does the transaction that ends a node's job, so that a chain of nodes
// goes on with no transaction of the pump's between a node's end and its
// child's submit.
func (s *Server) startReady(tx *queue.Tx, st *dagState) {
	if st.rec.Finished || st.ending || st.rec.Held {
		return
	}
	ctx := s.dags.ctx
	st.scriptContext(ctx)
	work := s.startNodes(tx, st)
	if len(work) == 0 {
		return
	}
	tx.AfterCommit(func() {
		for _, w := range work {
			s.wg.Go(func() { s.doNodeWork(ctx, w) })
		}
	})
}

// jobReturn is a node job's return value as DAGMan gives it: the exit
// code, minus the signal, or ReturnRemoved.
func jobReturn(v *queue.View) int {
	switch {
	case v.Status == attr.Removed:
		return dag.ReturnRemoved
	case v.Int(attr.ExitBySignal, 0) != 0:
		return -int(v.Int(attr.ExitSignal, 0))
	}
	return int(v.Int(attr.ExitCode, 0))
}

// settleDAG follows a change of a DAG in a transaction: an aborted or
// removed DAG's running node jobs are removed, and the changed nodes and
// flags are written, undone in memory if the commit fails; the pump is
// woken once it is durable.
func (s *Server) settleDAG(tx *queue.Tx, st *dagState) {
	if st.run.Aborted || st.run.Removed {
		s.stopNodes(tx, st)
	}
	s.persistDAG(tx, st)
	tx.AfterCommit(s.dags.wake)
}

// persistDAG writes what changed in a DAG.
func (s *Server) persistDAG(tx *queue.Tx, st *dagState) {
	changes := st.run.Changed()
	for _, c := range changes {
		b, _ := json.Marshal(st.run.Nodes[c.Node]) // plain data: cannot fail
		tx.PutAux(dagNodeKey(st.rec.ID, c.Node), b)
	}
	s.flushJournal(tx, st, len(changes) > 0, false)
	old := st.rec
	st.rec.Removed, st.rec.Aborted, st.rec.AbortCode = st.run.Removed, st.run.Aborted, st.run.AbortCode
	st.rec.ProvisionerReady = st.run.ProvisionerReady
	if st.rec != old {
		s.putDAGRecord(tx, st)
	}
	tx.OnRollback(func() {
		st.rec = old
		st.run.SetFlags(old.Removed, old.Aborted, old.AbortCode)
		st.run.ProvisionerReady = old.ProvisionerReady
		st.run.Undo(changes)
	})
}

func (s *Server) putDAGRecord(tx *queue.Tx, st *dagState) {
	b, _ := json.Marshal(&st.rec) // plain data: cannot fail
	tx.PutAux(dagKey(st.rec.ID), b)
}

// stopNodes removes the jobs of a stopped DAG's submitted nodes, whose
// nodes end as removed (DAGMan removes them on ABORT-DAG-ON and
// condor_rm), but the FINAL node's.
func (s *Server) stopNodes(tx *queue.Tx, st *dagState) {
	reason := "DAG " + strconv.FormatInt(st.rec.ID, 10) + " was removed"
	if st.run.Aborted {
		reason = "DAG " + strconv.FormatInt(st.rec.ID, 10) + " was aborted (ABORT-DAG-ON)"
	}
	// the FINAL node runs after a stop
	s.stopNodeJobs(tx, st, reason, func(i int) bool { return i != st.rec.DAG.Final })
}

// stopNodeJobs removes the jobs of the submitted nodes which says,
// ending the nodes as removed.
func (s *Server) stopNodeJobs(tx *queue.Tx, st *dagState, reason string, which func(i int) bool) {
	ev := s.newEvents()
	for i, n := range st.run.Nodes {
		if n.Status != dag.Submitted || n.Cluster == 0 || !which(i) {
			continue
		}
		c := tx.Cluster(n.Cluster)
		if c != nil {
			for j := range c.Jobs {
				if tx.Job(j.ID) != nil {
					s.remove(tx, j, reason, ev)
				}
			}
		}
		cl := n.Cluster
		if st.rec.DAG.Nodes[i].Kind == dag.KindSubDAG {
			s.stopSubDAG(tx, cl)
			s.nodeEvent(st, i, "JOB_ABORTED", strconv.FormatInt(cl, 10)+".0", reason)
			s.nodeJobsDone(st, i, dag.ReturnRemoved)
			continue
		}
		ref := nodeRef{st.rec.ID, i}
		delete(s.dags.byCluster, cl)
		tx.OnRollback(func() { s.dags.byCluster[cl] = ref })
		s.nodeEvent(st, i, "JOB_ABORTED", strconv.FormatInt(cl, 10)+".0", reason)
		s.nodeJobsDone(st, i, dag.ReturnRemoved)
	}
	ev.after(tx)
}

// wake wakes the pump.
func (ds *dagSet) wake() {
	select {
	case ds.kick <- struct{}{}:
	default:
	}
}

// dagLoop runs the pump whenever a DAG may have work, until ctx is done.
func (s *Server) dagLoop(ctx context.Context) {
	if err := s.q.Update(func(*queue.Tx) error { s.dags.ctx = ctx; return nil }); err != nil {
		s.log.Error("DAGs: starting the pump", "err", err)
	}
	s.wg.Go(func() { s.dagFileLoop(ctx.Done()) })
	s.dags.wake()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.dags.kick:
		}
		s.pumpDAGs()
	}
}
