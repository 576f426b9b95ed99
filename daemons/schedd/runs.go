package schedd

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/match"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/userlog"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// The schedd's side of running jobs:
//
//	negotiator ──matches──▶ reserve an idle job of the request's autocluster
//	   ──POST /v1/claims──▶ startd: a claim (a dynamic slot for a p-slot)
//	   ──commit Running──▶ POST /v1/claims/activate with the job
//	   ◀── /v1/jobs/update: started, exited, evicted, held, failed
//	exited/held/failed: the claim runs the owner's next idle job that fits
//	the slot (claim reuse), or is released. Keep-alives renew every claim
//	each third of the lease; a claim that stays unanswered past its lease
//	gives its job back to idle with an evicted event.
//
// A job is marked Running, durably, before its activation is sent, so a
// restarted schedd knows which claims may still run a job: it puts those
// jobs back to idle, vacates the claims, and keeps the jobs from matching
// until the claims' leases are over unless the vacate succeeded. A job
// never runs twice at once.

// claim is one claim the schedd holds at a startd.
type claim struct {
	id       string // the claim id (for a p-slot, its dynamic slot's)
	startd   string // the startd's address
	slotName string
	slot     *classad.Ad // the claimed slot's ad
	owner    string      // the submitter the claim serves
	lease    time.Duration
	alive    time.Time // last answered keep-alive (or the claim itself)
	job      queue.JobID
	busy     bool // a job is activated on it
	gone     bool // released or lost: ignore it
	// replica is 0 for a job's first instance, k for its k-th replica
	// (replicas.go); started is when its process began.
	replica int
	started time.Time
	// limits are the concurrency limits of the job the negotiator matched
	// the claim for (limitsKey): it runs next only jobs with the same,
	// since the negotiator counted those and no others.
	limits string
}

// limitsKey is a job's ConcurrencyLimits, in lower case without blanks,
// to compare two jobs' limits.
func limitsKey(job *classad.Ad) string {
	v, _ := classad.EvalAttr(job, attr.ConcurrencyLimit, nil)
	s, _ := v.StringValue()
	return strings.ToLower(strings.Join(strings.Fields(s), ""))
}

// runs is the schedd's claims and the jobs being matched.
type runs struct {
	s        *Server
	mu       sync.Mutex
	claims   map[string]*claim // by claim id
	byJob    map[queue.JobID]*claim
	reserved map[queue.JobID]bool      // idle jobs picked for a match, being claimed
	blocked  map[queue.JobID]time.Time // jobs whose old claim may still run until then
	awaiting map[queue.JobID]bool      // running jobs whose unreachable startd is asked again (restart.go)
	requests map[string]map[string][]queue.JobID
	acIDs    map[string]int
	running  int
	// Replication (replicas.go): running jobs' extra instances, the
	// machines replicas are being claimed on, the jobs behind the last
	// replica requests, and which instance sends a job's outputs.
	replicas    map[queue.JobID][]*claim
	repReserved map[queue.JobID][]string
	repOffers   map[string]map[string][]replicaOffer
	outputs     map[queue.JobID]string
}

func newRuns(s *Server) *runs {
	return &runs{
		s: s, claims: map[string]*claim{}, byJob: map[queue.JobID]*claim{},
		reserved: map[queue.JobID]bool{}, blocked: map[queue.JobID]time.Time{}, awaiting: map[queue.JobID]bool{},
		requests: map[string]map[string][]queue.JobID{}, acIDs: map[string]int{},
		replicas: map[queue.JobID][]*claim{}, repReserved: map[queue.JobID][]string{},
		repOffers: map[string]map[string][]replicaOffer{}, outputs: map[queue.JobID]string{},
	}
}

// matchable reports whether an idle job may be offered to the negotiator.
func (r *runs) matchable(id queue.JobID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reserved[id] || r.byJob[id] != nil {
		return false
	}
	if until, ok := r.blocked[id]; ok {
		if r.s.now().Before(until) {
			return false
		}
		delete(r.blocked, id)
	}
	return true
}

