// Package dag is HTCondor's DAG language (the input of DAGMan): a
// workflow's nodes, each an HTCondor job described by a submit file, the
// edges between them, and what runs around each job (PRE and POST
// scripts, retries, throttles), as the HTCondor manual's DAGMan chapter
// (docs/automated-workflows/dagman-*.rst) describes it.
//
//	DAG file ──Parse(name, src, Options)──▶ *DAG ──NewRun──▶ *Run
//	           INCLUDE and SPLICE files       nodes, edges      node states; what the
//	           read through Options.ReadFile  (cycles refused)  scheduler does next
//
// Parse reads the file line by line: `#` lines are comments, a line
// ending in a backslash continues on the next, keywords are
// case-insensitive and `-` and `_` in them are the same (ABORT-DAG-ON,
// ABORT_DAG_ON). Every mistake is an *Error at file:line:col, a cycle
// names its nodes. Splices are read into the DAG, their nodes named
// `splice+node`, edges to a splice going to its initial nodes and edges
// from it leaving its terminal ones.
//
// Run is the DAG's state as DAGMan keeps it, a pure state machine: the
// scheduler (the schedd) asks which nodes may start, tells it when a
// script or job ends, and stores the node states it reports changed.
// It applies DAGMan's rules: the component that ran last decides a
// node's result, PRE_SKIP, RETRY and UNLESS-EXIT, ABORT-DAG-ON (which
// overrides retry), descendants of failed nodes are futile, and the
// FINAL node runs last and decides the DAG's result.
//
// WriteRescue writes a rescue DAG in HTCondor's format (version 2.1.0:
// DONE lines for finished nodes); ApplyRescue reads one over the DAG it
// was written for, NewestRescue finds the one to apply. WriteNodeStatus
// and WriteDOT write the NODE_STATUS_FILE and DOT pictures; the journal
// (journal.go) renders the lines of the jobstate log (JOBSTATE_LOG) and
// of .dagman.out, each node attempt numbered by NodeState.Seq.
package dag
