package schedd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/userlog"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// Replication (JoSchKa's multiple delivery, paper 002's task replicas):
// a running job may run as several instances at once, on different
// machines, so that a job stuck on a slow or failing machine still
// finishes early. The first instance to finish wins:
//
//	requests ◀── beside its idle jobs' requests, a submitter offers one
//	             replica request per autocluster of running jobs that may
//	             have another instance (KiteReplica = true; Count: how many
//	             more may start; Requirements exclude machines every job
//	             of it runs on already)
//	match ──▶ the job with the fewest instances, oldest first, that does
//	          not run on the slot's machine: claimed, recorded durably
//	          (KiteReplicaRuns, the claim among the job's private
//	          KiteReplicaClaims), activated with the job's ad
//	exited ──▶ that instance wins: the job's RemoteHost becomes its slot,
//	          KiteWinner and KiteWinnerInstance say which it was, the
//	          others are vacated and their claims released, and the job
//	          ends as any job does (on-exit policy, terminated event,
//	          history)
//	evicted, held, failed or lost ──▶ the instance is dropped while
//	          others run (the oldest replica carries on for a lost first
//	          instance); the last instance ends the job as usual
//
// Only one instance's outputs are kept: the first instance that sends an
// output file holds the job's outputs until it ends, and the others'
// are refused (409). The user log says when a replica starts, which
// instance won and how many replicas ran (generic events), besides the
// usual ones. A schedd restarted while replicas ran vacates their claims
// as it vacates the first instance's.
//
// Replica requests go to the negotiator with the idle jobs' requests;
// the strategies that replicate (joschka-*, no-passing) give them only
// the slots that no idle job takes, the others never see them.

// replicaPrefix starts the id of a replica request.
const replicaPrefix = "r"

// attrReplicaClaims lists a job's replica claims, "claim-id startd-addr"
// each: a secret, never shown to tools.
const attrReplicaClaims = "KiteReplicaClaims"

// replicaOffer is a job of a replica request: how many extra instances
// it may have.
type replicaOffer struct {
	id      queue.JobID
	allowed int
}

// replicaCand is a running job that may start another instance.
type replicaCand struct {
	view      queue.View
	instances int
	allowed   int
	started   int64
	machines  []string
}

// replicasAllowed is how many extra instances a job may run: its own
// KiteReplicas, else the schedd's.
func (s *Server) replicasAllowed(v *queue.View) int {
	n := intAttr(v, attr.KiteReplicas, int64(s.cfg.Replicas))
	return int(max(0, min(n, 16)))
}

// replicaCandidates lists a submitter's running jobs that may start
// another instance now, fewest instances first, then oldest.
func (s *Server) replicaCandidates(submitter string) []replicaCand {
	var out []replicaCand
	r := s.jobs
	s.q.Read(func(rd *queue.Reader) {
		r.mu.Lock()
		defer r.mu.Unlock()
		for cl := range rd.Clusters {
			if cl.Submitter != submitter {
				continue
			}
			for j := range cl.Jobs {
				if j.Status() != attr.Running {
					continue
				}
				v := j.View()
				allowed := s.replicasAllowed(&v)
				if allowed == 0 {
					continue
				}
				c := r.byJob[j.ID]
				if c == nil || !c.busy || c.started.IsZero() || r.outputs[j.ID] != "" {
					continue // not started yet, or sending its outputs
				}
				n := 1 + len(r.replicas[j.ID]) + len(r.repReserved[j.ID])
				if n > allowed {
					continue
				}
				out = append(out, replicaCand{view: v, instances: n, allowed: allowed,
					started: intAttr(&v, attr.JobCurrentStartDate, 0), machines: r.machinesLocked(j.ID)})
			}
		}
	})
	slices.SortStableFunc(out, func(a, b replicaCand) int {
		if a.instances != b.instances {
			return a.instances - b.instances
		}
		if a.started != b.started {
			return int(a.started - b.started)
		}
		if a.view.ID.Less(b.view.ID) {
			return -1
		}
		return 1
	})
	return out
}