// autoclusterID returns the id of a signature, the same for as long as the
// schedd runs.
func (r *runs) autoclusterID(sig string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.acIDs[sig]
	if !ok {
		id = len(r.acIDs) + 1
		r.acIDs[sig] = id
	}
	return id
}

// remember keeps the jobs behind the requests of a submitter's last
// answer, for its matches.
func (r *runs) remember(submitter string, acs []*autocluster) {
	m := make(map[string][]queue.JobID, len(acs))
	for _, ac := range acs {
		ids := make([]queue.JobID, len(ac.jobs))
		for i, j := range ac.jobs {
			ids[i] = j.view.ID
		}
		m[itoa(ac.id)] = ids
	}
	r.mu.Lock()
	r.requests[submitter] = m
	r.mu.Unlock()
}

// reserve picks the next matchable job of a request.
func (r *runs) reserve(submitter, request string) (queue.JobID, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if max := r.s.cfg.MaxRunning; max > 0 && r.running+len(r.reserved) >= max {
		return queue.JobID{}, false
	}
	ids := r.requests[submitter][request]
	for i, id := range ids {
		if r.reserved[id] || r.byJob[id] != nil {
			continue
		}
		r.reserved[id] = true
		r.requests[submitter][request] = ids[i+1:]
		return id, true
	}
	return queue.JobID{}, false
}

func (r *runs) unreserve(id queue.JobID) {
	r.mu.Lock()
	delete(r.reserved, id)
	r.mu.Unlock()
}

func (s *Server) handleMatches(ctx context.Context, r *wire.Request) (any, error) {
	var m wire.Matches
	if err := r.Decode(&m); err != nil {
		return nil, err
	}
	type pick struct {
		job     queue.JobID
		slot    *classad.Ad
		preempt string
	}
	var picks, replicas []pick
	for i, match := range m.Matches {
		if match.Slot == nil {
			return nil, wire.BadRequest("match %d: no slot ad", i)
		}
		if strings.HasPrefix(match.Request, replicaPrefix) {
			if id, ok := s.jobs.reserveReplica(m.Submitter, match.Request, match.Slot); ok {
				replicas = append(replicas, pick{id, match.Slot, match.Preempt})
			}
			continue
		}
		if id, ok := s.jobs.reserve(m.Submitter, match.Request); ok {
			picks = append(picks, pick{id, match.Slot, match.Preempt})
		}
	}
	for _, p := range picks {
		s.goBackground(func(ctx context.Context) { s.jobs.claimFor(ctx, p.job, p.slot, p.preempt) })
	}
	for _, p := range replicas {
		s.goBackground(func(ctx context.Context) { s.jobs.claimReplica(ctx, p.job, p.slot, p.preempt) })
	}
	return wire.MatchesResult{Accepted: len(picks) + len(replicas)}, nil
}

// claimFor claims a matched slot for a reserved job and starts it there;
// preempt passes on why the negotiator matched a busy slot.
func (r *runs) claimFor(ctx context.Context, id queue.JobID, slot *classad.Ad, preempt string) {
	s := r.s
	defer r.unreserve(id)
	job, owner, ok := s.jobAd(id)
	if !ok {
		return
	}
	s.typedJob(job)
	addr := slotString(slot, attr.MyAddress)
	req := wire.ClaimRequest{
		ClaimID: slotString(slot, attr.ClaimID), Slot: slotString(slot, attr.Name), Job: job,
		Schedd: s.Addr(), ScheddName: s.name, Lease: max(1, int((s.cfg.ClaimLease+time.Second-1)/time.Second)),
		Preempt: preempt,
	}
	var res wire.ClaimResult
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err := s.env.Connector().Client(addr).Call(cctx, "POST", wire.PathClaim, req, &res)
	cancel()
	if err != nil {
		s.met.claims.WithLabelValues("refused").Inc()
		s.log.Info("claim refused", "job", id.String(), "slot", req.Slot, "err", err)
		return
	}
	s.met.claims.WithLabelValues("granted").Inc()
	c := &claim{
		id: res.ClaimID, startd: addr, slotName: req.Slot, slot: res.Slot, owner: owner,
		lease: time.Duration(res.Lease) * time.Second, alive: s.now(), job: id, limits: limitsKey(job),
	}
	if c.slot == nil {
		c.slot = slot
	}
	if c.lease <= 0 {
		c.lease = s.cfg.ClaimLease
	}
	r.mu.Lock()
	r.claims[c.id] = c
	r.mu.Unlock()
	r.activate(ctx, c, id)
}

