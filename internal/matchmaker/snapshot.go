package matchmaker

import (
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/policy"
)

// Snapshot is everything one cycle decides from: the pool's slots and the
// submitters with their resource requests, as fetched before the cycle.
type Snapshot struct {
	Slots      []*classad.Ad
	Submitters []Submitter
	// Now is the cycle's time; expressions see it through time().
	Now time.Time
	// LimitsInUse counts the concurrency limits held by running jobs, by
	// lower-case limit name.
	LimitsInUse map[string]float64
	// Priorities are the effective priorities of every user the
	// accountant knows, submitters or not, by accounting name: priority
	// preemption compares a slot's RemoteUser with the submitter.
	Priorities map[string]float64
	// PoolWeight is the slot weight of the whole pool, claimed or not,
	// that fair share divides; zero means the weight of Slots.
	PoolWeight float64
	// Pool is every slot ad of the pool, claimed or not, when Slots holds
	// fewer (the simulator passes only free slots); nil means Slots.
	// Strategies read it through policy.Market.Pool.
	Pool []*classad.Ad
}

// Submitter is one accounting principal with idle jobs.
type Submitter struct {
	Name   string // e.g. "alice"
	Schedd string // address of the schedd holding its jobs
	// Priority is the effective user priority: lower gets more.
	Priority float64
	// InUse is the slot weight its jobs hold now.
	InUse float64
	// Requests are its autoclusters in the schedd's order.
	Requests []Request
}

// Request is an autocluster: Count idle jobs alike; Ad is one of them.
type Request struct {
	ID    string
	Count int
	Ad    *classad.Ad
	// Schedd holds the jobs, when not the submitter's Schedd (a user
	// submitting at several schedds is one submitter).
	Schedd string
}

// Policy is the pool's matchmaking policy (HTCondor's negotiator knobs).
type Policy struct {
	// PreJobRank, PostJobRank and PreemptionRank order candidate slots
	// around the job's own Rank; each is evaluated with MY bound to the
	// slot and TARGET to the job. Nil means none.
	PreJobRank, PostJobRank, PreemptionRank *classad.Program
	// PreemptionRequirements allows preempting a busy slot for a submitter
	// of better priority; nil (HTCondor's default, False) never does.
	PreemptionRequirements *classad.Program
	// ConsiderPreemption lets busy slots be candidates at all, for slot
	// Rank and priority preemption.
	ConsiderPreemption bool
	// ConcurrencyLimits maps a limit name to its maximum; DefaultLimit
	// applies to names not listed (0: unlimited).
	ConcurrencyLimits map[string]float64
	DefaultLimit      float64
	// Seed breaks ties among equally ranked slots, so that a cycle is a
	// deterministic function of its inputs and seed.
	Seed uint64
	// Strategy distributes the slots; nil is HTCondor's (policy.Condor).
	Strategy policy.Strategy
}

// Match gives one job of a request a slot.
type Match struct {
	Submitter string
	Schedd    string
	Request   string
	// Slot is the slot's ad as matched, with its ClaimId; for a
	// partitionable slot, what it had left before this job's share.
	Slot     *classad.Ad
	SlotName string
	// Preempt says why a busy slot is taken: "" (it was free), "rank"
	// (the slot prefers this job) or "priority".
	Preempt string
	Rank    float64 // the job's Rank of the slot
	// Cpus, Memory and Disk are what the job takes of a partitionable
	// slot (zero for other slots).
	Cpus, Memory, Disk float64
}

// Result is what a cycle decided, with what it cost.
type Result struct {
	Matches []Match
	Stats   Stats
}

// Stats describes a cycle: how long each phase took and why requests
// went unmatched.
type Stats struct {
	Strategy                             string
	Slots, Classes, Requests, Submitters int
	Jobs                                 int // idle jobs the requests stand for
	Evaluations                          int // request-against-slot-class evaluations
	ClassifyTime, MatchTime              time.Duration
	// Rejections counts the jobs left unmatched by reason (policy.Reason
	// names: "no-match", "busy", "quota", "limit", "priority", "policy").
	Rejections map[string]int
}
