package schedd

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/dag"
)

// maxNodeSubmits is how many node submits run at once (dagSet.submits).
const maxNodeSubmits = 8

// nodeWork is what the pump starts outside the queue's lock for a node:
// a script (argv expanded when it was started) or a submit (with the
// macros its submit file sees).
type nodeWork struct {
	st   *dagState
	node int
	step dag.Step
	argv []string        // a script's
	vars []string        // a submit's name=value macros, before the file
	id   int64           // a submit's cluster id, handed out in the pump's transaction
	ctx  context.Context // a script's: done when the schedd stops or the DAG is held
}

// pumpDAGs starts, in one transaction, what every DAG may start now
// within its throttles (and resumes what a restart interrupted), ends the
// DAGs that are done; the scripts and submits it started run once the
// transaction is durable (startReady).
func (s *Server) pumpDAGs() {
	var ending []*dagEnd
	err := s.q.Update(func(tx *queue.Tx) error {
		ending = ending[:0]
		for _, st := range s.dags.m {
			if st.rec.Finished || st.ending || st.rec.Held {
				continue
			}
			s.startReady(tx, st)
			if st.run.Finished() && len(st.inflight) == 0 {
				s.stopServices(tx, st)
			}
			s.persistDAG(tx, st)
			if st.run.Finished() && len(st.inflight) == 0 {
				st.ending = true
				tx.OnRollback(func() { st.ending = false })
				ending = append(ending, s.renderDAGEnd(st))
			}
		}
		return nil
	})
	if err != nil {
		s.log.Error("DAGs: starting nodes", "err", err)
		return
	}
	for _, e := range ending {
		s.wg.Go(func() { s.endDAG(e) })
	}
}

// throttle counts what a DAG runs, against its limits.
type throttle struct {
	jobs, idle, pre, post int
	cats                  map[string]int
}

func (s *Server) countDAG(tx *queue.Tx, st *dagState) throttle {
	t := throttle{cats: map[string]int{}}
	if r := &st.rec; r.MaxJobs <= 0 && r.MaxIdle <= 0 && r.MaxPre <= 0 && r.MaxPost <= 0 && len(r.DAG.MaxJobs) == 0 {
		return t // no throttle: nothing to count
	}
	for i, n := range st.run.Nodes {
		switch n.Status {
		case dag.PreRun:
			t.pre++
		case dag.PostRun:
			t.post++
		case dag.Submitted:
			t.jobs++
			if cat := st.rec.DAG.Nodes[i].Category; cat != "" {
				t.cats[cat]++
			}
			if c := tx.Cluster(n.Cluster); c != nil && n.Cluster != 0 && st.rec.MaxIdle > 0 {
				t.idle += tx.Counts(c).Idle
			}
		}
	}
	return t
}

// startNodes resumes the nodes whose script or submit is not running
// (after a restart, a hold, a failed commit), then starts startable
// nodes, highest priority first, as the DAG's throttles allow (-maxjobs,
// -maxidle, -maxpre, -maxpost, MAXJOBS of categories, and the submit
// interval's MaxSubmits).
func (s *Server) startNodes(tx *queue.Tx, st *dagState) []nodeWork {
	var work []nodeWork
	var later []int // submits the submit interval holds back
	resume := func(i int) {
		if st.inflight[i] {
			return
		}
		switch n := st.run.Nodes[i]; {
		case n.Status == dag.PreRun:
			work = append(work, s.nodeWork(tx, st, i, dag.StepPre))
		case n.Status == dag.PostRun:
			work = append(work, s.nodeWork(tx, st, i, dag.StepPost))
		case n.Status == dag.Submitted && n.Cluster == 0 && !s.submitSlot(tx, st):
			later = append(later, i)
		case n.Status == dag.Submitted && n.Cluster == 0:
			work = append(work, s.nodeWork(tx, st, i, dag.StepSubmit))
		}
	}
	// The nodes that came to need a step (all of them after a restart,
	// or after a failed commit undid changes), and those whose work ended
	// without moving them on: never a walk over every node.
	for _, i := range st.run.Pending() {
		resume(i)
	}
	for i := range st.left {
		resume(i)
	}
	clear(st.left)
	for _, i := range later {
		st.landed(i) // looked at again when the interval ends
	}
	t := s.countDAG(tx, st)
	rec := &st.rec
	for _, i := range st.run.Startable() {
		node := rec.DAG.Nodes[i]
		if !s.mayStart(st, t, node) || !s.maySubmit(tx, st, node) {
			continue
		}
		if st.run.Nodes[i].Retries == 0 && node.SavePoint != "" {
			s.savePoint(tx, st, i) // as the node first starts
		}
		step := st.run.Start(i)
		switch step {
		case dag.StepPre:
			t.pre++
		case dag.StepSubmit:
			t.jobs++
			if node.Category != "" {
				t.cats[node.Category]++
			}
		case dag.StepPost:
			t.post++
		}
		if step != dag.StepNone {
			work = append(work, s.nodeWork(tx, st, i, step))
		} else {
			tx.AfterCommit(s.dags.wake) // a NOOP node is done: its children may start
		}
	}
	return work
}

