package schedd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

// handleSubmitDAG queues a DAG: its files are parsed here again (the
// tool parsed them to show mistakes), the DAG is written with its id,
// and the pump starts its first nodes.
func (s *Server) handleSubmitDAG(ctx context.Context, r *wire.Request) (any, error) {
	id, err := strconv.ParseInt(r.HTTP.URL.Query().Get("cluster"), 10, 64)
	if err != nil || id < 1 {
		return nil, wire.BadRequest("submit_dag: the query needs cluster=N, a cluster id from %s", wire.PathNewCluster)
	}
	var body wire.DAGSubmit
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	acct, err := s.submitter(r.Caller)
	if err != nil {
		return nil, err
	}
	d, err := parseSubmittedDAG(&body)
	if err != nil {
		return nil, err
	}
	st := &dagState{rec: dagRecord{
		ID: id, Owner: r.Caller.Name, Account: acct.Name, Dir: filepath.Dir(body.File), DAG: d,
		MaxJobs: body.MaxJobs, MaxIdle: body.MaxIdle, MaxPre: body.MaxPre, MaxPost: body.MaxPost,
		MaxHold: body.MaxHold, MaxSubmits: body.MaxSubmits, HoldClaim: body.HoldClaimTime,
		OutDir: body.OutfileDir, QDate: s.now().Unix(),
		BatchName: cmpOr(body.BatchName, filepath.Base(body.File)+"+"+strconv.FormatInt(id, 10)),
	}, run: dag.NewRun(d), inflight: map[int]bool{}}
	err = s.q.Update(func(tx *queue.Tx) error {
		if reserved, ok := s.q.Reservation(id); !ok || (reserved != "" && reserved != r.Caller.Name) {
			return wire.Conflict("submit_dag: cluster %d was not handed out to %s, or is used", id, r.Caller.Name)
		}
		return s.addDAG(tx, st)
	})
	if err != nil {
		return nil, err
	}
	return wire.SubmitResult{Cluster: id, Procs: len(d.Nodes)}, nil
}

