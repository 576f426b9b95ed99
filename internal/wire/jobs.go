package wire

// The schedd's endpoints for startds running its jobs. Each request names
// the job and carries the claim id it runs under, in the body or in the
// HeaderClaim header; the schedd checks that the claim is the job's.
const (
	// PathJobUpdate is POST: what happened to a running job (JobUpdate;
	// DAEMON).
	PathJobUpdate = "/v1/jobs/update"
	// PathJobInput is GET: one input file of a job, by its name in the job
	// ad (query: job=C.P, file=NAME; header HeaderClaim; DAEMON). The
	// answer's HeaderSHA256 carries the file's checksum.
	PathJobInput = "/v1/jobs/input"
	// PathJobOutput is PUT: one output file of a job (query: job=C.P,
	// file=NAME; headers HeaderClaim and HeaderSHA256; DAEMON). A name
	// that would leave the job's directory is refused.
	PathJobOutput = "/v1/jobs/output"
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
}