// mayStart reports whether the throttles let a node start now.
func (s *Server) mayStart(st *dagState, t throttle, node *dag.Node) bool {
	rec := &st.rec
	if node.Scripts[dag.Pre] != nil {
		return rec.MaxPre <= 0 || t.pre < rec.MaxPre
	}
	if node.Noop {
		return true
	}
	if rec.MaxJobs > 0 && t.jobs >= rec.MaxJobs || rec.MaxIdle > 0 && t.idle >= rec.MaxIdle {
		return false
	}
	if limit, ok := rec.DAG.MaxJobs[node.Category]; ok && node.Category != "" && t.cats[node.Category] >= limit {
		return false
	}
	return true
}

// nodeWork marks a node in flight and prepares its work.
func (s *Server) nodeWork(tx *queue.Tx, st *dagState, i int, step dag.Step) nodeWork {
	st.inflight[i] = true
	tx.OnRollback(func() { st.landed(i) })
	w := nodeWork{st: st, node: i, step: step, ctx: st.runCtx}
	switch step {
	case dag.StepPre:
		w.argv = scriptArgs(st, i, dag.Pre)
		s.nodeEvent(st, i, "PRE_SCRIPT_STARTED", "", strings.Join(w.argv, " "))
	case dag.StepPost:
		w.argv = scriptArgs(st, i, dag.Post)
		s.nodeEvent(st, i, "POST_SCRIPT_STARTED", nodeJobID(st, i), strings.Join(w.argv, " "))
	case dag.StepSubmit:
		w.vars = nodeMacros(st, i, s.dagHoldClaim(st))
		w.id = tx.NewCluster(st.rec.Owner) // durable with the pump's commit, not one of its own
	}
	return w
}

// scriptArgs expands a script's macros, each a whole argument
// (dagman-introduction.rst "Special Script Argument Macros").
func scriptArgs(st *dagState, i int, kind dag.ScriptKind) []string {
	r := st.run
	n := r.DAG.Nodes[i]
	ns := r.Nodes[i]
	c := r.Counts()
	macros := map[string]string{
		"$JOB": n.Name, "$NODE": n.Name, "$RETRY": strconv.Itoa(ns.Retries), "$MAX_RETRIES": strconv.Itoa(n.Retry),
		"$NODE_COUNT": strconv.Itoa(c.Total), "$QUEUED_COUNT": strconv.Itoa(c.Queued), "$DONE_COUNT": strconv.Itoa(c.Done),
		"$FAILED_COUNT": strconv.Itoa(c.Failed), "$FUTILE_COUNT": strconv.Itoa(c.Futile),
		"$DAGID": strconv.FormatInt(st.rec.ID, 10), "$DAG_STATUS": strconv.Itoa(r.Status()),
	}
	if kind == dag.Post || kind == dag.Hold {
		macros["$CLUSTERID"] = strconv.FormatInt(ns.Cluster, 10)
		macros["$JOBID"] = strconv.FormatInt(ns.Cluster, 10) + ".0"
	}
	if kind == dag.Post {
		macros["$RETURN"] = strconv.Itoa(ns.Return)
		macros["$SUCCESS"] = map[bool]string{true: "True", false: "False"}[ns.Return == 0]
	}
	sc := n.Scripts[kind]
	out := make([]string, len(sc.Argv))
	for k, a := range sc.Argv {
		if v, ok := macros[a]; ok && k > 0 {
			a = v
		}
		out[k] = a
	}
	return out
}

