package config

import (
	"path/filepath"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/runas"
)

// Schedd configures the job queue.
type Schedd struct {
	// Listen is the schedd's host:port; port 0 picks a free one.
	Listen string `toml:"listen"`
	// Name names the schedd in its ads; empty means the host name.
	Name string `toml:"name"`
	// Spool is the directory of the job queue (job_queue.db, with its
	// write-ahead log job_queue.db-wal0 and job_queue.db-wal1: a copy
	// taken while the schedd runs needs all three; after a clean stop
	// job_queue.db alone is whole) and the history; relative to the
	// configuration file's directory. Empty means "schedd" under the
	// pool's state_dir (HTCondor's SPOOL).
	Spool string `toml:"spool"`
	// FlockTo names, in order of preference, the pools (tables of
	// pool.peers) this schedd's idle jobs may flock to (HTCondor's
	// FLOCK_TO): while jobs wait it advertises its submitters to one more
	// of them each flock_after, and takes their negotiators' matches.
	FlockTo []string `toml:"flock_to"`
	// FlockAfter is how long a job waits idle, and the flock level stays,
	// before the schedd advertises to the next pool of flock_to.
	FlockAfter Duration `toml:"flock_after"`
	// UIDDomain names the domain of the submitters' accounts: jobs are
	// accounted to owner@uid_domain. Empty means the schedd's host name
	// (HTCondor's UID_DOMAIN).
	UIDDomain string `toml:"uid_domain"`
	// IdentityMap turns token identities into local account names, as
	// HTCondor's map file does: each rule is "REGEXP ACCOUNT", and the
	// first whose regular expression matches the identity names the
	// account, with $1 or ${name} for the expression's groups; an
	// identity no rule matches is the account of the same name. A schedd
	// running as root opens each job's files as that account and refuses
	// a submit whose account does not exist. Example:
	// ["^(.+)@example\\.org$ $1"].
	IdentityMap []string `toml:"identity_map"`
	// AcceptIdentities lists the identities, beside the schedd's own
	// account and the pool's administrators, that may submit to a schedd
	// that is not root; every job of such a schedd runs as its account.
	// ["*"] accepts every identity holding WRITE. Typically empty.
	AcceptIdentities []string `toml:"accept_identities"`
	// PeriodicInterval is how often the jobs' periodic_hold,
	// periodic_release and periodic_remove are evaluated (HTCondor's
	// PERIODIC_EXPR_INTERVAL: 60s).
	PeriodicInterval Duration `toml:"periodic_interval"`
	// UpdateInterval is how often the schedd's and submitters' ads are
	// sent to the collector even when nothing changed (HTCondor's
	// SCHEDD_INTERVAL: 5m).
	UpdateInterval Duration `toml:"update_interval"`
	// UpdateDelay gathers the changes of this long into one update of the
	// ads (and one poke of the negotiator). Typically 100ms.
	UpdateDelay Duration `toml:"update_delay"`
	// ClaimLease is the lease the schedd asks of startds: a claim not kept
	// alive for this long is given up by both sides, and its job goes back
	// to idle. Keep-alives go every third of it. Typically 60s.
	ClaimLease Duration `toml:"claim_lease"`
	// DAGHoldClaimTime is how long the claim of a DAG node's job that has
	// children stays idle after the job ends, so that a child submitted
	// meanwhile runs on it at once instead of after a negotiation cycle
	// (DAGMan's DAGMAN_HOLD_CLAIM_TIME: the node jobs carry KeepClaimIdle).
	// 0 gives claims back at once; at most 1h. Typically 20s.
	DAGHoldClaimTime Duration `toml:"dag_hold_claim_time"`
	// MaxRunningJobs caps the jobs running at once (HTCondor's
	// MAX_JOBS_RUNNING). Typically 10000.
	MaxRunningJobs int `toml:"max_running_jobs"`
	// HistoryRetain is how many finished jobs the history keeps, newest
	// first; 0 keeps all. Typically 100000.
	HistoryRetain int `toml:"history_retain"`
	// MaxBodyBytes bounds the body of one submit: a large cluster is one
	// body. The other requests of users are bounded by what they carry:
	// a few expressions (see max_expression_bytes). Typically 256 MiB.
	MaxBodyBytes int64 `toml:"max_body_bytes"`
	// MaxJobsPerSubmission is the most jobs one submit may queue
	// (HTCondor's MAX_JOBS_PER_SUBMISSION). A larger submit is refused
	// before its jobs are read. Typically 20000.
	MaxJobsPerSubmission int `toml:"max_jobs_per_submission"`
	// MaxJobsPerOwner is the most jobs one owner may have in the queue
	// (HTCondor's MAX_JOBS_PER_OWNER): a submit that would pass it is
	// refused. Typically 100000.
	MaxJobsPerOwner int `toml:"max_jobs_per_owner"`
	// MaxExpressionBytes bounds each expression a request carries: a
	// query's or an action's constraint, a qedit value. Typically 1 MiB.
	MaxExpressionBytes int `toml:"max_expression_bytes"`
	// MaxExpressionTokens bounds the tokens (names, literals, operators,
	// brackets) of each such expression, and so the size of the tree the
	// schedd builds and evaluates for it. Typically 100000.
	MaxExpressionTokens int `toml:"max_expression_tokens"`
	// MaxExpressionDepth bounds the nesting of each such expression (at
	// most 500, the parser's own bound, HTCondor's MAX_PARSER_DEPTH).
	// Typically 500.
	MaxExpressionDepth int `toml:"max_expression_depth"`
	// RequeueAfter is how long after gossip finds a startd dead the jobs
	// running there go back to idle (JoSchKa's keep-alive requeue), so
	// that they run elsewhere before the claim lease would end; 0
	// requeues at once. A startd that answers again meanwhile keeps its
	// jobs; one that answers after has its old claims vacated. Needs
	// membership; without it the claim lease alone finds lost machines.
	// Typically 30s.
	RequeueAfter Duration `toml:"requeue_after"`
	// MaxAborts is how many times a job's machine may be lost under it
	// (found dead by gossip, or its claim lease ran out) before the job
	// is held instead of run again (JoSchKa's block: hold code 26,
	// subcode 1); releasing the job starts the count again. A job's own
	// KiteMaxAborts replaces it; 0 never holds. Typically 5.
	MaxAborts int `toml:"max_aborts"`
	// Replicas is how many extra instances of a running job may run on
	// other machines when slots are left over (replication, as JoSchKa
	// and paper 002 do it): the first instance to finish wins and the
	// others are killed. A job's own KiteReplicas replaces it. Replica
	// requests go to the negotiator beside the idle jobs' requests; only
	// strategies that replicate (joschka-*, no-passing) use them. 0 turns
	// replication off. Typically 0 or 1.
	Replicas int `toml:"replicas"`
	// StartLocalUniverse says when a local universe job may start on the
	// schedd's host: a ClassAd expression evaluated with the schedd's ad
	// as MY (TotalLocalJobsRunning, TotalLocalJobsIdle, ...) and the job
	// as TARGET (HTCondor's START_LOCAL_UNIVERSE). Typically
	// "TotalLocalJobsRunning < 200".
	StartLocalUniverse string `toml:"start_local_universe"`
	// StartSchedulerUniverse is the same for scheduler universe jobs
	// (HTCondor's START_SCHEDULER_UNIVERSE). Typically
	// "TotalSchedulerJobsRunning < 500".
	StartSchedulerUniverse string `toml:"start_scheduler_universe"`
}