// addDAG queues a new DAG (submitted, or a SUBDAG EXTERNAL node's) in
// tx; the pump starts its first nodes once it is durable.
func (s *Server) addDAG(tx *queue.Tx, st *dagState) error {
	id := st.rec.ID
	if _, dup := s.dags.m[id]; dup {
		return wire.Conflict("submit_dag: DAG %d exists", id)
	}
	s.dags.m[id] = st
	tx.OnRollback(func() { delete(s.dags.m, id) })
	s.putDAGRecord(tx, st)
	s.dagNote(st, "DAGMAN_STARTED "+strconv.FormatInt(id, 10)+".0",
		fmt.Sprintf("DAG %s (id %d) submitted by %s: %d node(s)", st.rec.DAG.File, id, st.rec.Owner, len(st.run.Nodes)))
	s.flushJournal(tx, st, false, true)
	for i := range st.run.Nodes {
		if st.run.Nodes[i].Status != dag.NotReady {
			b := []byte(`{"s":` + strconv.Itoa(int(st.run.Nodes[i].Status)) + `}`)
			tx.PutAux(dagNodeKey(id, i), b)
		}
	}
	tx.AfterCommit(s.dags.wake)
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// parseSubmittedDAG parses a submitted DAG from the files sent with it
// and applies its rescue DAG.
func parseSubmittedDAG(body *wire.DAGSubmit) (*dag.DAG, error) {
	if !filepath.IsAbs(body.File) {
		return nil, wire.BadRequest("submit_dag: the DAG file %q is not an absolute path", body.File)
	}
	if body.MaxJobs < 0 || body.MaxIdle < 0 || body.MaxPre < 0 || body.MaxPost < 0 || body.MaxHold < 0 || body.MaxSubmits < 0 {
		return nil, wire.BadRequest("submit_dag: throttles must not be negative")
	}
	if c := body.HoldClaimTime; c != nil && (*c < 0 || *c > dag.MaxHoldClaimTime) {
		return nil, wire.BadRequest("submit_dag: the hold claim time must be 0 to %d seconds", dag.MaxHoldClaimTime)
	}
	src, ok := body.Files[body.File]
	if !ok {
		return nil, wire.BadRequest("submit_dag: the DAG file %s was not sent", body.File)
	}
	read := func(name string) ([]byte, error) {
		if b, ok := body.Files[name]; ok {
			return []byte(b), nil
		}
		return nil, fmt.Errorf("%s was not sent with the DAG: %w", name, fs.ErrNotExist)
	}
	d, err := dag.Parse(body.File, []byte(src), dag.Options{Dir: filepath.Dir(body.File), ReadFile: read})
	if err != nil {
		return nil, wire.BadRequest("submit_dag: %v", err)
	}
	if body.Rescue != "" {
		rsrc, ok := body.Files[body.Rescue]
		if !ok {
			return nil, wire.BadRequest("submit_dag: the rescue DAG %s was not sent", body.Rescue)
		}
		if err := dag.ApplyRescue(d, body.Rescue, []byte(rsrc)); err != nil {
			return nil, wire.BadRequest("submit_dag: %v", err)
		}
	}
	if err := runnable(d); err != nil {
		return nil, wire.BadRequest("submit_dag: %v", err)
	}
	return d, nil
}

// runnable refuses what Kite does not run: a DAG that says REJECT.
func runnable(d *dag.DAG) error {
	if d.Reject {
		return fmt.Errorf("%s says REJECT", d.File)
	}
	return nil
}

// dagEnd is a DAG that is over and its files, rendered with the queue
// locked.
type dagEnd struct {
	st     *dagState
	rec    dagRecord
	rescue []byte
}

// renderDAGEnd renders the rescue DAG of a DAG that is over, when it
// failed, unless its PROVISIONER node failed before it was ready (DAGMan
// exits at once then, writing none: dag.Run.ProvisionerFailed). (Its
// last node status and DOT files go with its journal: dag_journal.go.)
func (s *Server) renderDAGEnd(st *dagState) *dagEnd {
	e := &dagEnd{st: st, rec: st.rec}
	if st.run.ExitCode() != 0 && !st.run.ProvisionerFailed() {
		var b bytes.Buffer
		_ = dag.WriteRescue(&b, st.run, s.now()) // a buffer: cannot fail
		e.rescue = b.Bytes()
	}
	return e
}

// endDAG writes a failed DAG's rescue DAG, as its owner (as
// file.rescueNNN, the first number free), then records that it is over
// and retires it (dag_retire.go): once the DAG's ad says so, its rescue
// DAG is there.
func (s *Server) endDAG(e *dagEnd) {
	rec := &e.rec
	if e.rescue != nil {
		if err := s.ids.Do(rec.Account, func() error { return writeRescueFile(rec.DAG.File, e.rescue) }); err != nil {
			s.log.Error("DAG: writing its rescue DAG", "dag", rec.ID, "err", err)
		}
	}
	st := e.st
	err := s.q.Update(func(tx *queue.Tx) error {
		st.ending = false
		old := st.rec
		st.rec.Finished, st.rec.ExitCode, st.rec.Status = true, st.run.ExitCode(), st.run.Status()
		s.retireDAG(tx, st)
		tx.OnRollback(func() { st.rec = old })
		return nil
	})
	if err != nil {
		s.log.Error("DAG: recording its end (again at the next change)", "dag", rec.ID, "err", err)
		return
	}
	s.log.Info("DAG finished", "dag", rec.ID, "file", rec.DAG.File, "exit", st.rec.ExitCode, "status", st.rec.Status)
}

func inDir(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// writeRescueFile writes the rescue DAG under the first free number
// (DAGMan stops at 100 and overwrites the last).
func writeRescueFile(dagFile string, b []byte) error {
	for n := 1; n <= dag.MaxRescue; n++ {
		f, err := os.OpenFile(dag.RescueName(dagFile, n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && n < dag.MaxRescue {
			continue
		}
		if errors.Is(err, fs.ErrExist) {
			return os.WriteFile(dag.RescueName(dagFile, n), b, 0o644)
		}
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		return errors.Join(err, f.Close())
	}
	return nil
}

// handleDAGs answers kite q -dag: the DAGs a query picks, each with its
// ad and nodes.
func (s *Server) handleDAGs(ctx context.Context, r *wire.Request) (any, error) {
	var q wire.DAGQuery
	if err := r.Decode(&q); err != nil {
		return nil, err
	}
	if len(q.IDs) > maxDAGQueryIDs {
		return nil, wire.BadRequest("dags: at most %d ids in a query", maxDAGQueryIDs)
	}
	out := []wire.DAGInfo{}
	seen := map[int64]bool{}
	s.q.Read(func(rd *queue.Reader) {
		ids := make([]int64, 0, len(s.dags.m))
		for id := range s.dags.m {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			st := s.dags.m[id]
			if (st.rec.Finished && !q.Finished) || !picks(&q, st) {
				continue
			}
			seen[id] = true
			out = append(out, shapeDAGInfo(&q, rd, st, s.dagInfo(st)))
		}
	})
	switch {
	case !q.Finished:
		return out, nil
	case len(q.IDs) == 0: // the recently finished too (dag_finished.go)
		return append(out, s.recentFinished(&q, seen)...), nil
	}
	for _, id := range q.IDs {
		if seen[id] {
			continue
		}
		if info, ok := s.finishedDAG(&q, id); ok && ownerPicks(&q, info) {
			out = append(out, info)
		}
	}
	return out, nil
}

// shapeDAGInfo applies a query's AdsOnly and Graph to a DAG's info: no
// nodes, or each node's parents and its job's status too, or for a DAG
// of more than MaxNodes, its nodes counted by depth.
func shapeDAGInfo(q *wire.DAGQuery, rd *queue.Reader, st *dagState, info wire.DAGInfo) wire.DAGInfo {
	switch {
	case q.AdsOnly:
		info.Nodes = nil
	case q.Graph:
		for i := range info.Nodes {
			n := &info.Nodes[i]
			n.Parents = st.rec.DAG.Nodes[i].Parents
			if j := rd.Job(queue.JobID{Cluster: n.Cluster}); n.Cluster > 0 && j != nil {
				n.JobStatus = j.Status()
			}
		}
		if q.MaxNodes > 0 && len(info.Nodes) > q.MaxNodes {
			nodes, d := info.Nodes, st.rec.DAG
			status := func(i int) string { return nodes[i].Status }
			info.Layers = layersOf(len(nodes), func(i int) []int { return d.Nodes[i].Parents }, status, nodeRunning(nodes))
			info.Nodes = nil
		}
	}
	return info
}

// maxDAGQueryIDs bounds the DAGs one query names (each finished one may
// be looked for in the history).
const maxDAGQueryIDs = 100

// ownerPicks applies a query's owners to a finished DAG's info.
func ownerPicks(q *wire.DAGQuery, info wire.DAGInfo) bool {
	if len(q.Owners) == 0 {
		return true
	}
	ad, err := classad.ParseJSON(info.Ad)
	if err != nil {
		return false
	}
	owner, _ := classad.EvalString(ad, attr.Owner)
	return slices.Contains(q.Owners, owner)
}

func picks(q *wire.DAGQuery, st *dagState) bool {
	return (len(q.IDs) == 0 || slices.Contains(q.IDs, st.rec.ID)) &&
		(len(q.Owners) == 0 || slices.Contains(q.Owners, st.rec.Owner))
}

// dagInfo is a DAG's ad and nodes.
func (s *Server) dagInfo(st *dagState) wire.DAGInfo {
	info := wire.DAGInfo{Ad: classad.AppendJSON(nil, s.dagAd(st), false), Nodes: make([]wire.DAGNode, len(st.run.Nodes))}
	for i, n := range st.run.Nodes {
		info.Nodes[i] = wire.DAGNode{Name: st.rec.DAG.Nodes[i].Name, Status: n.Status.String(), Retries: n.Retries,
			Cluster: n.Cluster, Return: n.Return, Detail: n.Detail}
	}
	return info
}

// dagAd is a DAG's own ad, with DAGMan's attributes.
func (s *Server) dagAd(st *dagState) *classad.Ad {
	rec := &st.rec
	c := st.run.Counts()
	ad := classad.NewAd()
	status := attr.Running
	switch {
	case rec.Finished && rec.Status == dag.DAGRemoved:
		status = attr.Removed
	case rec.Finished:
		status = attr.Completed
	case rec.Held:
		status = attr.Held
	}
	for _, kv := range []struct {
		k string
		v int64
	}{
		{attr.ClusterID, rec.ID}, {attr.ProcID, 0}, {attr.JobStatus, int64(status)}, {attr.QDate, rec.QDate},
		{attr.DAGNodesTotal, int64(c.Total)}, {attr.DAGNodesDone, int64(c.Done)}, {attr.DAGNodesPrerun, int64(c.Pre)},
		{attr.DAGNodesQueued, int64(c.Queued)}, {attr.DAGNodesPostrun, int64(c.Post)}, {attr.DAGNodesReady, int64(c.Ready)},
		{attr.DAGNodesUnready, int64(c.Unready)}, {attr.DAGNodesFailed, int64(c.Failed)}, {attr.DAGNodesFutile, int64(c.Futile)},
		{attr.DAGStatus, int64(st.run.Status())}, {attr.DAGInRecovery, 0},
		{attr.DAGManMaxJobs, int64(rec.MaxJobs)}, {attr.DAGManMaxIdle, int64(rec.MaxIdle)},
		{attr.DAGManMaxPre, int64(rec.MaxPre)}, {attr.DAGManMaxPost, int64(rec.MaxPost)},
		{attr.DAGManMaxHold, int64(rec.MaxHold)}, {attr.DAGManMaxSubmits, int64(rec.MaxSubmits)},
	} {
		ad.Set(kv.k, ast.Int(kv.v))
	}
	ad.Set(attr.Owner, ast.Str(rec.Owner))
	ad.Set(attr.JobBatchName, ast.Str(rec.BatchName))
	ad.Set(attr.DAGFile, ast.Str(rec.DAG.File))
	ad.Set(attr.Iwd, ast.Str(rec.Dir))
	if rec.Finished {
		ad.Set(attr.ExitCode, ast.Int(int64(rec.ExitCode)))
	}
	if rec.Parent != 0 { // a nested DAG: as its condor_dagman job's ad
		ad.Set(attr.DAGManJobID, ast.Int(rec.Parent))
		ad.Set(attr.DAGNodeName, ast.Str(rec.NodeName))
	}
	if rec.Held {
		ad.Set(attr.HoldReason, ast.Str(rec.HoldReason))
		ad.Set(attr.HoldReasonCode, ast.Int(attr.HoldUserRequest))
	}
	setJobAttrs(ad, rec.DAG.JobAttrs)
	return ad
}

// dagAdOwn are the attributes of a DAG's ad that say its state only now
// and then: SET_JOB_ATTR may not set them (an ExitCode would say the DAG
// is over).
var dagAdOwn = []string{attr.ExitCode, attr.DAGManJobID, attr.DAGNodeName, attr.HoldReason, attr.HoldReasonCode}

// setJobAttrs adds the DAG file's SET_JOB_ATTR attributes to its ad
// (dagman-advance-functionality.rst "Setting Job Ad Attributes"), but not
// over DAGMan's own.
func setJobAttrs(ad *classad.Ad, attrs []dag.Attr) {
	for _, a := range attrs {
		if _, set := ad.Lookup(a.Name); set || slices.ContainsFunc(dagAdOwn, func(n string) bool { return strings.EqualFold(n, a.Name) }) {
			continue
		}
		if e, err := classad.ParseExpr(a.Value); err == nil { // checked as the DAG was parsed
			ad.Set(a.Name, e)
		}
	}
}

// actDAGs applies kite rm, hold and release to the DAGs a selection
// names by id (the DAG's cluster) or owner. rm stops the DAG: its running
// node jobs are removed and its FINAL node runs (HTCondor: condor_rm of
// the DAGMan job; a held DAG is removed too). hold pauses it and release
// resumes it (condor_hold and condor_release of the DAGMan job;
// dag_hold.go).
func (s *Server) actDAGs(sel *selection, all bool, caller auth.Identity, action, reason string) (int, error) {
	if sel.constraint != nil || (action != wire.ActRemove && action != wire.ActHold && action != wire.ActRelease) {
		return 0, nil
	}
	n := 0
	err := s.q.Update(func(tx *queue.Tx) error {
		n = 0
		for _, st := range s.dags.m {
			if st.rec.Finished || st.run.Removed || !sel.namesDAG(st, all) || !mayChange(caller, st.rec.Owner) {
				continue
			}
			if s.actDAG(tx, st, action, reason) {
				n++
			}
		}
		return nil
	})
	return n, err
}

// actDAG applies an action to a DAG in tx and reports whether it changed.
func (s *Server) actDAG(tx *queue.Tx, st *dagState, action, reason string) bool {
	switch action {
	case wire.ActHold:
		return s.holdDAG(tx, st, reason)
	case wire.ActRelease:
		return s.releaseDAG(tx, st)
	}
	s.releaseDAG(tx, st) // a removed DAG stops, and its FINAL node runs
	st.run.Remove()
	s.settleDAG(tx, st)
	return true
}

// namesDAG reports whether a selection without a constraint names a DAG.
func (sel *selection) namesDAG(st *dagState, all bool) bool {
	if len(sel.ids) == 0 && len(sel.owners) == 0 {
		return all
	}
	byID := len(sel.ids) == 0 || slices.ContainsFunc(sel.ids, func(x queue.Selector) bool {
		return x.Cluster == st.rec.ID && (x.Proc < 0 || x.Proc == 0)
	})
	byOwner := len(sel.owners) == 0 || slices.Contains(sel.owners, st.rec.Owner)
	return byID && byOwner
}