// machinesLocked lists the machines a job's instances run on or are
// being claimed on (the lock is held).
func (r *runs) machinesLocked(id queue.JobID) []string {
	var out []string
	if c := r.byJob[id]; c != nil {
		out = append(out, slotString(c.slot, attr.Machine))
	}
	for _, c := range r.replicas[id] {
		out = append(out, slotString(c.slot, attr.Machine))
	}
	return append(out, r.repReserved[id]...)
}

// replicaRequests groups a submitter's replica candidates into requests
// by their significant attributes, and remembers them for the matches.
func (s *Server) replicaRequests(submitter, key string, significant []string) []wire.ResourceRequest {
	cands := s.replicaCandidates(key)
	if len(cands) == 0 {
		s.jobs.rememberReplicas(submitter, nil)
		return nil
	}
	g := &signatures{significant: significant, byCluster: map[*classad.Ad]*clusterSig{}}
	type group struct {
		id     int
		count  int
		offers []replicaOffer
		first  *replicaCand
		common []string // machines every job of the group runs on
	}
	bySig := map[string]*group{}
	var groups []*group
	for i := range cands {
		c := &cands[i]
		sig := g.of(&c.view)
		gr := bySig[sig]
		if gr == nil {
			gr = &group{id: s.jobs.autoclusterID(sig), first: c, common: c.machines}
			bySig[sig] = gr
			groups = append(groups, gr)
		}
		gr.count += 1 + c.allowed - c.instances
		gr.offers = append(gr.offers, replicaOffer{c.view.ID, c.allowed})
		gr.common = slices.DeleteFunc(slices.Clone(gr.common), func(m string) bool { return !slices.Contains(c.machines, m) })
	}
	offers := map[string][]replicaOffer{}
	out := make([]wire.ResourceRequest, 0, len(groups))
	for _, gr := range groups {
		id := replicaPrefix + itoa(gr.id)
		offers[id] = gr.offers
		ad := gr.first.view.Ad()
		stripPrivate(ad)
		ad.Set(attr.AutoClusterID, ast.Int(int64(gr.id)))
		ad.Set(attr.KiteReplica, ast.Bool(true))
		excludeMachines(ad, gr.common)
		out = append(out, wire.ResourceRequest{ID: id, Count: gr.count, Ad: ad})
	}
	s.jobs.rememberReplicas(submitter, offers)
	return out
}

// excludeMachines adds to a request's Requirements that the slot is on
// none of the machines.
func excludeMachines(ad *classad.Ad, machines []string) {
	if len(machines) == 0 {
		return
	}
	var b strings.Builder
	if e, ok := ad.Lookup(attr.Requirements); ok {
		b.WriteString("(" + ast.String(e) + ")")
	} else {
		b.WriteString("true")
	}
	for _, m := range machines {
		b.WriteString(" && TARGET.Machine =!= ")
		b.Write(ast.AppendQuoted(nil, m))
	}
	if e, err := classad.ParseExpr(b.String()); err == nil {
		ad.Set(attr.Requirements, e)
	}
}

// rememberReplicas keeps the jobs behind a submitter's replica requests.
func (r *runs) rememberReplicas(submitter string, offers map[string][]replicaOffer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if offers == nil {
		delete(r.repOffers, submitter)
		return
	}
	r.repOffers[submitter] = offers
}

// reserveReplica picks the job of a replica request that a slot should
// run another instance of.
func (r *runs) reserveReplica(submitter, request string, slot *classad.Ad) (queue.JobID, bool) {
	machine := slotString(slot, attr.Machine)
	r.mu.Lock()
	defer r.mu.Unlock()
	if max := r.s.cfg.MaxRunning; max > 0 && r.running+r.replicaCountLocked()+len(r.reserved) >= max {
		return queue.JobID{}, false
	}
	for _, o := range r.repOffers[submitter][request] {
		c := r.byJob[o.id]
		if c == nil || !c.busy || r.outputs[o.id] != "" {
			continue
		}
		if 1+len(r.replicas[o.id])+len(r.repReserved[o.id]) > o.allowed {
			continue
		}
		if slices.Contains(r.machinesLocked(o.id), machine) {
			continue
		}
		r.repReserved[o.id] = append(r.repReserved[o.id], machine)
		return o.id, true
	}
	return queue.JobID{}, false
}

