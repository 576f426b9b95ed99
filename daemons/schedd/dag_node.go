package schedd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/submit"
)

// submitNode submits a node's job: the node's submit file read and
// expanded as the DAG's owner (outside the queue's lock) for the cluster
// id the pump handed out, then one transaction that queues the cluster
// and marks the node with it. A
// submit that fails ends the node's job with ReturnSubmitFailed
// (DAGMan's -1001), which RETRY and a POST script see.
func (s *Server) submitNode(ctx context.Context, w nodeWork) {
	st := w.st
	rec := &st.rec
	queueIt, err := s.prepareNode(st, w, w.id)
	err = s.q.Update(func(tx *queue.Tx) error {
		st.landed(w.node)
		n := st.run.Nodes[w.node]
		if n.Status != dag.Submitted || n.Cluster != 0 {
			return nil // the DAG moved on (removed)
		}
		switch {
		case (st.run.Removed || st.run.Aborted) && w.node != rec.DAG.Final:
			st.run.JobDone(w.node, dag.ReturnRemoved)
		case rec.Held:
			return nil // submitted (with another cluster) after the release
		case err != nil:
			s.nodeSubmitFailed(st, w.node, err)
		default:
			if err := queueIt(tx); err != nil {
				s.nodeSubmitFailed(st, w.node, err)
			}
		}
		s.settleDAG(tx, st)
		return nil
	})
	if err != nil {
		s.log.Error("DAG node: recording its submit (it is submitted again)", "dag", rec.ID, "node", rec.DAG.Nodes[w.node].Name, "err", err)
	}
	s.kickAds()
	s.dags.wake()
}

// prepareNode reads what a node submits, outside the queue's lock, and
// returns what queues it under id: a job cluster, or for a SUBDAG
// EXTERNAL node a nested DAG (dag_sub.go).
func (s *Server) prepareNode(st *dagState, w nodeWork, id int64) (func(tx *queue.Tx) error, error) {
	if st.rec.DAG.Nodes[w.node].Kind == dag.KindSubDAG {
		d, err := s.readSubDAG(st, w.node)
		if err != nil {
			return nil, err
		}
		return func(tx *queue.Tx) error { return s.queueSubDAG(tx, st, w.node, id, d) }, nil
	}
	c, err := s.expandNode(st, w, id)
	if err != nil {
		return nil, err
	}
	return func(tx *queue.Tx) error { return s.queueNode(tx, st, w.node, id, c) }, nil
}

// nodeSubmitFailed ends a node's job as not submitted, saying why.
func (s *Server) nodeSubmitFailed(st *dagState, i int, err error) {
	s.log.Warn("DAG node: submit failed", "dag", st.rec.ID, "node", st.rec.DAG.Nodes[i].Name, "err", err)
	s.nodeEvent(st, i, "SUBMIT_FAILURE", "", err.Error())
	s.nodeJobsDone(st, i, dag.ReturnSubmitFailed)
	st.run.Nodes[i].Detail = "submit failed: " + err.Error()
}

// queueNode queues a node's expanded cluster in tx and marks the node
// submitted with it.
func (s *Server) queueNode(tx *queue.Tx, st *dagState, i int, id int64, c *submit.Cluster) error {
	rec := &st.rec
	if err := s.checkOwnerJobs(tx, rec.Owner, len(c.Procs)); err != nil {
		return err
	}
	cl, err := tx.Submit(id, rec.Owner, c.Ad, c.Procs, nil)
	if err != nil {
		return err
	}
	st.run.Submitted(i, id, jobTag(c.Ad))
	for k := range c.Procs {
		s.nodeEvent(st, i, "SUBMIT", queue.JobID{Cluster: id, Proc: int64(k)}.String(), "")
	}
	ref := nodeRef{rec.ID, i}
	s.dags.byCluster[id] = ref
	tx.OnRollback(func() { delete(s.dags.byCluster, id) })
	events := s.submitEvents(cl.ID, c.Ad, c.Procs)
	tx.AfterCommit(events.write)
	return nil
}

