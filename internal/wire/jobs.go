package wire

// The schedd's endpoints for startds running its jobs. Each request names
// the job and carries the claim id it runs under, in the body or in the
// HeaderClaim header; the schedd checks that the claim is the job's.
const (
	// PathJobUpdate is POST: what happened to a running job (JobUpdate;
	// DAEMON).
	PathJobUpdate = "/v1/jobs/update"
	// PathJobUpdates is POST: several running jobs' last events at once,
	// from one startd (JobUpdates; DAEMON). Each is taken as PathJobUpdate
	// takes it; the answer (JobUpdatesResult) has each one's outcome, in
	// order.
	PathJobUpdates = "/v1/jobs/updates"
	// PathJobInput is GET: one input file of a job, by its name in the job
	// ad (query: job=C.P, file=NAME; header HeaderClaim; DAEMON). The
	// answer's HeaderSHA256 carries the file's checksum.
	PathJobInput = "/v1/jobs/input"
	// PathJobOutput is PUT: one output file of a job (query: job=C.P,
	// file=NAME; headers HeaderClaim and HeaderSHA256; DAEMON). A name
	// that would leave the job's directory is refused.
	PathJobOutput = "/v1/jobs/output"
	// PathJobCheckpoint is PUT and GET: one file of a self-checkpointing
	// job's checkpoint, kept by the schedd (query: job=C.P, file=NAME,
	// checkpoint=N; as PathJobOutput and PathJobInput; DAEMON). PUT stores
	// a file of checkpoint N before EventCheckpointed commits it; GET
	// serves a file of the job's committed checkpoint.
	PathJobCheckpoint = "/v1/jobs/checkpoint"
)

// Headers of file transfer.
const (
	HeaderClaim  = "X-Kite-Claim"
	HeaderSHA256 = "X-Kite-Sha256"
)

// Job events a startd reports.
const (
	EventStarted = "started" // the job's process began
	EventExited  = "exited"  // it ended by itself (ExitCode or signal), outputs sent
	EventEvicted = "evicted" // it was stopped (vacate, preemption, policy); back to idle
	EventHeld    = "held"    // the startd refuses to go on (bad input, over its limits)
	EventFailed  = "failed"  // it could not be started (missing executable, ...)
	// EventCheckpointed: the job exited with its checkpoint exit code and
	// its checkpoint's files are at the schedd; it runs on.
	EventCheckpointed = "checkpointed"
)

// JobUpdate reports an event of a running job.
type JobUpdate struct {
	ClaimID string `json:"claim_id"`
	Job     string `json:"job"` // "cluster.proc"
	Event   string `json:"event"`
	Time    int64  `json:"time"` // Unix seconds of the event

	// StartedAt, on a job's last event, says when its process began (Unix
	// seconds) when no started event was sent: a job that ends within
	// moments of starting is reported once.
	StartedAt int64 `json:"started_at,omitempty"`

	// For EventExited.
	ExitCode     int  `json:"exit_code,omitempty"`
	ExitBySignal bool `json:"exit_by_signal,omitempty"`
	ExitSignal   int  `json:"exit_signal,omitempty"`

	// Usage so far (all events after started).
	WallSeconds  float64 `json:"wall_seconds,omitempty"`
	UserCPU      float64 `json:"user_cpu,omitempty"` // seconds
	SysCPU       float64 `json:"sys_cpu,omitempty"`  // seconds
	PeakMemoryMB int64   `json:"peak_memory_mb,omitempty"`

	// For EventEvicted, EventHeld and EventFailed.
	Reason      string `json:"reason,omitempty"`
	HoldCode    int    `json:"hold_code,omitempty"`
	HoldSubCode int    `json:"hold_subcode,omitempty"`

	// TakesNext, on a job's last event, says the startd runs the claim's
	// next job if the answer brings it (JobUpdateResult.Next), saving the
	// schedd an activation.
	TakesNext bool `json:"takes_next,omitempty"`

	// For EventCheckpointed: the checkpoint's number (1, 2, ...) and its
	// files, by their names in the sandbox, comma separated.
	Checkpoint      int    `json:"checkpoint,omitempty"`
	CheckpointFiles string `json:"checkpoint_files,omitempty"`

	// On a run's last event: the run's file transfers, and its activation
	// times once its process began. (Pointers keep the update comparable.)
	Transfers  *RunTransfers    `json:"transfers,omitempty"`
	Activation *ActivationTimes `json:"activation,omitempty"`
}

// RunTransfers are a run's file transfers by method, named as HTCondor's
// statistics name them: "Cedar" for files moved with the schedd, a URL
// scheme upper-cased for a plugin's ("HTTPS").
type RunTransfers struct {
	In  map[string]TransferCount `json:"in,omitempty"`
	Out map[string]TransferCount `json:"out,omitempty"`
}

// TransferCount is what one method moved in one direction in a run.
type TransferCount struct {
	Files int64 `json:"files"`
	Bytes int64 `json:"bytes"`
}

// ActivationTimes are a run's phases as its starter saw them, in seconds:
// from the activation to the job's process starting (setup: sandbox and
// input transfer), the process's run (execution), and from its end to the
// run's last event (teardown: output transfer).
type ActivationTimes struct {
	SetupSeconds     float64 `json:"setup_seconds"`
	ExecutionSeconds float64 `json:"execution_seconds"`
	TeardownSeconds  float64 `json:"teardown_seconds"`
}

// JobUpdateResult answers a JobUpdate.
type JobUpdateResult struct {
	// Next is the claim's next job, committed as running, for a startd
	// that takes it (JobUpdate.TakesNext): the startd runs it as it would
	// an activation, or reports it evicted if it cannot.
	Next *Activate `json:"next,omitempty"`
}