func (r *runs) replicaCountLocked() int {
	n := 0
	for _, reps := range r.replicas {
		n += len(reps)
	}
	return n
}

// unreserveReplica ends a replica's reservation on a machine.
func (r *runs) unreserveReplica(id queue.JobID, machine string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.repReserved[id]
	if i := slices.Index(list, machine); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(r.repReserved, id)
	} else {
		r.repReserved[id] = list
	}
}

// claimReplica claims a matched slot for another instance of a running
// job, records it and starts it there.
func (r *runs) claimReplica(ctx context.Context, id queue.JobID, slot *classad.Ad, preempt string) {
	s := r.s
	defer r.unreserveReplica(id, slotString(slot, attr.Machine))
	job, owner, ok := s.jobAd(id)
	if !ok {
		return
	}
	stripPrivate(job)
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
		s.log.Info("replica claim refused", "job", id.String(), "slot", req.Slot, "err", err)
		return
	}
	s.met.claims.WithLabelValues("granted").Inc()
	c := &claim{id: res.ClaimID, startd: addr, slotName: req.Slot, slot: cmpAd(res.Slot, slot), owner: owner,
		lease: time.Duration(res.Lease) * time.Second, alive: s.now(), job: id}
	if c.lease <= 0 {
		c.lease = s.cfg.ClaimLease
	}
	started, err := s.startReplica(id, c)
	if err != nil || !started {
		if err != nil {
			s.log.Error("recording a replica", "job", id.String(), "err", err)
		}
		r.release(ctx, c)
		return
	}
	s.activateReplica(ctx, c, id)
}

func cmpAd(a, b *classad.Ad) *classad.Ad {
	if a != nil {
		return a
	}
	return b
}

// startReplica records durably that a claim runs another instance of a
// running job, and attaches it; false when the job no longer runs.
func (s *Server) startReplica(id queue.JobID, c *claim) (bool, error) {
	r := s.jobs
	started := false
	err := s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(id)
		if j == nil || tx.Status(j) != attr.Running {
			return nil
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if p := r.byJob[id]; p == nil || !p.busy {
			return nil
		}
		v := tx.View(j)
		k := intAttr(&v, attr.KiteReplicaRuns, 0) + 1
		tx.SetInt(j, attr.KiteReplicaRuns, k)
		c.replica = int(k)
		r.claims[c.id] = c
		r.replicas[id] = append(r.replicas[id], c)
		setReplicaClaims(tx, j, r.replicas[id])
		started = true
		return nil
	})
	return started, err
}

// setReplicaClaims records a job's replica claims (for a restarted
// schedd to vacate).
func setReplicaClaims(tx *queue.Tx, j *queue.Job, reps []*claim) {
	if len(reps) == 0 {
		tx.Delete(j, attrReplicaClaims)
		return
	}
	list := &ast.List{At: ast.NoPos}
	for _, c := range reps {
		list.Elems = append(list.Elems, ast.Str(c.id+" "+c.startd))
	}
	tx.Set(j, attrReplicaClaims, list)
}

// replicaClaims reads a job's recorded replica claims: claim id and
// startd address of each (from the job's own ad, where the schedd writes
// them, never from a submitted cluster ad).
func replicaClaims(v *queue.View) [][2]string {
	e, ok := v.Own.Lookup(attrReplicaClaims)
	if !ok {
		return nil
	}
	l, isList := e.(*ast.List)
	if !isList {
		return nil
	}
	var out [][2]string
	for _, x := range l.Elems {
		if lit, isLit := x.(*ast.Literal); isLit && lit.Kind == ast.StringLit {
			if id, addr, found := strings.Cut(lit.Str, " "); found {
				out = append(out, [2]string{id, addr})
			}
		}
	}
	return out
}