// nodeMacros are the macros DAGMan gives a node's submit file, before
// the file (dagman-reference.rst, "VARS"; the reference's InitVars):
// JOB, RETRY, DAG_STATUS, FAILED_COUNT, DAGManJobId, DAG_PARENT_NAMES,
// priority, keep_claim_idle for a node with children (hold, DAGMan's
// DAGMAN_HOLD_CLAIM_TIME: dagman-submit-optimization), then the node's
// VARS PREPEND.
func nodeMacros(st *dagState, i int, hold time.Duration) []string {
	r := st.run
	n := r.DAG.Nodes[i]
	out := []string{
		"JOB=" + n.Name, "RETRY=" + strconv.Itoa(r.Nodes[i].Retries),
		"DAG_STATUS=" + strconv.Itoa(r.Status()), "FAILED_COUNT=" + strconv.Itoa(r.Failed()),
		"DAGManJobId=" + strconv.FormatInt(st.rec.ID, 10),
	}
	if len(n.Parents) > 0 {
		names := make([]string, len(n.Parents))
		for k, p := range n.Parents {
			names[k] = r.DAG.Nodes[p].Name
		}
		out = append(out, "DAG_PARENT_NAMES="+strings.Join(names, ","))
	}
	if p := n.Priority + st.rec.Priority; p != 0 { // a nested DAG's nodes: plus its SUBDAG node's
		out = append(out, "priority="+strconv.Itoa(p))
	}
	if len(n.Children) > 0 && hold >= time.Second {
		out = append(out, "keep_claim_idle="+strconv.Itoa(int(hold/time.Second)))
	}
	return out
}

// doNodeWork runs a script or submits a node's job, then records the
// outcome in a transaction of its own.
func (s *Server) doNodeWork(ctx context.Context, w nodeWork) {
	switch w.step {
	case dag.StepSubmit:
		select {
		case s.dags.submits <- struct{}{}:
		case <-ctx.Done():
			return // the schedd stops: the node is submitted after the restart
		}
		defer func() { <-s.dags.submits }()
		s.submitNode(ctx, w)
	case dag.StepPre, dag.StepPost:
		rc := s.runDAGScript(w.ctx, w)
		switch {
		case ctx.Err() != nil:
			return // the schedd stops: the script runs again after the restart
		case w.ctx.Err() != nil:
			s.scriptStopped(w) // the DAG is held: it runs again after the release
			return
		}
		s.nodeScriptDone(w, rc)
	}
}

// scriptStopped records that a script was killed by the DAG's hold: its
// node stays PRERUN or POSTRUN and the script runs again once the DAG is
// released.
func (s *Server) scriptStopped(w nodeWork) {
	err := s.q.Update(func(tx *queue.Tx) error {
		w.st.landed(w.node)
		return nil
	})
	if err != nil {
		s.log.Error("DAG node: a script stopped by the hold", "dag", w.st.rec.ID, "err", err)
	}
	s.dags.wake()
}

// nodeScriptDone records a PRE or POST script's exit status.
func (s *Server) nodeScriptDone(w nodeWork, rc int) {
	st := w.st
	err := s.q.Update(func(tx *queue.Tx) error {
		st.landed(w.node)
		want := map[dag.Step]dag.Status{dag.StepPre: dag.PreRun, dag.StepPost: dag.PostRun}[w.step]
		if st.run.Nodes[w.node].Status != want {
			return nil
		}
		result := map[bool]string{true: "SUCCESS", false: "FAILURE"}[rc == 0]
		note := "exit " + strconv.Itoa(rc)
		if w.step == dag.StepPre {
			s.nodeEvent(st, w.node, "PRE_SCRIPT_"+result, "", note)
			st.run.PreDone(w.node, rc)
		} else {
			s.nodeEvent(st, w.node, "POST_SCRIPT_TERMINATED", nodeJobID(st, w.node), "")
			s.nodeEvent(st, w.node, "POST_SCRIPT_"+result, nodeJobID(st, w.node), note)
			st.run.PostDone(w.node, rc)
		}
		s.settleDAG(tx, st)
		return nil
	})
	if err != nil {
		s.log.Error("DAG node: recording a script's end (it runs again)", "dag", st.rec.ID, "err", err)
	}
	s.dags.wake()
}

// nodeJobID is the id of a node's (first) job, "-" before it has one.
func nodeJobID(st *dagState, i int) string {
	if c := st.run.Nodes[i].Cluster; c != 0 {
		return strconv.FormatInt(c, 10) + ".0"
	}
	return "-"
}