// activateReserved runs a job reserved by next on claim c.
func (r *runs) activateReserved(ctx context.Context, c *claim, id queue.JobID) {
	r.activateFrom(ctx, c, id, true)
}

// activate runs job id on claim c: Running is committed first, then the
// startd is told. If the job is no longer idle, or the startd refuses,
// the claim goes to the next job or is released.
func (r *runs) activate(ctx context.Context, c *claim, id queue.JobID) {
	r.activateFrom(ctx, c, id, false)
}

func (r *runs) activateFrom(ctx context.Context, c *claim, id queue.JobID, reused bool) {
	s := r.s
	for {
		ok, err := r.markRunning(c, id)
		if reused {
			r.unreserve(id) // running now, or no longer idle
		}
		if err != nil {
			s.log.Error("marking a job running", "job", id.String(), "err", err)
			r.release(ctx, c)
			return
		}
		if ok {
			r.sendActivate(ctx, c, id)
			return
		}
		next, found := r.next(c)
		if !found {
			r.release(ctx, c)
			return
		}
		id, reused = next, true
	}
}

// sendActivate tells the startd to run a job committed as running on c.
// If the startd refuses, the job goes back to idle and the claim is
// released.
func (r *runs) sendActivate(ctx context.Context, c *claim, id queue.JobID) {
	s := r.s
	job, _, _ := s.jobAd(id)
	if job == nil {
		return // removed meanwhile: the removal vacates the claim
	}
	stripPrivate(job)
	s.typedJob(job)
	s.replicasIn(job)
	if err := expandMatch(job, c.slot); err != nil {
		r.holdUnexpandable(ctx, c, id, err)
		return
	}
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err := s.env.Connector().Client(c.startd).Call(actx, "POST", wire.PathActivate, wire.Activate{ClaimID: c.id, Job: job}, nil)
	cancel()
	if err == nil || ctx.Err() != nil {
		// On an error because the schedd is stopping, the startd may have
		// taken the job: it stays Running, and the restarted schedd
		// vacates the claim before the job may run again.
		return
	}
	s.log.Warn("activation failed", "job", id.String(), "slot", c.slotName, "err", err)
	r.requeue(id, c, "the startd refused to run the job: "+err.Error())
	r.release(ctx, c)
}

// markRunning commits a job as running on a claim, if it is still idle.
func (r *runs) markRunning(c *claim, id queue.JobID) (bool, error) {
	started := false
	err := r.s.q.Update(func(tx *queue.Tx) error {
		if j := tx.Job(id); j != nil && tx.Status(j) == attr.Idle {
			r.startIn(tx, j, c)
			started = true
		}
		return nil
	})
	if err != nil || !started {
		return false, err
	}
	r.attach(c, id)
	return true, nil
}

// startIn marks an idle job running on a claim, in a transaction.
func (r *runs) startIn(tx *queue.Tx, j *queue.Job, c *claim) {
	now := r.s.now()
	setStatus(tx, j, attr.Running, now)
	tx.SetString(j, attr.RemoteHost, c.slotName)
	tx.SetString(j, attrClaimID, c.id)
	tx.SetString(j, attrStartdAddr, c.startd)
	tx.SetInt(j, attr.LastMatchTime, now.Unix())
	v := tx.View(j)
	tx.SetInt(j, attr.NumJobMatches, intAttr(&v, attr.NumJobMatches, 0)+1)
}

// attach records that a claim runs a job (once it is committed running).
func (r *runs) attach(c *claim, id queue.JobID) {
	r.mu.Lock()
	c.job, c.busy = id, true
	r.byJob[id] = c
	r.running++
	r.mu.Unlock()
	r.s.kickAds()
}