// activateReplica runs the job on a replica's claim; a startd that
// refuses drops the replica.
func (s *Server) activateReplica(ctx context.Context, c *claim, id queue.JobID) {
	job, _, _ := s.jobAd(id)
	if job == nil {
		return // removed meanwhile: the removal vacates the replicas
	}
	stripPrivate(job)
	s.typedJob(job)
	s.replicasIn(job)
	err := expandMatch(job, c.slot)
	if err == nil {
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = s.env.Connector().Client(c.startd).Call(actx, "POST", wire.PathActivate, wire.Activate{ClaimID: c.id, Job: job}, nil)
		cancel()
	}
	if err == nil || ctx.Err() != nil {
		return
	}
	s.log.Info("replica not started", "job", id.String(), "slot", c.slotName, "err", err)
	s.dropInstance(id, c, "the replica could not start: "+err.Error(), nil)
}

// instanceOfLocked finds the instance of a job a claim id runs, and how
// many other instances of the job run (the lock is held).
func (r *runs) instanceOfLocked(id queue.JobID, claimID string) (*claim, int) {
	if claimID == "" {
		return nil, 0
	}
	var found *claim
	live := 0
	if p := r.byJob[id]; p != nil && p.busy {
		live++
		if p.id == claimID {
			found = p
		}
	}
	for _, c := range r.replicas[id] {
		live++
		if c.id == claimID {
			found = c
		}
	}
	if found == nil {
		return nil, 0
	}
	return found, live - 1
}

// instanceClaim returns the claim a job runs under, first instance or
// replica, if its id is claimID.
func (r *runs) instanceClaim(id queue.JobID, claimID string) *claim {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, _ := r.instanceOfLocked(id, claimID)
	return c
}

// claimOutputs lets one instance of a job send its outputs: the first to
// send one holds them until it is no longer an instance of the job.
func (r *runs) claimOutputs(id queue.JobID, claimID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if owner := r.outputs[id]; owner != "" && owner != claimID {
		if c, _ := r.instanceOfLocked(id, owner); c != nil {
			return wire.Conflict("another instance of job %s is sending its outputs: only one instance's outputs are kept", id)
		}
	}
	r.outputs[id] = claimID
	return nil
}

// sweepOutputs forgets the output holders that are no longer instances.
func (r *runs) sweepOutputs() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, owner := range r.outputs {
		if c, _ := r.instanceOfLocked(id, owner); c == nil {
			delete(r.outputs, id)
		}
	}
}

// handleJobUpdates takes a startd's job event: an event of an instance
// of a job with replicas is replication's, any other goes to
// handleJobUpdate.
func (s *Server) handleJobUpdates(ctx context.Context, req *wire.Request) (any, error) {
	body, err := req.Body()
	if err != nil {
		return nil, err
	}
	req.HTTP.Body = io.NopCloser(bytes.NewReader(body))
	var u wire.JobUpdate
	if json.Unmarshal(body, &u) != nil {
		return s.handleJobUpdate(ctx, req)
	}
	id, err := queue.ParseJobID(u.Job)
	if err != nil {
		return s.handleJobUpdate(ctx, req)
	}
	r := s.jobs
	r.mu.Lock()
	c, others := r.instanceOfLocked(id, u.ClaimID)
	first := c != nil && u.Event == wire.EventStarted && c.started.IsZero()
	if first {
		c.started = s.now()
	}
	isReplica := c != nil && slices.Contains(r.replicas[id], c)
	r.mu.Unlock()
	if first && !isReplica && s.mayReplicate(id) {
		s.kickAds() // the submitter's ad offers a replica now (KiteReplicable)
	}
	if c == nil || others == 0 && !isReplica {
		return s.handleJobUpdate(ctx, req)
	}
	switch u.Event {
	case wire.EventStarted:
		if !isReplica {
			return s.handleJobUpdate(ctx, req)
		}
		s.met.events.WithLabelValues(eventLabel(u.Event)).Inc()
		return nil, s.replicaStarted(id, c)
	case wire.EventExited:
		if isReplica && u.StartedAt != 0 {
			// A replica that ended at once reports its start with its
			// end: the log says so as for any replica, and the job's
			// own start stays the first instance's.
			r.mu.Lock()
			if c.started.IsZero() {
				c.started = time.Unix(u.StartedAt, 0)
			}
			r.mu.Unlock()
			if err := s.replicaStarted(id, c); err != nil {
				return nil, err
			}
			u.StartedAt = 0
			data, _ := json.Marshal(&u)
			req.HTTP.Body = io.NopCloser(bytes.NewReader(data))
		}
		if err := r.claimOutputs(id, c.id); err != nil {
			if !s.dropInstance(id, c, "another instance sends the job's outputs", &u) {
				return s.handleJobUpdate(ctx, req)
			}
			s.met.events.WithLabelValues(eventLabel(u.Event)).Inc()
			return nil, nil
		}
		if err := s.win(id, c); err != nil {
			return nil, wire.Unavailable("%v", err)
		}
		return s.handleJobUpdate(ctx, req)
	case wire.EventEvicted, wire.EventHeld, wire.EventFailed:
		reason := u.Reason
		if reason == "" {
			reason = "the startd reported it " + u.Event
		}
		if !s.dropInstance(id, c, u.Event+": "+reason, &u) {
			return s.handleJobUpdate(ctx, req)
		}
		s.met.events.WithLabelValues(eventLabel(u.Event)).Inc()
		return nil, nil
	}
	return s.handleJobUpdate(ctx, req)
}

