// Package claims is the schedd's registry of the claims it holds at
// startds and of the job instances they run. It is the one place that
// knows which claim runs which job, which idle jobs are being matched,
// and how many jobs run: every count is derived from its own state, under
// its one lock, so the schedd's handlers never keep a map or a counter of
// their own.
//
//	negotiator's match ──Reserve──▶ an idle job, held for the match
//	claim granted ──Add──▶ a Claim; committed Running ──Attach──▶ the job's first instance
//	replication ──AddReplica / Promote / DropInstance──▶ the job's other instances
//	job left the claim ──Detach──▶ the claim is free for the owner's next job
//	claim released or lost ──Drop──▶ forgotten (Gone)
//
// The registry does no I/O and writes nothing durable: the schedd commits
// a job's state first, then tells the registry (or tells it inside the
// transaction, where the two must agree). It is safe for concurrent use.
package claims

import (
	"slices"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/wire"
)

// Claim is one claim the schedd holds at a startd. The exported fields
// are set before the claim is registered and never change; the rest is
// the registry's, read through its methods.
type Claim struct {
	ID       string // the claim id (for a p-slot, its dynamic slot's)
	Startd   string // the startd's address
	SlotName string
	Slot     *classad.Ad // the claimed slot's ad; nil for a claim reconnected after a restart
	Owner    string      // the submitter the claim serves
	Lease    time.Duration
	// Limits are the concurrency limits of the job the negotiator matched
	// the claim for: it runs next only jobs with the same, since the
	// negotiator counted those and no others.
	Limits string
	// Replica is 0 for a job's first instance, k for its k-th replica.
	Replica int
	// Pool is the pool of the startd when it is another pool's (whose
	// negotiator matched the slot): calls to it present the flock token
	// for that pool. Empty for this pool's.
	Pool string

	alive   time.Time // last answered keep-alive (or the claim itself)
	job     queue.JobID
	busy    bool      // a job is attached to it
	gone    bool      // released or lost: ignore it
	started time.Time // when its job's process began
}

// job is the instances of one running job: the claim that runs it first
// (or carries it on) and its replicas, the machines replicas are being
// claimed on, and which instance sends the job's outputs.
type job struct {
	first     *Claim
	replicas  []*Claim
	reserving []string
	outputs   string
}

// Registry holds the claims and the jobs being matched and run.
type Registry struct {
	now func() time.Time

	mu       sync.Mutex
	claims   map[string]*Claim // by claim id
	jobs     map[queue.JobID]*job
	running  int                       // jobs with a first instance attached
	reserved map[queue.JobID]bool      // idle jobs picked for a match, being claimed
	blocked  map[queue.JobID]time.Time // jobs whose old claim may still run until then
	awaiting map[queue.JobID]bool      // running jobs whose unreachable startd is asked again
	requests map[string]map[string][]queue.JobID
	acIDs    map[string]int
}

// New returns an empty registry that reads the time from now.
func New(now func() time.Time) *Registry {
	return &Registry{
		now: now, claims: map[string]*Claim{}, jobs: map[queue.JobID]*job{},
		reserved: map[queue.JobID]bool{}, blocked: map[queue.JobID]time.Time{}, awaiting: map[queue.JobID]bool{},
		requests: map[string]map[string][]queue.JobID{}, acIDs: map[string]int{},
	}
}

// Add registers a claim granted by a startd, not yet running a job; its
// last sign of life is now.
func (r *Registry) Add(c *Claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.alive = r.now()
	r.claims[c.ID] = c
}

// Reattach registers the claim of a job found running after a restart,
// attached to it.
func (r *Registry) Reattach(c *Claim, id queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.alive = r.now()
	r.claims[c.ID] = c
	r.attachLocked(c, id)
}

// Attach records that a claim runs a job, once the job is committed
// running on it.
func (r *Registry) Attach(c *Claim, id queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attachLocked(c, id)
}

func (r *Registry) attachLocked(c *Claim, id queue.JobID) {
	c.job, c.busy = id, true
	r.jobOf(id).first = c
	r.running++
}

// jobOf returns a job's instances, making them (the lock is held).
func (r *Registry) jobOf(id queue.JobID) *job {
	j := r.jobs[id]
	if j == nil {
		j = &job{}
		r.jobs[id] = j
	}
	return j
}

// forget removes a job's entry once nothing of it is left (the lock is held).
func (r *Registry) forget(id queue.JobID) {
	if j := r.jobs[id]; j != nil && j.first == nil && len(j.replicas) == 0 && len(j.reserving) == 0 && j.outputs == "" {
		delete(r.jobs, id)
	}
}

// Detach frees a claim of its job (the job left it); the claim stays
// registered for the owner's next job.
func (r *Registry) Detach(c *Claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.detachLocked(c)
}

