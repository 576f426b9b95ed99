package dag

import (
	"cmp"
	"slices"
)

// Status is a node's state, numbered as NODE_STATUS_FILE numbers them
// (dagman-information-files.rst, "Node Status File").
type Status int

// The node states.
const (
	NotReady  Status = iota // waiting for its parents
	Ready                   // (NODE_STATUS_FILE's; Run keeps ready nodes NotReady until started)
	PreRun                  // its PRE script runs
	Submitted               // its job is in the queue
	PostRun                 // its POST script runs
	Done                    // succeeded
	Failed                  // failed for good
	Futile                  // an ancestor failed: it will not run
)

var statusNames = [...]string{"STATUS_NOT_READY", "STATUS_READY", "STATUS_PRERUN", "STATUS_SUBMITTED",
	"STATUS_POSTRUN", "STATUS_DONE", "STATUS_ERROR", "STATUS_FUTILE"}

func (s Status) String() string { return statusNames[s] }

// finished reports whether a node in the state will not change again.
func (s Status) finished() bool { return s == Done || s == Failed || s == Futile }

// The return values DAGMan gives a node's job when no job exit gives one
// ($RETURN, dagman-reference.rst "SCRIPT").
const (
	ReturnSubmitFailed = -1001 // the job could not be submitted
	ReturnRemoved      = -1002 // the job was removed
)

// DAG_Status values of the DAG's ad (dagman-interaction.rst).
const (
	DAGOK      = 0
	DAGError   = 1
	DAGFailed  = 2
	DAGAborted = 3
	DAGRemoved = 4
)

// NodeState is what Run keeps of a node; the scheduler stores it.
type NodeState struct {
	Status  Status `json:"s"`
	Retries int    `json:"r,omitempty"` // retries done ($RETRY)
	Cluster int64  `json:"c,omitempty"` // the node job's cluster, once submitted
	Return  int    `json:"rc,omitempty"`
	Detail  string `json:"d,omitempty"`
	// Seq numbers the node's attempts within the run (each start, and
	// each retry's, takes the next number): the jobstate log's
	// SequenceNumber. Tag is the node job's JobTag there.
	Seq int    `json:"q,omitempty"`
	Tag string `json:"t,omitempty"`
}

// Step is what the scheduler does next for a node.
type Step int

// The steps.
const (
	StepNone   Step = iota // nothing: the node finished (or waits)
	StepPre                // run its PRE script, then call PreDone
	StepSubmit             // submit its job, then call Submitted (or JobDone with ReturnSubmitFailed)
	StepPost               // run its POST script, then call PostDone
)

// Run is a DAG being run: its nodes' states and what follows from them.
// It changes only through its methods; Changed reports the nodes each
// call changed, for the scheduler to store.
type Run struct {
	DAG   *DAG
	Nodes []NodeState
	// Aborted: ABORT-DAG-ON fired, with the DAG's exit code AbortCode.
	Aborted   bool
	AbortCode int
	// Removed: the user removed the DAG.
	Removed bool
	// ProvisionerReady: the PROVISIONER node's job said it is ready
	// (ProvisionerState 2), and the other nodes may start.
	ProvisionerReady bool

	waiting      []int32 // parents each node still waits for
	weakChildren [][]int
	ready        []int           // NotReady nodes with no parent to wait for (maybe stale)
	seq          int             // the last Seq given
	byStatus     [Futile + 1]int // nodes by status, SERVICE nodes left out
	pending      []int           // nodes that came to need a step (Pending)
	changed      []Change
	seen         map[int]bool // nodes in changed
}

// Change is a node changed, with its state before the change.
type Change struct {
	Node int
	Old  NodeState
}

// NewRun starts a run: nodes marked DONE are done.
func NewRun(d *DAG) *Run {
	r := &Run{DAG: d, Nodes: make([]NodeState, len(d.Nodes))}
	for i, n := range d.Nodes {
		if n.Done && n.Kind != KindFinal {
			r.Nodes[i] = NodeState{Status: Done, Detail: "User defined as DONE"}
		}
	}
	if p := d.Provisioner; p >= 0 && r.Nodes[p].Status == Done {
		r.ProvisionerReady = true // provisioned before (DONE, a rescue DAG)
	}
	r.Rebuild()
	return r
}