// next reserves the claim owner's next idle job that fits the claimed
// slot: both Requirements hold (claim reuse). The owner's clusters are
// tried in the order of their JobPrio (the submit file's priority),
// highest first, then oldest first; a cluster's jobs in order.
func (r *runs) next(c *claim) (queue.JobID, bool) {
	var found queue.JobID
	ok := false
	if c.slot == nil {
		return found, false // reconnected: the slot's ad is not known
	}
	cache := map[*classad.Ad]bool{}
	var m match.Matcher
	var mat queue.Materializer
	r.s.q.Read(func(rd *queue.Reader) {
		for _, cl := range byPriority(rd, c.owner) {
			for j := range cl.Jobs {
				if j.Status() != attr.Idle || !r.matchable(j.ID) {
					continue
				}
				v := j.View()
				fits, known := cache[v.Cluster]
				plain := v.Own.Len() <= 1 // ProcId only: the cluster decides
				if !known || !plain {
					ad := mat.Ad(&v)
					fits = m.Matches(ad, c.slot) && limitsKey(ad) == c.limits
					if plain {
						cache[v.Cluster] = fits
					}
				}
				if fits && r.tryReserve(j.ID) {
					found, ok = j.ID, true
					return
				}
			}
		}
	})
	return found, ok
}

// byPriority lists a submitter's clusters by JobPrio, highest first, then
// by id.
func byPriority(rd *queue.Reader, submitter string) []*queue.Cluster {
	type ranked struct {
		c    *queue.Cluster
		prio int64
	}
	var cs []ranked
	for cl := range rd.Clusters {
		if cl.Submitter == submitter {
			cs = append(cs, ranked{cl, intOrZero(cl.Ad(), attr.JobPrio)})
		}
	}
	slices.SortStableFunc(cs, func(a, b ranked) int { return cmp.Compare(b.prio, a.prio) })
	out := make([]*queue.Cluster, len(cs))
	for i, r := range cs {
		out[i] = r.c
	}
	return out
}

// tryReserve reserves an idle job for a claim unless another claim took
// it first; it stays reserved until markRunning decided.
func (r *runs) tryReserve(id queue.JobID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reserved[id] || r.byJob[id] != nil {
		return false
	}
	r.reserved[id] = true
	return true
}

// dropJob forgets which claim ran a job (it left the claim).
func (r *runs) dropJob(id queue.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.byJob[id]; c != nil && c.busy && c.job == id {
		delete(r.byJob, id)
		c.busy = false
		r.running--
	}
}

// finish detaches a claim from its job (the job left it).
func (r *runs) finish(c *claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.busy {
		delete(r.byJob, c.job)
		c.busy = false
		r.running--
	}
}

// release gives a claim back to its startd.
func (r *runs) release(ctx context.Context, c *claim) {
	r.drop(c)
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := r.s.env.Connector().Client(c.startd).Call(rctx, "POST", wire.PathRelease, wire.ClaimRef{ClaimID: c.id}, nil)
	if err != nil && !wire.IsCode(err, wire.CodeNotFound) {
		r.s.log.Info("release of a claim failed", "slot", c.slotName, "err", err)
	}
}

// drop forgets a claim.
func (r *runs) drop(c *claim) {
	r.finish(c)
	r.mu.Lock()
	c.gone = true
	delete(r.claims, c.id)
	r.mu.Unlock()
}

// requeue puts a job that was running back to idle (an evicted event).
func (r *runs) requeue(id queue.JobID, c *claim, reason string) {
	s := r.s
	r.finish(c)
	err := s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(id)
		if j == nil || tx.Status(j) != attr.Running {
			return nil
		}
		ev := s.newEvents()
		s.toIdle(tx, j, reason, ev)
		ev.after(tx)
		return nil
	})
	if err != nil {
		s.log.Error("requeueing a job", "job", id.String(), "err", err)
	}
	s.kickAds()
}

// toIdle puts a running job back to idle with an evicted event.
func (s *Server) toIdle(tx *queue.Tx, j *queue.Job, reason string, ev *eventBatch) {
	setStatus(tx, j, attr.Idle, s.now())
	leftMachine(tx, j)
	v := tx.View(j)
	tx.SetInt(j, attr.LastVacateTime, s.now().Unix())
	ev.add(&v, userlog.Event{Code: userlog.Evicted, Reason: reason})
}