func (r *Registry) detachLocked(c *Claim) {
	if !c.busy {
		return
	}
	c.busy = false
	r.running--
	if j := r.jobs[c.job]; j != nil && j.first == c {
		j.first = nil
		r.forget(c.job)
	}
}

// DetachJob frees the claim that runs a job first, if any.
func (r *Registry) DetachJob(id queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j := r.jobs[id]; j != nil && j.first != nil && j.first.job == id {
		r.detachLocked(j.first)
	}
}

// Drop forgets a claim: it is detached and Gone from now on.
func (r *Registry) Drop(c *Claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.detachLocked(c)
	c.gone = true
	delete(r.claims, c.ID)
}

// State is what the registry knows of a claim at one moment.
type State struct {
	Job    queue.JobID // the job it runs or last ran
	Busy   bool        // a job is attached to it
	Gone   bool        // released or lost
	Others int         // the other live instances of its job
}

// State returns a claim's state.
func (r *Registry) State(c *Claim) State {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, others := r.instanceLocked(c.job, c.ID)
	return State{Job: c.job, Busy: c.busy, Gone: c.gone, Others: others}
}

// Of returns the claim that runs a job first, if its id is claimID.
func (r *Registry) Of(id queue.JobID, claimID string) *Claim {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	if claimID == "" || j == nil || j.first == nil || j.first.ID != claimID {
		return nil
	}
	return j.first
}

// First returns the claim that runs a job first, and whether it has
// started the job's process.
func (r *Registry) First(id queue.JobID) (c *Claim, started bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j := r.jobs[id]; j != nil && j.first != nil {
		return j.first, !j.first.started.IsZero()
	}
	return nil, false
}

// At lists the claims at a startd.
func (r *Registry) At(startd string) []*Claim {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Claim
	for _, c := range r.claims {
		if c.Startd == startd {
			out = append(out, c)
		}
	}
	return out
}

// All lists every claim.
func (r *Registry) All() []*Claim {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Claim, 0, len(r.claims))
	for _, c := range r.claims {
		out = append(out, c)
	}
	return out
}

// Count is how many claims are held.
func (r *Registry) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.claims)
}

// Known reports whether a claim id is registered.
func (r *Registry) Known(claimID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.claims[claimID]
	return ok
}

// Running is how many jobs run (first instances; replicas not counted).
func (r *Registry) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running
}

// Alive records that a claim's startd answered for it now.
func (r *Registry) Alive(c *Claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.alive = r.now()
}

// Silent is how long a claim's startd has not answered for it.
func (r *Registry) Silent(c *Claim) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now().Sub(c.alive)
}

// Started records that a claim's job process began at a time, unless an
// earlier start is known; it reports whether this was the first report.
func (r *Registry) Started(c *Claim, at time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !c.started.IsZero() {
		return false
	}
	c.started = at
	return true
}

// StartedAt is when a claim's job process began (zero: not yet).
func (r *Registry) StartedAt(c *Claim) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return c.started
}

// Matching: the idle jobs behind the negotiator's requests.

// Remember keeps the jobs behind the requests of a submitter's last
// answer to the negotiator, by request id, for its matches.
func (r *Registry) Remember(submitter string, requests map[string][]queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests[submitter] = requests
}

// Reserve picks the next matchable job of a request, unless max jobs
// (0: no limit) run or are being claimed already.
func (r *Registry) Reserve(submitter, request string, max int) (queue.JobID, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if max > 0 && r.running+len(r.reserved) >= max {
		return queue.JobID{}, false
	}
	ids := r.requests[submitter][request]
	for i, id := range ids {
		if r.takenLocked(id) {
			continue
		}
		r.reserved[id] = true
		r.requests[submitter][request] = ids[i+1:]
		return id, true
	}
	return queue.JobID{}, false
}

// TryReserve reserves an idle job for a claim unless another claim took
// it first; it stays reserved until Unreserve.
func (r *Registry) TryReserve(id queue.JobID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.takenLocked(id) {
		return false
	}
	r.reserved[id] = true
	return true
}

func (r *Registry) takenLocked(id queue.JobID) bool {
	j := r.jobs[id]
	return r.reserved[id] || j != nil && j.first != nil
}

// Unreserve ends a job's reservation.
func (r *Registry) Unreserve(id queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.reserved, id)
}

// Matchable reports whether an idle job may be offered to the
// negotiator: not reserved, not run by a claim, not blocked.
func (r *Registry) Matchable(id queue.JobID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.takenLocked(id) {
		return false
	}
	if until, ok := r.blocked[id]; ok {
		if r.now().Before(until) {
			return false
		}
		delete(r.blocked, id)
	}
	return true
}