// Rebuild recomputes what follows from the node states (after the
// scheduler loads them).
func (r *Run) Rebuild() {
	d := r.DAG
	r.waiting = make([]int32, len(d.Nodes))
	r.weakChildren = make([][]int, len(d.Nodes))
	r.ready = r.ready[:0]
	r.seq = 0
	r.byStatus = [Futile + 1]int{}
	r.pending = r.pending[:0]
	for i, s := range r.Nodes {
		r.seq = max(r.seq, s.Seq)
		r.count(i, s.Status, 1)
		if s.needsStep() {
			r.pending = append(r.pending, i)
		}
	}
	for i, n := range d.Nodes {
		for _, p := range n.Parents {
			if r.Nodes[p].Status != Done {
				r.waiting[i]++
			}
		}
		for _, p := range n.Weak {
			r.weakChildren[p] = append(r.weakChildren[p], i)
			if !r.Nodes[p].Status.finished() {
				r.waiting[i]++
			}
		}
	}
	for i := range d.Nodes {
		if r.waiting[i] == 0 && r.Nodes[i].Status == NotReady && i != d.Final {
			r.ready = append(r.ready, i)
		}
	}
}

// Changed returns the nodes changed since the last call, each once
// with its state before the first change.
func (r *Run) Changed() []Change {
	c := r.changed
	r.changed = nil
	clear(r.seen)
	return c
}

// Undo puts changed nodes back as they were (a commit of their new
// states failed), last first.
func (r *Run) Undo(changes []Change) {
	for k := len(changes) - 1; k >= 0; k-- {
		r.Nodes[changes[k].Node] = changes[k].Old
	}
	r.Rebuild()
}

// count counts n nodes more of a status (SERVICE nodes are not counted).
func (r *Run) count(i int, s Status, n int) {
	if r.DAG.Nodes[i].Kind != KindService {
		r.byStatus[s] += n
	}
}

// needsStep reports whether a node in the state waits for the
// scheduler's step: its PRE or POST script, or its job's submit.
func (st NodeState) needsStep() bool {
	return st.Status == PreRun || st.Status == PostRun || st.Status == Submitted && st.Cluster == 0
}

// Pending returns, and forgets, the nodes that came to need a step of
// the scheduler (a PRE or POST script, a submit) since the last call, or
// since Rebuild, which lists all of them: the scheduler starts their steps
// without looking at every node. A node may be listed that no longer
// needs one, or that the scheduler already works on.
func (r *Run) Pending() []int {
	p := r.pending
	r.pending = nil
	return p
}

func (r *Run) set(i int, st NodeState) {
	r.count(i, r.Nodes[i].Status, -1)
	r.count(i, st.Status, 1)
	if st.needsStep() {
		r.pending = append(r.pending, i)
	}
	if r.seen == nil {
		r.seen = map[int]bool{}
	}
	if !r.seen[i] {
		r.seen[i] = true
		r.changed = append(r.changed, Change{i, r.Nodes[i]})
	}
	r.Nodes[i] = st
}

// Startable returns the nodes that may start now, highest PRIORITY
// first: every parent done (weak parents finished), the DAG neither
// aborted nor removed; while a PROVISIONER node is not ready, only it and
// SERVICE nodes; the FINAL node once nothing else will run.
func (r *Run) Startable() []int {
	out := r.ready[:0]
	seen := make(map[int]bool, len(r.ready))
	for _, i := range r.ready {
		if r.Nodes[i].Status == NotReady && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	r.ready = out
	switch {
	case r.Aborted || r.Removed:
		out = nil
	case r.waitsForProvisioner():
		out = slices.DeleteFunc(slices.Clone(out), func(i int) bool {
			return i != r.DAG.Provisioner && r.DAG.Nodes[i].Kind != KindService
		})
	default:
		out = slices.Clone(out)
	}
	if f := r.DAG.Final; f >= 0 && r.Nodes[f].Status == NotReady && !slices.ContainsFunc(out, r.notService) && r.Active() == 0 && !r.ProvisionerFailed() {
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b int) int {
		return cmp.Or(cmp.Compare(r.DAG.Nodes[b].Priority, r.DAG.Nodes[a].Priority), cmp.Compare(a, b))
	})
	return out
}

// notService reports whether node i is not a SERVICE node.
func (r *Run) notService(i int) bool { return r.DAG.Nodes[i].Kind != KindService }

// waitsForProvisioner reports whether the DAG has a PROVISIONER node
// that has not said it is ready.
func (r *Run) waitsForProvisioner() bool {
	return r.DAG.Provisioner >= 0 && !r.ProvisionerReady
}

// SetProvisionerReady records that the PROVISIONER node's job said it is
// ready: the other nodes may start (dagman-advance-functionality.rst,
// "PROVISIONER Node").
func (r *Run) SetProvisionerReady() { r.ProvisionerReady = true }

