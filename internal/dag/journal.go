package dag

import (
	"fmt"
	"strconv"
	"time"
)

// The journal of a run: the lines of its .dagman.out file, which a user
// tails to follow the DAG, and of its JOBSTATE_LOG, the machine-readable
// history (the HTCondor manual, dagman-information-files.rst
// "Machine-Readable Event History"). Both are appended to, never
// rewritten; the scheduler renders the lines when the events happen and
// writes them after the change is durable.

// Event is a node's event in the jobstate log: "timestamp NodeName
// EventName CondorID JobTag - SequenceNumber".
type Event struct {
	Node string
	// Name is a job event (SUBMIT, EXECUTE, JOB_TERMINATED, JOB_HELD,
	// JOB_RELEASED, JOB_ABORTED) or a meta event (PRE_SCRIPT_STARTED,
	// PRE_SCRIPT_SUCCESS, PRE_SCRIPT_FAILURE, SUBMIT_FAILURE, JOB_SUCCESS,
	// JOB_FAILURE, POST_SCRIPT_STARTED, POST_SCRIPT_TERMINATED,
	// POST_SCRIPT_SUCCESS, POST_SCRIPT_FAILURE).
	Name string
	// ID is the job's id (cluster.proc), "-" before the node's job is
	// submitted, or for JOB_SUCCESS and JOB_FAILURE the job's return
	// value.
	ID string
	// Tag is the job's tag (+job_tag_name, +pegasus_site), "-" when none.
	Tag string
	// Seq numbers the node's attempts (NodeState.Seq).
	Seq int
	// Note is said in .dagman.out only ("exit 3").
	Note string
}

// AppendJobstate appends an event's jobstate log line.
func AppendJobstate(b []byte, at time.Time, e Event) []byte {
	b = strconv.AppendInt(b, at.Unix(), 10)
	b = append(b, ' ')
	b = append(b, e.Node...)
	b = append(b, ' ')
	b = append(b, e.Name...)
	b = append(b, ' ')
	b = append(b, orDash(e.ID)...)
	b = append(b, ' ')
	b = append(b, orDash(e.Tag)...)
	b = append(b, " - "...)
	b = strconv.AppendInt(b, int64(e.Seq), 10)
	return append(b, '\n')
}

// AppendJobstateMeta appends a meta event's line: DAGMAN_STARTED id,
// DAGMAN_FINISHED code, RECOVERY_STARTED, RECOVERY_FINISHED.
func AppendJobstateMeta(b []byte, at time.Time, what string) []byte {
	b = strconv.AppendInt(b, at.Unix(), 10)
	b = append(b, " INTERNAL *** "...)
	b = append(b, what...)
	return append(b, " ***\n"...)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// outTime is how .dagman.out dates its lines, as condor_dagman does.
const outTime = "01/02/06 15:04:05"

// AppendOut appends a .dagman.out line.
func AppendOut(b []byte, at time.Time, format string, args ...any) []byte {
	b = at.AppendFormat(b, outTime)
	b = append(b, ' ')
	b = fmt.Appendf(b, format, args...)
	return append(b, '\n')
}

// AppendOutEvent appends a node event's .dagman.out line.
func AppendOutEvent(b []byte, at time.Time, e Event) []byte {
	what := map[string]string{
		"PRE_SCRIPT_STARTED": "PRE script started", "PRE_SCRIPT_SUCCESS": "PRE script succeeded",
		"PRE_SCRIPT_FAILURE": "PRE script failed", "SUBMIT": "job submitted", "SUBMIT_FAILURE": "job could not be submitted",
		"EXECUTE": "job running", "JOB_TERMINATED": "job ended", "JOB_HELD": "job held", "JOB_RELEASED": "job released",
		"JOB_ABORTED": "job removed", "JOB_SUCCESS": "job(s) succeeded", "JOB_FAILURE": "job(s) failed",
		"POST_SCRIPT_STARTED": "POST script started", "POST_SCRIPT_TERMINATED": "POST script ended",
		"POST_SCRIPT_SUCCESS": "POST script succeeded", "POST_SCRIPT_FAILURE": "POST script failed",
	}[e.Name]
	if what == "" {
		what = e.Name
	}
	id := ""
	switch {
	case e.Name == "JOB_SUCCESS" || e.Name == "JOB_FAILURE":
		e.Note = "return " + e.ID // the field holds the return value
	case e.ID != "" && e.ID != "-":
		id = e.ID + ", "
	}
	if e.Note != "" {
		return AppendOut(b, at, "Node %s: %s, %s (%sseq %d)", e.Node, what, e.Note, id, e.Seq)
	}
	return AppendOut(b, at, "Node %s: %s (%sseq %d)", e.Node, what, id, e.Seq)
}

// AppendOutStatus appends condor_dagman's table of the nodes by state
// and the DAG's status.
func AppendOutStatus(b []byte, at time.Time, r *Run) []byte {
	c := r.Counts()
	b = AppendOut(b, at, "DAG status: %d (%s)", r.Status(), statusName(r.Status()))
	b = AppendOut(b, at, "Of %d nodes total:", c.Total)
	b = AppendOut(b, at, " Done     Pre   Queued    Post   Ready   Un-Ready   Failed   Futile")
	b = AppendOut(b, at, "  ===     ===      ===     ===     ===        ===      ===      ===")
	return AppendOut(b, at, "%5d %7d %8d %7d %7d %10d %8d %8d", c.Done, c.Pre, c.Queued, c.Post, c.Ready, c.Unready, c.Failed, c.Futile)
}

func statusName(st int) string {
	switch st {
	case DAGOK:
		return "DAG_STATUS_OK"
	case DAGAborted:
		return "DAG_STATUS_ABORT"
	case DAGRemoved:
		return "DAG_STATUS_RM"
	}
	return "DAG_STATUS_NODE_FAILED"
}