// maxReplicas bounds schedd.replicas: more copies of one job than this
// waste a pool.
const maxReplicas = 16

// SpoolDir returns the schedd's spool directory, resolved.
func (c *Config) SpoolDir() string {
	if c.Schedd.Spool != "" {
		return c.Path(c.Schedd.Spool)
	}
	return filepath.Join(c.Path(c.Pool.StateDir), "schedd")
}

func init() {
	extraValidators = append(extraValidators, func(c *Config) []error {
		var errs []error
		check := func(ok bool, key, format string, args ...any) {
			if !ok {
				errs = append(errs, c.errorAt(key, format, args...))
			}
		}
		s := c.Schedd
		check(s.PeriodicInterval.Duration > 0, "schedd.periodic_interval", "must be a positive duration")
		check(s.UpdateInterval.Duration > 0, "schedd.update_interval", "must be a positive duration")
		check(s.UpdateDelay.Duration >= 0 && s.UpdateDelay.Duration <= s.UpdateInterval.Duration,
			"schedd.update_delay", "must be between 0 and schedd.update_interval")
		check(s.ClaimLease.Duration >= 3e9, "schedd.claim_lease", "must be at least 3s")
		check(s.DAGHoldClaimTime.Duration >= 0 && s.DAGHoldClaimTime.Duration <= time.Hour,
			"schedd.dag_hold_claim_time", "must be between 0 and 1h")
		check(s.MaxRunningJobs >= 0, "schedd.max_running_jobs", "must not be negative")
		check(s.HistoryRetain >= 0, "schedd.history_retain", "must not be negative")
		check(s.MaxBodyBytes >= 1<<20, "schedd.max_body_bytes", "must be at least 1 MiB")
		check(s.MaxJobsPerSubmission >= 1, "schedd.max_jobs_per_submission", "must be at least 1")
		check(s.MaxJobsPerOwner >= 1, "schedd.max_jobs_per_owner", "must be at least 1")
		errs = append(errs, c.checkExprLimits("schedd", s.MaxExpressionBytes, s.MaxExpressionTokens, s.MaxExpressionDepth)...)
		check(s.Spool != "" || c.Pool.StateDir != "", "schedd.spool", "the schedd needs a spool directory (or pool.state_dir)")
		check(s.RequeueAfter.Duration >= 0, "schedd.requeue_after", "must not be negative")
		check(s.MaxAborts >= 0, "schedd.max_aborts", "must not be negative (0 never holds)")
		for i, line := range s.IdentityMap {
			_, err := runas.ParseRule(line)
			check(err == nil, "schedd.identity_map", "rule %d: %v", i+1, err)
		}
		check(s.Replicas >= 0 && s.Replicas <= maxReplicas, "schedd.replicas", "must be between 0 and %d", maxReplicas)
		for key, src := range map[string]string{"schedd.start_local_universe": s.StartLocalUniverse, "schedd.start_scheduler_universe": s.StartSchedulerUniverse} {
			_, err := classad.ParseExpr(src)
			check(src == "" || err == nil, key, "not a ClassAd expression: %v", err)
		}
		return errs
	})
}
