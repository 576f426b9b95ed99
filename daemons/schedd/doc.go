// Package schedd is the schedd daemon: where users' jobs live. It keeps
// the job queue durably (package queue), speaks the submit language
// through the tools (the tools expand submit files with internal/submit;
// the schedd checks what they send), answers queries, and runs jobs on the
// slots the negotiator matches to them.
//
//	kite submit ──clusters, submit──▶ ┌──────────────────────────────┐
//	kite q/history ──query──────────▶ │ Server                       │ ──ads──▶ collector
//	kite rm/hold/release/qedit ─act─▶ │  queue (bbolt, group commit) │ ──reschedule──▶ negotiator
//	negotiator ──requests, matches──▶ │  claims (registry), running  │ ──claim, activate, alive──▶ startd
//	startd ──job updates────────────▶ │  replication ▸ update        │
//	startd ──files──────────────────▶ │  transfer                    │
//	                                  └──────────────────────────────┘
//
// The Server wires rooms of their own, each a package that knows nothing
// of the Server; the calls go one way, from the Server into them:
//
//	queue      the durable job queue and history (bbolt, group commit)
//	claims     the registry of claims and of the job instances they run
//	adarray    a submit's body: counted as it streams, split, parsed on all cores
//	attrclass  who may set which job attribute (immutable, protected, secure)
//	jobpolicy  what periodic and on-exit policy expressions decide
//	jobtypes   JoSchKa's job type statistics, kept in the queue's store
//	factory    late materialization: job factories, whose procs the
//	           queue's transactions add as max_idle/max_materialize allow
//	matchexp   $$() match-time substitution against the claimed slot
//	transfer   job files served to and taken from the startd, as the owner
//
// The Server's own files do the I/O between them: running.go (matches,
// claims, activation, claim reuse, keep-alives), update.go (a startd's job
// events; replication.go sees each first and handles those of jobs that
// run several instances), lost.go and restart.go (machines lost, and the
// schedd's own restart), act.go and submit.go (users' changes), query.go,
// advertise.go, policy.go (the periodic timer), dag*.go (DAGs of
// HTCondor's DAGMan language, parsed and stepped by internal/dag, whose
// state changes in the queue's transactions with their node jobs': see
// dag.go). Job event logs are written by internal/userlog, as each job's
// owner.
//
// Every change a user cares about is committed before it is answered:
// submits, edits, holds, removals, a job's start and end. Changes that
// arrive together share one bbolt transaction (one fsync), so many small
// changes are cheap; the SIGKILL test checks that a killed schedd keeps
// every acknowledged change and nothing else.
//
// Jobs are matched in autoclusters (jobs with equal significant
// attributes) ordered by JobPrio, then submission; a match claims the
// slot at its startd, the job is committed Running, then the claim is
// activated with the job's ad. When a job ends, the same transaction that
// records its end starts the owner's next job that fits the claimed slot
// on the same claim (claim reuse), which is what makes hundreds of jobs a
// second possible on a handful of slots. Claims are kept alive each third
// of their lease; a claim whose startd stops answering past the lease
// gives its job back to idle with an evicted event, so a job is never lost
// and never runs twice at once. A restarted schedd reconnects to the jobs
// their startds still run (restart.go); it puts the others back to idle,
// vacates their claims, and holds them back until the claims are gone or
// their leases are over.
//
// Periodic policy (periodic_hold, periodic_remove, periodic_release) runs
// on a timer, on_exit_hold and on_exit_remove at each exit; max_retries is
// an OnExitRemove the submit language writes. Owners change their own
// jobs, administrators anyone's. The schedd advertises its Scheduler ad
// and one Submitter ad per owner (or accounting group user) soon after a
// change and every update interval, and pokes the negotiator when jobs
// are idle.
//
// docs/protocol/schedd.md lists the endpoints.
package schedd
