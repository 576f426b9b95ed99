// Package policy decides how a negotiation cycle hands out slots: which
// submitter and which of its resource requests goes first, and which of the
// slots a request matches it gets. The cycle (internal/matchmaker) prepares
// a Market (every slot that can take a job now, every submitter's requests,
// and exact, memoized ClassAd matching between them) and a Strategy spends
// it.
//
// HTCondor's own behaviour — fair share by effective priority, pie spins,
// slots chosen by the rank tuple — is the Condor strategy and the default.
// The others (random, round-robin, least work left, JoSchKa's strategies,
// no job passing, the batch heuristics) plug in the same way, so the live
// negotiator and the simulator run the same code.
//
// A strategy only chooses; the market checks. Assign refuses a slot the
// request does not match, a slot already taken, or a match that would break
// a concurrency limit, so no strategy can make a match HTCondor's rules
// forbid.
package policy

import (
	"math/rand/v2"
	"time"

	"github.com/kite-sched/kite/classad"
)

// Strategy distributes a market's slots among its requests.
type Strategy interface {
	// Name is how configuration and reports call the strategy.
	Name() string
	// Distribute makes the cycle's matches with m.Assign.
	Distribute(m Market)
}

// Market is one negotiation cycle as a strategy sees it. Indices are
// stable for the cycle: slot i, request j, submitter s.
type Market interface {
	// Now is the cycle's time (virtual in the simulator).
	Now() time.Time
	// Rand is the cycle's seeded randomness: the same seed and inputs give
	// the same matches.
	Rand() *rand.Rand

	// Submitters are the accounting principals with idle jobs, in no
	// particular order.
	Submitters() []Submitter
	// Requests are the resource requests of all submitters.
	Requests() []Request
	// Remaining is how many idle jobs request j still has this cycle.
	Remaining(j int) int
	// Slots are the slots that can take a job now: free ones and, when
	// the pool considers preemption, busy ones.
	Slots() []Slot
	// Free reports whether slot i can still be assigned: not taken this
	// cycle (a partitionable slot stays free while resources remain).
	Free(i int) bool
	// PoolWeight is the weight of every slot of the pool, claimed or not:
	// the pie fair share divides.
	PoolWeight() float64
	// FreeWeight is the weight still free this cycle.
	FreeWeight() float64
	// Pool is the ad of every slot of the pool, claimed or not (Slots
	// holds only those that can take a job now): strategies that judge a
	// slot against the whole pool read it, as JoSchKa's power class
	// normalises reliability over every known machine. Busy slots show
	// what they run (JobId, and the job attributes the pool copies, such
	// as KiteJobType and KiteBatch).
	Pool() []*classad.Ad

	// Best returns the slot request j should get next by HTCondor's rank
	// tuple (pre-job rank, job Rank, post-job rank, preemption reason,
	// preemption rank; ties broken by the seed), or -1 and why none.
	Best(j int) (int, Reason)
	// Candidates appends to dst the slots request j may get now, best
	// first, as Best orders them.
	Candidates(j int, dst []int) []int
	// Matches reports whether request j may get slot i now.
	Matches(j, i int) bool
	// Assign gives one job of request j slot i and returns the weight the
	// match takes (a partitionable slot's dynamic slot weighs what the job
	// requests). It fails with the reason when the match is not allowed.
	Assign(j, i int) (float64, Reason)
	// Reject records that request j's remaining jobs wait for reason.
	Reject(j int, why Reason)
}

// Submitter is an accounting principal with idle jobs.
type Submitter struct {
	Name string
	// Priority is the effective user priority (EUP): lower gets more.
	Priority float64
	// InUse is the slot weight its running jobs hold now.
	InUse float64
	// Requests are indices into Market.Requests, in the schedd's order.
	Requests []int
}

// Request is an autocluster: idle jobs that match alike.
type Request struct {
	Submitter int // index into Market.Submitters
	ID        string
	Count     int         // idle jobs at the start of the cycle
	Ad        *classad.Ad // one of them
	// Replica requests ask for more instances of running jobs (their ad
	// has KiteReplica = true; Count is how many more may start): the
	// first instance to finish wins and the pool kills the others. Only
	// strategies whose Needs ask for replicas are offered them.
	Replica bool
}

// Needs is what a strategy needs of the pool beyond the Market's basics.
type Needs struct {
	// Significant are job attributes the strategy reads from requests:
	// the schedds must tell autoclusters apart by them.
	Significant []string
	// SlotAttributes are slot attributes the strategy evaluates against
	// requests (a host's power may depend on the job): the job
	// attributes they read are significant too.
	SlotAttributes []string
	// Monitoring: slot ads carry the pool's node monitoring and request
	// ads their job type's statistics (internal/reliability).
	Monitoring bool
	// Replicas: the strategy starts extra instances of running jobs from
	// replica requests (Request.Replica).
	Replicas bool
	// Running: busy slot ads in Pool show the job they run.
	Running bool
}

// Needful is a strategy with Needs.
type Needful interface {
	Strategy
	Needs() Needs
}

// NeedsOf returns what s needs (nothing special when it is not Needful).
func NeedsOf(s Strategy) Needs {
	if n, ok := s.(Needful); ok {
		return n.Needs()
	}
	return Needs{}
}

// Slot is a slot that can take a job now.
type Slot struct {
	Name string
	Ad   *classad.Ad
	// Weight is what the slot counts against a submitter's share
	// (SlotWeight, else Cpus).
	Weight float64
	// Busy slots run a job already: taking one preempts it.
	Busy bool
	// Partitionable slots serve several jobs, one dynamic slot each.
	Partitionable bool
}

// Reason says why a request got no (more) slots.
type Reason uint8

// Reasons, as negotiator statistics count them.
const (
	OK       Reason = iota
	NoMatch         // no slot in the pool matches
	Busy            // matching slots exist, but all are taken or claimed
	Quota           // the submitter's fair share is used up
	Limit           // a concurrency limit is reached
	Priority        // only preemption could serve it, and priority does not allow it
	Policy          // the strategy held it back (e.g. no job passing)
	numReasons
)

// String is the reason's name in statistics and ads.
func (r Reason) String() string {
	switch r {
	case OK:
		return "ok"
	case NoMatch:
		return "no-match"
	case Busy:
		return "busy"
	case Quota:
		return "quota"
	case Limit:
		return "limit"
	case Priority:
		return "priority"
	case Policy:
		return "policy"
	}
	return "unknown"
}

// Reasons lists every reason a request can wait for.
func Reasons() []Reason {
	out := make([]Reason, 0, numReasons-1)
	for r := NoMatch; r < numReasons; r++ {
		out = append(out, r)
	}
	return out
}