// expandNode reads a node's submit description (a file, read as the
// owner, or inline in the DAG file, whose lines it keeps) and expands it
// as cluster id with the node's macros, then sets what DAGMan sets on
// node jobs and checks the ads as a submit's are checked.
func (s *Server) expandNode(st *dagState, w nodeWork, id int64) (*submit.Cluster, error) {
	rec := &st.rec
	n := rec.DAG.Nodes[w.node]
	dir := nodeDir(rec, n)
	name, src, err := s.nodeSource(rec, n, dir)
	if err != nil {
		return nil, err
	}
	cl := submit.CommandLine{Vars: w.vars}
	for _, v := range n.Vars {
		line := v.Name + "=" + v.Value
		if strings.HasPrefix(v.Name, "+") || strings.HasPrefix(strings.ToLower(v.Name), "my.") {
			line = v.Name + " = " + v.Value
		}
		if v.Append {
			cl.Append = append(cl.Append, line)
		} else {
			cl.Vars = append(cl.Vars, line)
		}
	}
	d, _, err := submit.ParseWith(name, src, cl)
	if err != nil {
		return nil, err
	}
	c, _, err := d.Expand(s.nodeEnv(rec, dir, id))
	if err != nil {
		return nil, err
	}
	if len(c.Procs) == 0 {
		return nil, fmt.Errorf("%s: no jobs to submit (queue 0)", name)
	}
	if n.Kind == dag.KindProvisioner && len(c.Procs) != 1 {
		return nil, fmt.Errorf("%s: a PROVISIONER node runs one job, not %d", name, len(c.Procs))
	}
	s.markNodeJobs(st, w.node, c.Ad)
	if err := s.checkCluster(id, rec.Owner, rec.Account, c.Ad); err != nil {
		return nil, err
	}
	c.Ad.Set(attr.TotalSubmitProcs, ast.Int(int64(len(c.Procs))))
	for k, p := range c.Procs {
		if err := checkProc(k, id, p); err != nil {
			return nil, err
		}
	}
	if err := s.checkLogs(&runas.Account{Name: rec.Account}, c.Ad, c.Procs); err != nil {
		return nil, err
	}
	return c, nil
}

// nodeDir is the absolute directory a node is submitted from.
func nodeDir(rec *dagRecord, n *dag.Node) string {
	if filepath.IsAbs(n.Dir) {
		return n.Dir
	}
	return filepath.Join(rec.Dir, n.Dir)
}

// nodeSource returns a node's submit description and the name its
// errors give: an inline one is padded with empty lines so that its
// errors name the DAG file's lines.
func (s *Server) nodeSource(rec *dagRecord, n *dag.Node, dir string) (string, []byte, error) {
	if n.Kind == dag.KindSubDAG {
		return "", nil, errors.New("SUBDAG EXTERNAL nodes are not run by Kite; use SPLICE")
	}
	if n.Inline != "" {
		return n.InlinePos.File, []byte(strings.Repeat("\n", max(n.InlinePos.Line-1, 0)) + n.Inline), nil
	}
	path := n.Submit
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	var src []byte
	err := s.ids.Do(rec.Account, func() error {
		var err error
		src, err = os.ReadFile(path)
		return err
	})
	return path, src, err
}

// nodeEnv is the environment a node's submit file is expanded in: the
// DAG's owner, files read as the owner, no commands.
func (s *Server) nodeEnv(rec *dagRecord, dir string, id int64) submit.Env {
	as := func(fn func() error) error { return s.ids.Do(rec.Account, fn) }
	host := submit.LocalHost()
	if s.env.Host != "" {
		host.FileSystemDomain = s.env.Host // the schedd's host, where the files are
	}
	return submit.Env{
		Cluster: int(id), Owner: rec.Owner, Dir: dir, Host: host, MaxJobs: s.cfg.MaxJobsPerSubmission,
		Method: submit.SubmitByDAG,
		ReadFile: func(name string) (b []byte, err error) {
			err = as(func() error { b, err = os.ReadFile(name); return err })
			return b, err
		},
		Glob: func(pattern string) (m []string, err error) {
			err = as(func() error { m, err = filepath.Glob(pattern); return err })
			return m, err
		},
		Stat: func(name string) (fi fs.FileInfo, err error) {
			err = as(func() error { fi, err = os.Stat(name); return err })
			return fi, err
		},
	}
}

// markNodeJobs sets what DAGMan sets on a node's jobs: DAGManJobId,
// DAGNodeName, DAGManNodesLog (the DAG's FILE.dag.nodes.log, where their
// events go too: events.go), DAGParentNodeNames, the batch name and the submit event's
// notes (the reference's "Job attributes on every node job").
func (s *Server) markNodeJobs(st *dagState, i int, ad *classad.Ad) {
	rec := &st.rec
	n := rec.DAG.Nodes[i]
	ad.Set(attr.DAGManJobID, ast.Int(rec.ID))
	ad.Set(attr.DAGNodeName, ast.Str(n.Name))
	ad.Set(attr.DAGManNodesLog, ast.Str(rec.DAG.File+".nodes.log"))
	if len(n.Parents) > 0 {
		names := make([]string, len(n.Parents))
		for k, p := range n.Parents {
			names[k] = rec.DAG.Nodes[p].Name
		}
		ad.Set(attr.DAGParentNodeNames, ast.Str(strings.Join(names, ",")))
	}
	if _, ok := ad.Lookup(attr.JobBatchName); !ok {
		ad.Set(attr.JobBatchName, ast.Str(rec.BatchName))
	}
	ad.Set(attr.SubmitEventNotes, ast.Str("DAG Node: "+n.Name))
}