// leftMachine records that a job no longer runs where it ran:
// RemoteHost becomes LastRemoteHost, and the claim is forgotten.
func leftMachine(tx *queue.Tx, j *queue.Job) {
	if e, ok := tx.Get(j, attr.RemoteHost); ok {
		tx.Set(j, attr.LastRemoteHost, e)
		tx.Delete(j, attr.RemoteHost)
	}
	tx.Delete(j, attrClaimID)
	tx.Delete(j, attrStartdAddr)
	tx.Delete(j, attrReplicaClaims)
}

// stop is called in a transaction that takes a job out of Running (hold,
// remove): once it commits, the job's claim is vacated and released.
func (r *runs) stop(tx *queue.Tx, j *queue.Job, why string) {
	r.stopReplicas(tx, j, why)
	r.mu.Lock()
	c := r.byJob[j.ID]
	r.mu.Unlock()
	if c == nil {
		return
	}
	leftMachine(tx, j)
	tx.AfterCommit(func() {
		r.finish(c)
		r.s.goBackground(func(ctx context.Context) { r.vacate(ctx, c, "the job was "+why) })
	})
}

// vacate stops a claim's job at the startd, then releases the claim.
func (r *runs) vacate(ctx context.Context, c *claim, reason string) {
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := r.s.env.Connector().Client(c.startd).Call(vctx, "POST", wire.PathVacate, wire.Vacate{ClaimID: c.id, Reason: reason, Fast: true}, nil)
	cancel()
	if err != nil && !wire.IsCode(err, wire.CodeNotFound) {
		r.s.log.Info("vacate failed", "slot", c.slotName, "err", err)
	}
	r.release(ctx, c)
}

// keepAlive renews every claim each third of the lease; a claim whose
// startd has not answered for longer than the lease is lost.
func (r *runs) keepAlive(ctx context.Context) {
	t := time.NewTicker(max(r.s.cfg.ClaimLease/3, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		claims := make([]*claim, 0, len(r.claims))
		for _, c := range r.claims {
			claims = append(claims, c)
		}
		r.mu.Unlock()
		var wg sync.WaitGroup
		sem := make(chan struct{}, 32)
		for _, c := range claims {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				r.alive(ctx, c)
			})
		}
		wg.Wait()
	}
}

// alive renews one claim.
func (r *runs) alive(ctx context.Context, c *claim) {
	s := r.s
	actx, cancel := context.WithTimeout(ctx, max(s.cfg.ClaimLease/3, time.Second))
	var res wire.AliveResult
	err := s.env.Connector().Client(c.startd).Call(actx, "POST", wire.PathAlive, wire.ClaimRef{ClaimID: c.id}, &res)
	cancel()
	now := s.now()
	if err == nil {
		r.mu.Lock()
		c.alive = now
		r.mu.Unlock()
		return
	}
	lost := wire.IsCode(err, wire.CodeNotFound) || now.Sub(c.alive) > c.lease
	if !lost || ctx.Err() != nil {
		return
	}
	s.log.Warn("claim lost", "slot", c.slotName, "err", err)
	r.lost(c, "The claim on "+c.slotName+" was lost: "+err.Error())
}

// view returns a job as it is now.
func (s *Server) view(id queue.JobID) (queue.View, bool) {
	var v queue.View
	found := false
	s.q.Read(func(r *queue.Reader) {
		if j := r.Job(id); j != nil {
			v, found = j.View(), true
		}
	})
	return v, found
}

// jobAd returns a job's whole ad and submitter.
func (s *Server) jobAd(id queue.JobID) (*classad.Ad, string, bool) {
	v, found := s.view(id)
	if !found {
		return nil, "", false
	}
	return v.Ad(), v.Submitter, true
}

func slotString(ad *classad.Ad, name string) string {
	if ad == nil {
		return "" // a reconnected claim's slot ad is not known
	}
	v, _ := classad.EvalAttr(ad, name, nil)
	s, _ := v.StringValue()
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
