package wire

import "time"

// The negotiator's endpoints for tools (PathReschedule is in
// negotiation.go).
const (
	// PathPriorities is GET: every user the accountant knows (→
	// Priorities; READ).
	PathPriorities = "/v1/priorities"
	// PathSetFactor is POST: set a user's priority factor (SetFactor →
	// Priority; ADMINISTRATOR).
	PathSetFactor = "/v1/priorities/factor"
	// PathSetPriority is POST: set a user's real priority (SetPriority →
	// Priority; ADMINISTRATOR).
	PathSetPriority = "/v1/priorities/priority"
	// PathResetUsage is POST: forget a user's usage (ResetUsage →
	// Priority; ADMINISTRATOR).
	PathResetUsage = "/v1/priorities/reset"
	// PathCycle is GET: what the last negotiation cycle did (→
	// CycleReport; READ).
	PathCycle = "/v1/cycle"
)

// Priority is one user's account, as condor_userprio shows it.
type Priority struct {
	User string `json:"user"`
	// Effective is the effective priority (EUP = Real × Factor): lower
	// gets more of the pool.
	Effective float64 `json:"effective"`
	Real      float64 `json:"real"`
	Factor    float64 `json:"factor"`
	// InUse is the slot weight the user's jobs held at the last cycle.
	InUse float64 `json:"in_use"`
	// Usage is the accumulated usage in weighted slot-hours.
	Usage      float64   `json:"usage"`
	BeginUsage time.Time `json:"begin_usage,omitzero"`
	LastUsage  time.Time `json:"last_usage,omitzero"`
}

// Priorities lists users, best effective priority first.
type Priorities struct {
	Users []Priority `json:"users"`
}

// SetFactor changes a user's priority factor.
type SetFactor struct {
	User   string  `json:"user"`
	Factor float64 `json:"factor"`
}

// SetPriority changes a user's real priority (condor_userprio -setprio).
type SetPriority struct {
	User     string  `json:"user"`
	Priority float64 `json:"priority"`
}

// ResetUsage sets a user's priority back to the minimum.
type ResetUsage struct {
	User string `json:"user"`
}

// CycleReport is what one negotiation cycle did and what it cost.
type CycleReport struct {
	Number   int64     `json:"number"`
	Start    time.Time `json:"start"`
	Strategy string    `json:"strategy"`
	Seed     uint64    `json:"seed"`
	// Durations in seconds: the whole cycle and its phases (fetching ads,
	// asking schedds for requests, matching, sending matches).
	Duration float64 `json:"duration"`
	Fetch    float64 `json:"fetch"`
	Requests float64 `json:"requests"`
	Match    float64 `json:"match"`
	Deliver  float64 `json:"deliver"`

	Slots        int `json:"slots"`
	Classes      int `json:"classes"`
	Submitters   int `json:"submitters"`
	Autoclusters int `json:"autoclusters"`
	IdleJobs     int `json:"idle_jobs"`
	Matches      int `json:"matches"`
	Evaluations  int `json:"evaluations"`
	// Rejections counts the idle jobs left unmatched, by reason.
	Rejections map[string]int `json:"rejections"`
	// Unreachable lists schedds that did not answer this cycle.
	Unreachable []string `json:"unreachable,omitempty"`
}