// Unavailable returns the jobs Matchable refuses now for a reservation
// or a block: a snapshot, so that a walk of the queue for the next job a
// claim can run takes the registry's lock once, not once for every job
// it passes (with hundreds of reuses in flight, each walk passes the
// jobs the others reserved). A job the snapshot lets through is still
// checked with Matchable and taken with TryReserve; one whose
// reservation ends after the snapshot waits for the next walk or the
// negotiator.
func (r *Registry) Unavailable() map[queue.JobID]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[queue.JobID]bool, len(r.reserved)+len(r.blocked))
	for id := range r.reserved {
		out[id] = true
	}
	now := r.now()
	for id, until := range r.blocked {
		if now.Before(until) {
			out[id] = true
		}
	}
	return out
}

// Block keeps a job from matching until a time: its old claim may still
// run it until then.
func (r *Registry) Block(id queue.JobID, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.blocked[id] = until
}

// Unblock lets a blocked job match again.
func (r *Registry) Unblock(id queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.blocked, id)
}

// AutoclusterID returns the id of an autocluster signature, the same for
// as long as the registry lives.
func (r *Registry) AutoclusterID(sig string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.acIDs[sig]
	if !ok {
		id = len(r.acIDs) + 1
		r.acIDs[sig] = id
	}
	return id
}

// Restart: running jobs whose startd has not answered yet.

// Await marks jobs whose startd is being asked again whether it still
// runs them; Answered ends that.
func (r *Registry) Await(ids []queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		r.awaiting[id] = true
	}
}

// Answered ends the wait for jobs' startds.
func (r *Registry) Answered(ids []queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		delete(r.awaiting, id)
	}
}

// Reconnecting reports whether a job's startd is being asked again.
func (r *Registry) Reconnecting(id queue.JobID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.awaiting[id]
}

// Orphaned reports whether a running job has no claim here (orphan):
// neither its claim nor the job is known, nor is its startd being asked;
// and whether, with its claim unknown, it is on its way to or from one
// (pending): reserved for a claim being made or activated, or its startd
// being asked. A pending job is neither orphaned nor settled yet.
func (r *Registry) Orphaned(id queue.JobID, claimID string) (orphan, pending bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, claimed := r.claims[claimID]; claimed {
		return false, false
	}
	pending = r.reserved[id] || r.awaiting[id]
	return !pending && !r.takenLocked(id), pending
}

// Instances: a job that runs on several claims at once (replication).

// Instance finds the instance of a job a claim id runs, first or
// replica, and how many other live instances the job has.
func (r *Registry) Instance(id queue.JobID, claimID string) (c *Claim, others int, replica bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, others = r.instanceLocked(id, claimID)
	return c, others, c != nil && r.isReplicaLocked(id, c)
}

func (r *Registry) isReplicaLocked(id queue.JobID, c *Claim) bool {
	j := r.jobs[id]
	return j != nil && slices.Contains(j.replicas, c)
}

func (r *Registry) instanceLocked(id queue.JobID, claimID string) (*Claim, int) {
	j := r.jobs[id]
	if claimID == "" || j == nil {
		return nil, 0
	}
	var found *Claim
	live := 0
	if j.first != nil && j.first.busy {
		live++
		if j.first.ID == claimID {
			found = j.first
		}
	}
	for _, c := range j.replicas {
		live++
		if c.ID == claimID {
			found = c
		}
	}
	if found == nil {
		return nil, 0
	}
	return found, live - 1
}

// Size is how many instances a job has or is getting: its first, its
// replicas, and the replicas being claimed.
func (r *Registry) Size(id queue.JobID) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sizeLocked(id)
}

func (r *Registry) sizeLocked(id queue.JobID) int {
	j := r.jobs[id]
	if j == nil {
		return 1
	}
	return 1 + len(j.replicas) + len(j.reserving)
}

// Machines lists the machines a job's instances run on or are being
// claimed on; machine names a slot ad's machine.
func (r *Registry) Machines(id queue.JobID, machine func(*classad.Ad) string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.machinesLocked(id, machine)
}

func (r *Registry) machinesLocked(id queue.JobID, machine func(*classad.Ad) string) []string {
	j := r.jobs[id]
	if j == nil {
		return nil
	}
	var out []string
	if j.first != nil {
		out = append(out, machine(j.first.Slot))
	}
	for _, c := range j.replicas {
		out = append(out, machine(c.Slot))
	}
	return append(out, j.reserving...)
}

// Replicable reports whether a job may get another instance now: its
// first instance runs and has started, it sends no outputs yet, and it
// has fewer than allowed+1 instances.
func (r *Registry) Replicable(id queue.JobID, allowed int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replicableLocked(id, allowed, false)
}

func (r *Registry) replicableLocked(id queue.JobID, allowed int, unstarted bool) bool {
	j := r.jobs[id]
	if j == nil || j.first == nil || !j.first.busy || j.outputs != "" {
		return false
	}
	if !unstarted && j.first.started.IsZero() {
		return false
	}
	return r.sizeLocked(id) <= allowed
}

