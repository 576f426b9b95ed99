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
		OutDir: body.OutfileDir, QDate: s.now().Unix(),
		BatchName: cmpOr(body.BatchName, filepath.Base(body.File)+"+"+strconv.FormatInt(id, 10)),
	}, run: dag.NewRun(d), inflight: map[int]bool{}}
	err = s.q.Update(func(tx *queue.Tx) error {
		if reserved, ok := s.q.Reservation(id); !ok || (reserved != "" && reserved != r.Caller.Name) {
			return wire.Conflict("submit_dag: cluster %d was not handed out to %s, or is used", id, r.Caller.Name)
		}
		if _, dup := s.dags.m[id]; dup {
			return wire.Conflict("submit_dag: DAG %d exists", id)
		}
		s.dags.m[id] = st
		tx.OnRollback(func() { delete(s.dags.m, id) })
		s.putDAGRecord(tx, st)
		for i := range st.run.Nodes {
			if st.run.Nodes[i].Status != dag.NotReady {
				b := []byte(`{"s":` + strconv.Itoa(int(st.run.Nodes[i].Status)) + `}`)
				tx.PutAux(dagNodeKey(id, i), b)
			}
		}
		tx.AfterCommit(s.dags.wake)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return wire.SubmitResult{Cluster: id, Procs: len(d.Nodes)}, nil
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
	if body.MaxJobs < 0 || body.MaxIdle < 0 || body.MaxPre < 0 || body.MaxPost < 0 {
		return nil, wire.BadRequest("submit_dag: throttles must not be negative")
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
	if d.Reject {
		return nil, wire.BadRequest("submit_dag: %s says REJECT", body.File)
	}
	for _, n := range d.Nodes {
		if n.Kind == dag.KindSubDAG || n.Kind == dag.KindProvisioner || n.Kind == dag.KindService {
			return nil, wire.BadRequest("submit_dag: %s: %s nodes are not run by Kite (node %s)", n.Pos, n.Kind, n.Name)
		}
	}
	return d, nil
}

// dagEnd is a DAG that is over and its files, rendered with the queue
// locked.
type dagEnd struct {
	st                  *dagState
	rec                 dagRecord
	rescue, status, dot []byte
}

// renderDAGEnd renders the files of a DAG that is over: its rescue DAG
// when it failed, its node status file and DOT file.
func (s *Server) renderDAGEnd(st *dagState) *dagEnd {
	e := &dagEnd{st: st, rec: st.rec}
	now := s.now()
	var b bytes.Buffer
	if st.run.ExitCode() != 0 {
		_ = dag.WriteRescue(&b, st.run, now) // a buffer: cannot fail
		e.rescue = bytes.Clone(b.Bytes())
	}
	if st.rec.DAG.NodeStatusFile != nil {
		b.Reset()
		_ = dag.WriteNodeStatus(&b, st.run, now, now)
		e.status = bytes.Clone(b.Bytes())
	}
	if st.rec.DAG.Dot != nil {
		b.Reset()
		_ = dag.WriteDOT(&b, st.rec.DAG, st.run, nil)
		e.dot = bytes.Clone(b.Bytes())
	}
	return e
}

// endDAG writes a finished DAG's files, as its owner (the rescue DAG as
// file.rescueNNN, the first number free), then records that it is over:
// once the DAG's ad says so, its rescue DAG is there.
func (s *Server) endDAG(e *dagEnd) {
	rec := &e.rec
	err := s.ids.Do(rec.Account, func() error {
		var errs []error
		if e.rescue != nil {
			errs = append(errs, writeRescueFile(rec.DAG.File, e.rescue))
		}
		if f := rec.DAG.NodeStatusFile; f != nil {
			errs = append(errs, os.WriteFile(inDir(rec.Dir, f.File), e.status, 0o644))
		}
		if rec.DAG.Dot != nil {
			errs = append(errs, os.WriteFile(inDir(rec.Dir, rec.DAG.Dot.File), e.dot, 0o644))
		}
		return errors.Join(errs...)
	})
	if err != nil {
		s.log.Error("DAG: writing its files", "dag", rec.ID, "err", err)
	}
	st := e.st
	err = s.q.Update(func(tx *queue.Tx) error {
		st.ending = false
		old := st.rec
		st.rec.Finished, st.rec.ExitCode, st.rec.Status = true, st.run.ExitCode(), st.run.Status()
		s.putDAGRecord(tx, st)
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
	for n := 1; n <= 100; n++ {
		f, err := os.OpenFile(dag.RescueName(dagFile, n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && n < 100 {
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
	out := []wire.DAGInfo{}
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
			out = append(out, s.dagInfo(st))
		}
	})
	return out, nil
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
	return ad
}

// actDAGs applies kite rm to the DAGs a selection names by id (the DAG's
// cluster) or owner: the DAG stops, its running node jobs are removed,
// and its FINAL node runs (HTCondor: condor_rm of the DAGMan job). Hold
// and release change no DAG.
func (s *Server) actDAGs(sel *selection, all bool, caller auth.Identity, action string) (int, error) {
	if action != wire.ActRemove || sel.constraint != nil {
		return 0, nil
	}
	n := 0
	err := s.q.Update(func(tx *queue.Tx) error {
		n = 0
		for _, st := range s.dags.m {
			if st.rec.Finished || st.run.Removed || !sel.namesDAG(st, all) || !mayChange(caller, st.rec.Owner) {
				continue
			}
			st.run.Remove()
			s.settleDAG(tx, st)
			n++
		}
		return nil
	})
	return n, err
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
