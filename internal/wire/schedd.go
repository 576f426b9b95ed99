package wire

// The schedd's endpoints for users and tools: submit, the queue, actions
// on jobs, and the history. docs/protocol/schedd.md describes them.
const (
	// PathNewCluster is POST: hand out a cluster id for the caller's next
	// submit (no body → NewCluster; WRITE). Ids are handed out durably and
	// never twice.
	PathNewCluster = "/v1/queue/clusters"
	// PathSubmit is POST: the jobs of one cluster, committed all or
	// nothing (query cluster=N; body: a JSON array of ads, the cluster ad
	// then each proc's own ad → SubmitResult; WRITE).
	PathSubmit = "/v1/queue/submit"
	// PathQueue is POST: job ads, streamed in cluster.proc order
	// (JobQuery → one ad per item; READ).
	PathQueue = "/v1/queue/query"
	// PathTotals is GET: the queue's job counts, in all and by owner
	// (→ QueueTotals; READ).
	PathTotals = "/v1/queue/totals"
	// PathAct is POST: remove, hold or release jobs (Act → ActResult;
	// WRITE).
	PathAct = "/v1/queue/act"
	// PathEdit is POST: set attributes of jobs, condor_qedit (Edit →
	// ActResult; WRITE).
	PathEdit = "/v1/queue/edit"
	// PathHistory is POST: jobs that left the queue, newest first,
	// streamed (HistoryQuery → one ad per item; READ).
	PathHistory = "/v1/history/query"
)

// NewCluster is a cluster id handed out for a submit.
type NewCluster struct {
	Cluster int64 `json:"cluster"`
	// Owner is who the schedd takes the caller for: the jobs' Owner.
	Owner string `json:"owner"`
	// MaxJobs is the most jobs the submit may queue (the schedd's
	// max_jobs_per_submission), so that a tool refuses a larger one before
	// making its jobs. 0: not said.
	MaxJobs int `json:"max_jobs,omitempty"`
}

// SubmitResult says what a submit queued.
type SubmitResult struct {
	Cluster int64 `json:"cluster"`
	Procs   int   `json:"procs"`
}

// JobSelection picks jobs with condor_q's rules: IDs ("12" for a cluster,
// "12.3" for a job) and Owners each select jobs, and are or-ed among
// themselves; when both are given a job must match one of each.
// Constraint, a ClassAd expression, must hold as well. With none of
// these, All must be set to select every job (queries select all
// anyway).
type JobSelection struct {
	IDs        []string `json:"ids,omitempty"`
	Owners     []string `json:"owners,omitempty"`
	Constraint string   `json:"constraint,omitempty"`
	All        bool     `json:"all,omitempty"`
}

// JobQuery asks for job ads.
type JobQuery struct {
	JobSelection
	// Projection lists the attributes to return; empty returns whole ads.
	Projection []string `json:"projection,omitempty"`
	// Limit caps the number of ads (0: no cap).
	Limit int `json:"limit,omitempty"`
	// Batches asks for condor_q's batch summary of the selected jobs
	// instead of their ads: one Batch per item, in the order of each
	// batch's first job.
	Batches bool `json:"batches,omitempty"`
	// Factories asks for the cluster ads of the selected clusters' job
	// factories instead (condor_q -factory): each with
	// JobMaterializeNextProcId, JobMaterializePaused and the counts
	// JobsPresent, JobsIdle, JobsRunning and JobsHeld.
	Factories bool `json:"factories,omitempty"`
}

// Batch summarises the jobs of one batch: an owner's jobs that share a
// batch name (JobBatchName), or else the jobs of one cluster.
type Batch struct {
	Owner string `json:"owner"`
	// Name is the batch name; "" for a cluster's jobs without one.
	Name    string `json:"name,omitempty"`
	Cluster int64  `json:"cluster"` // the first job's cluster
	// Submitted is the earliest QDate (Unix seconds).
	Submitted int64 `json:"submitted"`
	// Total is how many jobs the batch's clusters were submitted with.
	Total int64 `json:"total"`
	// Unmade is how many of Total a job factory (late materialization)
	// has yet to make: neither in the queue nor done.
	Unmade int64 `json:"unmade,omitempty"`
	StatusCounts
	// First and Last are the batch's first and last jobs in the queue.
	First string `json:"first"`
	Last  string `json:"last"`
}

// StatusCounts counts jobs by JobStatus.
type StatusCounts struct {
	Jobs      int `json:"jobs"`
	Completed int `json:"completed"`
	Removed   int `json:"removed"`
	Idle      int `json:"idle"`
	Running   int `json:"running"`
	Held      int `json:"held"`
	Suspended int `json:"suspended"`
}

// QueueTotals counts a schedd's jobs, in all and by owner.
type QueueTotals struct {
	Schedd string `json:"schedd"`
	Addr   string `json:"addr"`
	// Caller is who the schedd takes the caller for (condor_q shows only
	// the caller's jobs by default).
	Caller  string                  `json:"caller"`
	All     StatusCounts            `json:"all"`
	ByOwner map[string]StatusCounts `json:"by_owner"`
}

// Actions on jobs.
const (
	ActRemove  = "remove"
	ActHold    = "hold"
	ActRelease = "release"
	// ActVacate stops running jobs where they run and puts them back to
	// idle, condor_vacate_job; jobs that do not run are left alone.
	ActVacate = "vacate"
)

// Act removes, holds, releases or vacates the selected jobs. Owners act on their
// own jobs only; ADMINISTRATORs on anyone's.
type Act struct {
	Action string `json:"action"`
	JobSelection
	// Reason replaces the default reason ("via kite hold (by user alice)").
	Reason string `json:"reason,omitempty"`
	// SubCode is a hold's HoldReasonSubCode.
	SubCode int `json:"subcode,omitempty"`
	// Fast kills vacated jobs at once instead of sending their soft kill
	// signal first (condor_vacate_job -fast).
	Fast bool `json:"fast,omitempty"`
}

// ActResult says what an action or edit did: Matched jobs were selected,
// of which Changed were changed and Denied belong to others; the rest were
// in a state the action does not apply to (releasing a job that is not
// held).
type ActResult struct {
	Matched int `json:"matched"`
	Changed int `json:"changed"`
	Denied  int `json:"denied"`
	// Factories counts the job factories (late materialization) of
	// whole clusters removed, paused or resumed.
	Factories int `json:"factories,omitempty"`
	// DAGs counts the DAGs removed (their node jobs are among Changed).
	DAGs int `json:"dags,omitempty"`
}

// Edit sets attributes of the selected jobs: each value is a ClassAd
// expression. Attributes the schedd keeps itself (ClusterId, ProcId,
// Owner, JobStatus, ...) cannot be set.
type Edit struct {
	JobSelection
	Attrs map[string]string `json:"attrs"`
}

// HistoryQuery asks for jobs that left the queue, newest first.
type HistoryQuery struct {
	Owners     []string `json:"owners,omitempty"`
	IDs        []string `json:"ids,omitempty"`
	Constraint string   `json:"constraint,omitempty"`
	Projection []string `json:"projection,omitempty"`
	// Limit caps the number of ads (0: no cap).
	Limit int `json:"limit,omitempty"`
}