// replicaStarted notes in the job's log that a replica's process began.
func (s *Server) replicaStarted(id queue.JobID, c *claim) error {
	err := s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(id)
		if j == nil || tx.Status(j) != attr.Running {
			return nil
		}
		v := tx.View(j)
		ev := s.newEvents()
		ev.add(&v, userlog.Event{Code: userlog.Generic,
			Reason: fmt.Sprintf("Replica %d of the job executes on %s <%s>", c.replica, c.slotName, c.startd)})
		ev.after(tx)
		return nil
	})
	return unavailable(err)
}

// win makes the instance on c the job's run, ahead of the event that ends
// the job: the job's RemoteHost and claim become c's, the other instances
// are detached, then vacated and released.
func (s *Server) win(id queue.JobID, c *claim) error {
	r := s.jobs
	var losers []*claim
	err := s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(id)
		if j == nil || tx.Status(j) != attr.Running {
			return nil
		}
		r.mu.Lock()
		p := r.byJob[id]
		for _, rep := range r.replicas[id] {
			if rep != c {
				losers = append(losers, rep)
			}
		}
		delete(r.replicas, id)
		if p != nil && p != c {
			losers = append(losers, p)
			p.busy = false
			r.byJob[id] = c
			c.busy = true
		}
		for _, l := range losers {
			delete(r.claims, l.id)
		}
		r.mu.Unlock()
		v := tx.View(j)
		if c.replica > 0 && !c.started.IsZero() {
			tx.SetInt(j, attr.JobCurrentStartDate, c.started.Unix())
		}
		tx.SetString(j, attr.RemoteHost, c.slotName)
		tx.SetString(j, attrClaimID, c.id)
		tx.SetString(j, attrStartdAddr, c.startd)
		tx.SetString(j, attr.KiteWinner, c.slotName)
		tx.SetInt(j, attr.KiteWinnerInstance, int64(c.replica))
		tx.Delete(j, attrReplicaClaims)
		ev := s.newEvents()
		ev.add(&v, userlog.Event{Code: userlog.Generic, Reason: winText(c, intAttr(&v, attr.KiteReplicaRuns, 0), len(losers))})
		ev.after(tx)
		return nil
	})
	if err != nil {
		return err
	}
	for _, l := range losers {
		s.goBackground(func(ctx context.Context) { r.vacate(ctx, l, "another instance of the job finished first") })
	}
	return nil
}

// winText says which instance won.
func winText(c *claim, replicas int64, killed int) string {
	which := "The first instance"
	if c.replica > 0 {
		which = "Replica " + strconv.Itoa(c.replica)
	}
	return fmt.Sprintf("%s of the job, on %s, finished first and wins; %d replica(s) ran, %d other instance(s) killed",
		which, c.slotName, replicas, killed)
}

