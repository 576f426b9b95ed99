package wire

import "github.com/kite-sched/kite/classad"

// Endpoints of the negotiation between the negotiator and schedds.
const (
	// PathResourceRequests is POST on a schedd: a submitter's idle jobs
	// grouped into autoclusters (RequestsQuery → ResourceRequests; DAEMON).
	PathResourceRequests = "/v1/negotiate/requests"
	// PathMatches is POST on a schedd: slots matched to its requests
	// (Matches → MatchesResult; DAEMON). The schedd then claims them.
	PathMatches = "/v1/negotiate/matches"
	// PathReschedule is POST on the negotiator: start a cycle soon, for
	// new idle jobs (no body; WRITE).
	PathReschedule = "/v1/reschedule"
)

// RequestsQuery asks a schedd for a submitter's resource requests.
type RequestsQuery struct {
	// Submitter is the accounting principal whose jobs are wanted, as the
	// schedd's submitter ad names it.
	Submitter string `json:"submitter"`
	// Significant lists the job attributes the pool's slot expressions
	// refer to. Jobs with equal values of these, and of the attributes
	// their own Requirements and Rank refer to, form one autocluster.
	Significant []string `json:"significant"`
	// Limit caps the number of requests (0: no cap).
	Limit int `json:"limit,omitempty"`
}

// ResourceRequest is an autocluster: idle jobs that match alike.
type ResourceRequest struct {
	// ID names the autocluster in the schedd's answer and in matches.
	ID string `json:"id"`
	// Count is how many idle jobs it holds.
	Count int `json:"count"`
	// Ad is one of its jobs: whole, so that both sides of a match can be
	// evaluated exactly.
	Ad *classad.Ad `json:"ad"`
}

// ResourceRequests is a schedd's answer, in the order it wants them served:
// higher job priority first, then older jobs.
type ResourceRequests struct {
	Requests []ResourceRequest `json:"requests"`
}

// Match gives one job of a resource request one slot.
type Match struct {
	Request string `json:"request"` // ResourceRequest.ID
	// Slot is the slot's ad as the negotiator matched it, with its ClaimId.
	// For a partitionable slot the job's RequestCpus, RequestMemory and
	// RequestDisk decide the dynamic slot the startd carves out.
	Slot *classad.Ad `json:"slot"`
	// Preempt says why a busy slot was matched: "rank" or "priority"
	// (empty: the slot was free). The schedd passes it on in its claim.
	Preempt string `json:"preempt,omitempty"`
}

// Matches delivers a cycle's matches for one submitter.
type Matches struct {
	Submitter string  `json:"submitter"`
	Matches   []Match `json:"matches"`
}

// MatchesResult says how many matches the schedd took on.
type MatchesResult struct {
	Accepted int `json:"accepted"`
}
