package config

import "path/filepath"

// Schedd configures the job queue.
type Schedd struct {
	// Listen is the schedd's host:port; port 0 picks a free one.
	Listen string `toml:"listen"`
	// Name names the schedd in its ads; empty means the host name.
	Name string `toml:"name"`
	// Spool is the directory of the job queue (job_queue.db) and the
	// history; relative to the configuration file's directory. Empty
	// means "schedd" under the pool's state_dir (HTCondor's SPOOL).
	Spool string `toml:"spool"`
	// UIDDomain names the domain of the submitters' accounts: jobs are
	// accounted to owner@uid_domain. Empty means the schedd's host name
	// (HTCondor's UID_DOMAIN).
	UIDDomain string `toml:"uid_domain"`
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
	// MaxRunningJobs caps the jobs running at once (HTCondor's
	// MAX_JOBS_RUNNING). Typically 10000.
	MaxRunningJobs int `toml:"max_running_jobs"`
	// HistoryRetain is how many finished jobs the history keeps, newest
	// first; 0 keeps all. Typically 100000.
	HistoryRetain int `toml:"history_retain"`
	// MaxBodyBytes bounds one request body: a submit of a large cluster is
	// one body. Typically 256 MiB.
	MaxBodyBytes int64 `toml:"max_body_bytes"`
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
		check(s.MaxRunningJobs >= 0, "schedd.max_running_jobs", "must not be negative")
		check(s.HistoryRetain >= 0, "schedd.history_retain", "must not be negative")
		check(s.MaxBodyBytes >= 1<<20, "schedd.max_body_bytes", "must be at least 1 MiB")
		check(s.Spool != "" || c.Pool.StateDir != "", "schedd.spool", "the schedd needs a spool directory (or pool.state_dir)")
		check(s.RequeueAfter.Duration >= 0, "schedd.requeue_after", "must not be negative")
		check(s.MaxAborts >= 0, "schedd.max_aborts", "must not be negative (0 never holds)")
		check(s.Replicas >= 0 && s.Replicas <= maxReplicas, "schedd.replicas", "must be between 0 and %d", maxReplicas)
		return errs
	})
}