// dropInstance ends one instance of a job that runs others: a replica
// leaves the job, a first instance gives way to the oldest replica. Its
// usage (u, when its last event came) counts in the job's, and its claim
// is vacated and released. It returns false, changing nothing, when c is
// by now the job's only instance: the caller treats it as any job's.
func (s *Server) dropInstance(id queue.JobID, c *claim, reason string, u *wire.JobUpdate) bool {
	r := s.jobs
	var carrier *claim
	dropped := false
	err := s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(id)
		if j == nil || tx.Status(j) != attr.Running {
			return nil
		}
		r.mu.Lock()
		reps := r.replicas[id]
		if i := slices.Index(reps, c); i >= 0 {
			reps = slices.Delete(slices.Clone(reps), i, i+1)
			dropped = true
		} else if p := r.byJob[id]; p == c && len(reps) > 0 {
			carrier, reps = reps[0], slices.Clone(reps[1:])
			r.byJob[id], c.busy, carrier.busy = carrier, false, true
			dropped = true
		}
		if dropped {
			if len(reps) == 0 {
				delete(r.replicas, id)
			} else {
				r.replicas[id] = reps
			}
			delete(r.claims, c.id)
		}
		r.mu.Unlock()
		if !dropped {
			return nil
		}
		setReplicaClaims(tx, j, reps)
		if u != nil {
			addUsage(tx, j, u)
		}
		v := tx.View(j)
		text := fmt.Sprintf("The instance of the job on %s stopped (%s); %d other instance(s) run on", c.slotName, reason, len(reps)+1)
		if carrier != nil {
			tx.SetString(j, attr.RemoteHost, carrier.slotName)
			tx.SetString(j, attrClaimID, carrier.id)
			tx.SetString(j, attrStartdAddr, carrier.startd)
			text = fmt.Sprintf("The instance of the job on %s stopped (%s); replica %d on %s carries on", c.slotName, reason, carrier.replica, carrier.slotName)
		}
		ev := s.newEvents()
		ev.add(&v, userlog.Event{Code: userlog.Generic, Reason: text})
		ev.after(tx)
		return nil
	})
	if err != nil {
		s.log.Error("dropping an instance of a job", "job", id.String(), "err", err)
	}
	if !dropped {
		r.mu.Lock()
		only := r.byJob[id] == c
		if !only && !slices.Contains(r.replicas[id], c) {
			delete(r.claims, c.id)
		}
		r.mu.Unlock()
		if only {
			return false
		}
	}
	s.goBackground(func(ctx context.Context) { r.vacate(ctx, c, "the schedd dropped this instance of the job: "+reason) })
	return true
}

// stopReplicas is called in a transaction that takes a job out of
// Running: once it commits, the job's replicas are vacated and released.
func (r *runs) stopReplicas(tx *queue.Tx, j *queue.Job, why string) {
	r.mu.Lock()
	reps := r.replicas[j.ID]
	delete(r.replicas, j.ID)
	for _, c := range reps {
		delete(r.claims, c.id)
	}
	r.mu.Unlock()
	if len(reps) == 0 {
		return
	}
	tx.Delete(j, attrReplicaClaims)
	tx.AfterCommit(func() {
		for _, c := range reps {
			r.s.goBackground(func(ctx context.Context) { r.vacate(ctx, c, "the job was "+why) })
		}
	})
}

// replicasIn writes into a job ad sent to a startd how many replicas the
// job may run, when the schedd's default allows some: a starter runs a job
// that may replicate apart from the submitter's files (its outputs are
// sent, and only the winner's are kept).
func (s *Server) replicasIn(job *classad.Ad) {
	if _, own := job.Lookup(attr.KiteReplicas); !own && s.cfg.Replicas > 0 {
		job.Set(attr.KiteReplicas, ast.Int(int64(min(s.cfg.Replicas, 16))))
	}
}

// mayReplicate reports whether a job may run replicas at all.
func (s *Server) mayReplicate(id queue.JobID) bool {
	if s.cfg.Replicas > 0 {
		return true
	}
	v, ok := s.view(id)
	return ok && s.replicasAllowed(&v) > 0
}

// replicable counts a submitter's running jobs that may start another
// instance now (its ad's KiteReplicable).
func (s *Server) replicable(submitter string) int { return len(s.replicaCandidates(submitter)) }