// ReserveReplica reserves a machine for another instance of a job, if it
// may have one there: max jobs and replicas (0: no limit) do not run or
// are not being claimed yet, and the job runs nowhere on the machine.
func (r *Registry) ReserveReplica(id queue.JobID, allowed int, slot *classad.Ad, machine func(*classad.Ad) string, max int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if max > 0 && r.running+r.replicaCountLocked()+len(r.reserved) >= max {
		return false
	}
	if !r.replicableLocked(id, allowed, true) {
		return false
	}
	m := machine(slot)
	if slices.Contains(r.machinesLocked(id, machine), m) {
		return false
	}
	j := r.jobs[id]
	j.reserving = append(j.reserving, m)
	return true
}

func (r *Registry) replicaCountLocked() int {
	n := 0
	for _, j := range r.jobs {
		n += len(j.replicas)
	}
	return n
}

// UnreserveReplica ends a replica's reservation of a machine.
func (r *Registry) UnreserveReplica(id queue.JobID, machine string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	if j == nil {
		return
	}
	if i := slices.Index(j.reserving, machine); i >= 0 {
		j.reserving = slices.Delete(j.reserving, i, i+1)
	}
	r.forget(id)
}

// AddReplica registers a claim as another instance of a job, if its first
// instance still runs; number is the replica's number, from the job's
// durable count. It returns the job's replicas then.
func (r *Registry) AddReplica(id queue.JobID, c *Claim, number func() int) ([]*Claim, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	if j == nil || j.first == nil || !j.first.busy {
		return nil, false
	}
	c.Replica = number()
	c.job, c.alive = id, r.now()
	r.claims[c.ID] = c
	j.replicas = append(j.replicas, c)
	return slices.Clone(j.replicas), true
}

// Promote makes the instance on c the job's first, ahead of the event
// that ends the job: every other instance is detached and forgotten, and
// returned to be vacated.
func (r *Registry) Promote(id queue.JobID, c *Claim) (losers []*Claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	if j == nil {
		return nil
	}
	for _, rep := range j.replicas {
		if rep != c {
			losers = append(losers, rep)
		}
	}
	j.replicas = nil
	if p := j.first; p != nil && p != c {
		losers = append(losers, p)
		p.busy = false
		j.first, c.busy = c, true
	}
	for _, l := range losers {
		delete(r.claims, l.ID)
	}
	return losers
}

// DropInstance ends one instance of a job that runs others: a replica
// leaves the job, a first instance gives way to the oldest replica (the
// carrier). It returns the replicas left; dropped is false, changing
// nothing, when c is the job's only instance.
func (r *Registry) DropInstance(id queue.JobID, c *Claim) (carrier *Claim, left []*Claim, dropped bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	if j == nil {
		return nil, nil, false
	}
	reps := j.replicas
	if i := slices.Index(reps, c); i >= 0 {
		reps = slices.Delete(slices.Clone(reps), i, i+1)
	} else if j.first == c && len(reps) > 0 {
		carrier, reps = reps[0], slices.Clone(reps[1:])
		j.first, c.busy, carrier.busy = carrier, false, true
	} else {
		return nil, nil, false
	}
	j.replicas = reps
	delete(r.claims, c.ID)
	return carrier, reps, true
}

// Stray forgets a claim that is neither a job's first instance nor one
// of its replicas any more, and reports whether c is the job's first.
func (r *Registry) Stray(id queue.JobID, c *Claim) (first bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	if j != nil && j.first == c {
		return true
	}
	if j == nil || !slices.Contains(j.replicas, c) {
		delete(r.claims, c.ID)
	}
	return false
}

// StopReplicas detaches and forgets a job's replicas, returned to be
// vacated.
func (r *Registry) StopReplicas(id queue.JobID) []*Claim {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	if j == nil {
		return nil
	}
	reps := j.replicas
	j.replicas = nil
	for _, c := range reps {
		delete(r.claims, c.ID)
	}
	r.forget(id)
	return reps
}

// SendOutputs lets one instance of a job send its outputs: the first to
// send one holds them until it is no longer an instance of the job.
func (r *Registry) SendOutputs(id queue.JobID, claimID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobOf(id)
	if owner := j.outputs; owner != "" && owner != claimID {
		if c, _ := r.instanceLocked(id, owner); c != nil {
			return wire.Conflict("another instance of job %s is sending its outputs: only one instance's outputs are kept", id)
		}
	}
	j.outputs = claimID
	return nil
}

// SweepOutputs forgets the output senders that are no longer instances.
func (r *Registry) SweepOutputs() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, j := range r.jobs {
		if j.outputs == "" {
			continue
		}
		if c, _ := r.instanceLocked(id, j.outputs); c == nil {
			j.outputs = ""
			r.forget(id)
		}
	}
}