// Active counts the nodes whose script or job runs, SERVICE nodes left
// out: the DAG does not wait for them.
func (r *Run) Active() int {
	return r.byStatus[PreRun] + r.byStatus[Submitted] + r.byStatus[PostRun]
}

// Finished reports whether nothing more will run but SERVICE nodes,
// which the scheduler then removes.
func (r *Run) Finished() bool {
	return r.Active() == 0 && !slices.ContainsFunc(r.Startable(), r.notService)
}

// RunningServices returns the SERVICE nodes whose script or job still
// runs.
func (r *Run) RunningServices() []int {
	var out []int
	for i, s := range r.Nodes {
		if r.DAG.Nodes[i].Kind == KindService && (s.Status == PreRun || s.Status == Submitted || s.Status == PostRun) {
			out = append(out, i)
		}
	}
	return out
}

// Start starts a startable node: its PRE script, else its job.
func (r *Run) Start(i int) Step {
	st := r.Nodes[i]
	r.seq++
	st.Seq = r.seq
	if r.DAG.Nodes[i].Scripts[Pre] != nil {
		st.Status, st.Detail = PreRun, ""
		r.set(i, st)
		return StepPre
	}
	return r.job(i, st)
}

// job goes on to the node's job; a NOOP node has none (its job
// succeeds at once).
func (r *Run) job(i int, st NodeState) Step {
	if r.DAG.Nodes[i].Noop {
		st.Status = Submitted
		r.set(i, st)
		return r.JobDone(i, 0)
	}
	st.Status, st.Cluster, st.Return, st.Detail = Submitted, 0, 0, ""
	r.set(i, st)
	return StepSubmit
}

// Submitted records the cluster of a node's job and the job's tag.
func (r *Run) Submitted(i int, cluster int64, tag string) {
	st := r.Nodes[i]
	st.Cluster, st.Tag = cluster, tag
	r.set(i, st)
}

// JobReturn records the return value of one of a node's jobs that
// ended, while others may still run: the node's $RETURN is the first
// failing job's.
func (r *Run) JobReturn(i int, rc int) {
	if st := r.Nodes[i]; st.Return == 0 && rc != 0 {
		st.Return = rc
		r.set(i, st)
	}
}

// SetFlags restores Removed, Aborted and AbortCode from storage.
func (r *Run) SetFlags(removed, aborted bool, abortCode int) {
	r.Removed, r.Aborted, r.AbortCode = removed, aborted, abortCode
}

// PreDone records a PRE script's exit: PRE_SKIP's code finishes the node
// successfully, another failure fails it (the job and POST do not run).
func (r *Run) PreDone(i int, rc int) Step {
	n := r.DAG.Nodes[i]
	st := r.Nodes[i]
	switch {
	case n.HasPreSkip && rc == n.PreSkip:
		st.Detail = "PRE_SKIP"
		r.finish(i, st, Done)
		return StepNone
	case r.abort(i, st, rc):
		return StepNone
	case rc != 0:
		r.failed(i, st, rc, "PRE script failed")
		return StepNone
	}
	return r.job(i, st)
}

// JobDone records the end of a node's job with its return value (the
// exit code; -signal; ReturnRemoved, ReturnSubmitFailed): the POST
// script runs if there is one, else the job decides.
func (r *Run) JobDone(i int, rc int) Step {
	st := r.Nodes[i]
	st.Return = rc
	if i == r.DAG.Provisioner && !r.ProvisionerReady && !r.Removed {
		// DAGMan exits at once: the other nodes cannot run
		r.Aborted, r.AbortCode = true, 1
		st.Detail = "the PROVISIONER job ended before it said it was ready"
		r.finish(i, st, Failed)
		return StepNone
	}
	if r.DAG.Nodes[i].Scripts[Post] != nil {
		st.Status = PostRun
		r.set(i, st)
		return StepPost
	}
	r.decide(i, st, rc, "Job failed")
	return StepNone
}

// PostDone records a POST script's exit, which decides the node.
func (r *Run) PostDone(i int, rc int) Step {
	r.decide(i, r.Nodes[i], rc, "POST script failed")
	return StepNone
}

// decide ends a node with the return value of what ran last.
func (r *Run) decide(i int, st NodeState, rc int, why string) {
	if rc == 0 && !r.abort(i, st, rc) {
		st.Detail = ""
		r.finish(i, st, Done)
		return
	}
	r.failed(i, st, rc, why)
}

