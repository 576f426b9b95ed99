package attr

// The cluster ad attributes of late materialization (a job factory), as
// HTCondor's schedd names them.
const (
	// JobMaterializeLimit bounds the cluster's jobs present in the queue
	// (max_materialize).
	JobMaterializeLimit = "JobMaterializeLimit"
	// JobMaterializeMaxIdle bounds the cluster's jobs that are not
	// running, held ones included (max_idle).
	JobMaterializeMaxIdle = "JobMaterializeMaxIdle"
	// JobMaterializeNextProcId is the ProcId the factory makes next.
	JobMaterializeNextProcId = "JobMaterializeNextProcId"
	// JobMaterializePaused is 0 while the factory runs, 1 when a hold
	// paused it, 2 when it is done.
	JobMaterializePaused = "JobMaterializePaused"
	// JobsPresent, JobsIdle, JobsRunning and JobsHeld count a factory's
	// cluster's jobs in the queue.
	JobsPresent = "JobsPresent"
	JobsIdle    = "JobsIdle"
	JobsRunning = "JobsRunning"
	JobsHeld    = "JobsHeld"
)
