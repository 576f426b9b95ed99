package wire

import "github.com/kite-sched/kite/classad"

// The startd's claim endpoints, called by schedds. A claim id is a secret
// the startd made and gave to the negotiator only (in the slot's ClaimId):
// holding it proves a match. It travels in bodies, never in paths.
const (
	// PathClaim is POST: claim a matched slot (ClaimRequest → ClaimResult;
	// DAEMON). The startd re-checks its policy (START, Requirements)
	// against the job; a refusal is 409 with the reason.
	PathClaim = "/v1/claims"
	// PathActivate is POST: run a job on a claimed slot (Activate; DAEMON).
	PathActivate = "/v1/claims/activate"
	// PathAlive is POST: renew a claim's lease (ClaimRef → AliveResult; DAEMON).
	PathAlive = "/v1/claims/alive"
	// PathRelease is POST: give a claimed slot back (ClaimRef; DAEMON).
	PathRelease = "/v1/claims/release"
	// PathVacate is POST: stop the job of a claim, which goes back to its
	// schedd as evicted (Vacate; DAEMON).
	PathVacate = "/v1/claims/vacate"
)

// ClaimRequest claims a slot for a schedd.
type ClaimRequest struct {
	ClaimID string `json:"claim_id"` // from the matched slot's ClaimId
	Slot    string `json:"slot"`     // the slot's Name
	// Job is the job the claim is for; the startd evaluates its policy
	// against it, and sizes a dynamic slot from its requests.
	Job *classad.Ad `json:"job"`
	// Schedd is where the schedd serves (host:port), for job updates and
	// file transfer; ScheddName names it.
	Schedd     string `json:"schedd"`
	ScheddName string `json:"schedd_name"`
	// Lease is how long, in seconds, the claim lives without a keep-alive.
	Lease int `json:"lease"`
	// Preempt claims a busy slot with the preempting claim id its ad
	// carries: "rank" (the slot ranks this job above the one it runs) or
	// "priority" (the negotiator's PREEMPTION_REQUIREMENTS allowed it).
	// The running job is vacated first and goes back to its schedd.
	Preempt string `json:"preempt,omitempty"`
}

// ClaimResult is a granted claim.
type ClaimResult struct {
	// ClaimID is the claim's id from now on: for a partitionable slot it
	// names the new dynamic slot's claim.
	ClaimID string      `json:"claim_id"`
	Slot    *classad.Ad `json:"slot"` // the claimed slot's ad
	Lease   int         `json:"lease"`
}

// ClaimRef names a claim.
type ClaimRef struct {
	ClaimID string `json:"claim_id"`
}

// AliveResult answers a keep-alive.
type AliveResult struct {
	Lease int `json:"lease"` // seconds from now
	// Job is the job ("cluster.proc") the claim runs now, "" when none:
	// a restarted schedd reconnects to the jobs its claims still run.
	Job string `json:"job,omitempty"`
}

// Activate runs a job on a claimed slot.
type Activate struct {
	ClaimID string `json:"claim_id"`
	// Job is the whole job ad: command, arguments, environment, files.
	Job *classad.Ad `json:"job"`
}

// Vacate stops a claim's job.
type Vacate struct {
	ClaimID string `json:"claim_id"`
	Reason  string `json:"reason"`
	// Fast kills at once instead of sending the job's kill signal first.
	Fast bool `json:"fast,omitempty"`
}