// failed handles a node's failure: ABORT-DAG-ON first, then RETRY (not
// past UNLESS-EXIT), else the node fails and its descendants are futile.
func (r *Run) failed(i int, st NodeState, rc int, why string) {
	n := r.DAG.Nodes[i]
	if r.abort(i, st, rc) {
		return
	}
	if st.Retries < n.Retry && !(n.HasUnlessExit && rc == n.UnlessExit) && !r.Removed && !r.Aborted {
		st.Retries++
		st.Status, st.Detail = NotReady, why
		r.set(i, st)
		r.ready = append(r.ready, i)
		return
	}
	st.Detail = why
	r.finish(i, st, Failed)
}

// abort applies ABORT-DAG-ON: when rc is the node's abort value the DAG
// is aborted (abort overrides retry) and the node ends, done if rc is 0.
func (r *Run) abort(i int, st NodeState, rc int) bool {
	n := r.DAG.Nodes[i]
	if !n.HasAbort || rc != n.AbortOn || r.Nodes[i].Status.finished() {
		return false
	}
	r.Aborted = true
	r.AbortCode = rc
	if n.HasAbortReturn {
		r.AbortCode = n.AbortReturn
	}
	st.Detail = "ABORT-DAG-ON"
	if rc == 0 {
		r.finish(i, st, Done)
	} else {
		r.finish(i, st, Failed)
	}
	return true
}

// finish ends a node as Done, Failed or Futile: its children wait for
// it no more, or (strong children of a failed node) are futile.
func (r *Run) finish(i int, st NodeState, to Status) {
	st.Status = to
	r.set(i, st)
	n := r.DAG.Nodes[i]
	for _, c := range n.Children {
		if to == Done {
			r.waiting[c]--
			if r.waiting[c] == 0 && r.Nodes[c].Status == NotReady {
				r.ready = append(r.ready, c)
			}
			continue
		}
		if r.Nodes[c].Status == NotReady {
			r.finish(c, NodeState{Retries: r.Nodes[c].Retries, Detail: "Had an ancestor node fail"}, Futile)
		}
	}
	for _, c := range r.weakChildren[i] {
		r.waiting[c]--
		if r.waiting[c] == 0 && r.Nodes[c].Status == NotReady {
			r.ready = append(r.ready, c)
		}
	}
}

// Remove records that the user removed the DAG: nothing more starts but
// the FINAL node; the scheduler removes the jobs that run, which end as
// ReturnRemoved.
func (r *Run) Remove() { r.Removed = true }

// Counts are the nodes by state, as the DAG's ad counts them.
type Counts struct {
	Total, Done, Pre, Queued, Post, Ready, Unready, Failed, Futile int
}

// Counts counts the nodes by state, SERVICE nodes left out (DAGMan
// counts them apart).
func (r *Run) Counts() Counts {
	var c Counts
	for i, s := range r.Nodes {
		if r.DAG.Nodes[i].Kind == KindService {
			continue
		}
		c.Total++
		switch s.Status {
		case NotReady:
			if r.waiting[i] == 0 {
				c.Ready++
			} else {
				c.Unready++
			}
		case PreRun:
			c.Pre++
		case Submitted:
			c.Queued++
		case PostRun:
			c.Post++
		case Done:
			c.Done++
		case Failed:
			c.Failed++
		case Futile:
			c.Futile++
		}
	}
	return c
}

// Status is the DAG's DAG_Status: with a FINAL node that ran, its
// result; else removed, aborted, a node failed, or OK.
func (r *Run) Status() int {
	if f := r.DAG.Final; f >= 0 && r.Nodes[f].Status.finished() {
		if r.Nodes[f].Status == Done {
			return DAGOK
		}
		return DAGFailed
	}
	switch {
	case r.Removed:
		return DAGRemoved
	case r.Aborted:
		return DAGAborted
	}
	if r.byStatus[Failed]+r.byStatus[Futile] > 0 { // a SERVICE node is best effort
		return DAGFailed
	}
	return DAGOK
}

// ExitCode is condor_dagman's exit code for a finished run: 0 success,
// 1 failure, 2 removed, or ABORT-DAG-ON's value (dagman-reference.rst).
func (r *Run) ExitCode() int {
	switch st := r.Status(); {
	case st == DAGOK:
		return 0
	case r.Aborted && (r.DAG.Final < 0 || !r.Nodes[r.DAG.Final].Status.finished()):
		return r.AbortCode
	case st == DAGRemoved:
		return 2
	}
	return 1
}

// Failed counts the failed nodes ($FAILED_COUNT).
func (r *Run) Failed() int { return r.byStatus[Failed] }
