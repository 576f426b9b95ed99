package schedd

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/attrclass"
	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/userlog"
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

// replication is the layer of the schedd that runs replicas: it takes
// the replica requests' matches, claims and starts the replicas, and sees
// every job update first, handling those of jobs that run several
// instances and passing the others on.
type replication struct {
	s *Server
	// offers are the jobs behind each submitter's last replica requests.
	mu     sync.Mutex
	offers map[string]map[string][]replicaOffer
}

func newReplication(s *Server) *replication {
	return &replication{s: s, offers: map[string]map[string][]replicaOffer{}}
}

// replicaPrefix starts the id of a replica request.
const replicaPrefix = "r"

// isRequest reports whether a request id is a replica request's.
func (p *replication) isRequest(request string) bool {
	return strings.HasPrefix(request, replicaPrefix)
}

// attrReplicaClaims lists a job's replica claims, "claim-id startd-addr"
// each, then " pool" for a startd of another pool (claims.Claim's Pool):
// a secret, never shown to tools.
const attrReplicaClaims = attrclass.ReplicaClaims

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

// allowed is how many extra instances a job may run: its own
// KiteReplicas, else the schedd's.
func (p *replication) allowed(v *queue.View) int {
	n := v.Int(attr.KiteReplicas, int64(p.s.cfg.Replicas))
	return int(max(0, min(n, 16)))
}

// machineOf is the machine of a slot ad.
func machineOf(slot *classad.Ad) string { return classad.EvalStringOr(slot, attr.Machine, "") }

// candidates lists a submitter's running jobs that may start another
// instance now, fewest instances first, then oldest.
func (p *replication) candidates(submitter string) []replicaCand {
	var out []replicaCand
	reg := p.s.claims
	p.s.q.Read(func(rd *queue.Reader) {
		for cl := range rd.Clusters {
			if cl.Submitter != submitter {
				continue
			}
			for j := range cl.Jobs {
				if j.Status() != attr.Running {
					continue
				}
				v := j.View()
				allowed := p.allowed(&v)
				if allowed == 0 || !reg.Replicable(j.ID, allowed) {
					continue // none allowed, not started yet, or sending its outputs
				}
				out = append(out, replicaCand{view: v, instances: reg.Size(j.ID), allowed: allowed,
					started: v.Int(attr.JobCurrentStartDate, 0), machines: reg.Machines(j.ID, machineOf)})
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

// requests groups a submitter's replica candidates into requests by
// their significant attributes, and remembers them for the matches.
func (p *replication) requests(submitter, key string, significant []string) []wire.ResourceRequest {
	cands := p.candidates(key)
	if len(cands) == 0 {
		p.remember(submitter, nil)
		return nil
	}
	g := newSignatures(significant)
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
			gr = &group{id: p.s.claims.AutoclusterID(sig), first: c, common: c.machines}
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
	p.remember(submitter, offers)
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

// remember keeps the jobs behind a submitter's replica requests.
func (p *replication) remember(submitter string, offers map[string][]replicaOffer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if offers == nil {
		delete(p.offers, submitter)
		return
	}
	p.offers[submitter] = offers
}

// reserve picks the job of a replica request that a slot should run
// another instance of.
func (p *replication) reserve(submitter, request string, slot *classad.Ad) (queue.JobID, bool) {
	p.mu.Lock()
	offers := p.offers[submitter][request]
	p.mu.Unlock()
	for _, o := range offers {
		if p.s.claims.ReserveReplica(o.id, o.allowed, slot, machineOf, p.s.cfg.MaxRunning) {
			return o.id, true
		}
	}
	return queue.JobID{}, false
}

// claim claims a matched slot for another instance of a running job,
// records it and starts it there.
func (p *replication) claim(ctx context.Context, id queue.JobID, slot *classad.Ad, preempt string) {
	s := p.s
	defer s.claims.UnreserveReplica(id, machineOf(slot))
	job, owner, ok := s.jobAd(id)
	if !ok {
		return
	}
	stripPrivate(job)
	s.typedJob(job)
	c, err := s.claimSlot(ctx, job, owner, slot, preempt)
	if err != nil {
		s.log.Info("replica claim refused", "job", id.String(), "err", err)
		return
	}
	c.Limits = ""
	started, err := p.record(id, c)
	if err != nil || !started {
		if err != nil {
			s.log.Error("recording a replica", "job", id.String(), "err", err)
		}
		s.releaseClaim(ctx, c)
		return
	}
	p.activate(ctx, c, id)
}

// record records durably that a claim runs another instance of a running
// job, and registers it; false when the job no longer runs.
func (p *replication) record(id queue.JobID, c *claims.Claim) (bool, error) {
	started := false
	err := p.s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		v := tx.View(j)
		k := v.Int(attr.KiteReplicaRuns, 0) + 1
		reps, ok := p.s.claims.AddReplica(id, c, func() int { return int(k) })
		if !ok {
			return
		}
		tx.SetInt(j, attr.KiteReplicaRuns, k)
		setReplicaClaims(tx, j, reps)
		started = true
	})
	return started, err
}

// setReplicaClaims records a job's replica claims (for a restarted
// schedd to vacate).
func setReplicaClaims(tx *queue.Tx, j *queue.Job, reps []*claims.Claim) {
	if len(reps) == 0 {
		tx.Delete(j, attrReplicaClaims)
		return
	}
	list := &ast.List{At: ast.NoPos}
	for _, c := range reps {
		rc := c.ID + " " + c.Startd
		if c.Pool != "" {
			rc += " " + c.Pool
		}
		list.Elems = append(list.Elems, ast.Str(rc))
	}
	tx.Set(j, attrReplicaClaims, list)
}

// replicaClaims reads a job's recorded replica claims: claim id, startd
// address and the startd's pool ("" for this pool's) of each (from the
// job's own ad, where the schedd writes them, never from a submitted
// cluster ad).
func replicaClaims(v *queue.View) [][3]string {
	e, ok := v.Own.Lookup(attrReplicaClaims)
	if !ok {
		return nil
	}
	l, isList := e.(*ast.List)
	if !isList {
		return nil
	}
	var out [][3]string
	for _, x := range l.Elems {
		if lit, isLit := x.(*ast.Literal); isLit && lit.Kind == ast.StringLit {
			if id, rest, found := strings.Cut(lit.Str, " "); found {
				addr, pool, _ := strings.Cut(rest, " ")
				out = append(out, [3]string{id, addr, pool})
			}
		}
	}
	return out
}

// activate runs the job on a replica's claim; a startd that refuses
// drops the replica.
func (p *replication) activate(ctx context.Context, c *claims.Claim, id queue.JobID) {
	s := p.s
	job, err := s.activation(id, c)
	if job == nil {
		return // removed meanwhile: the removal vacates the replicas
	}
	if err == nil {
		err = s.postActivate(ctx, c, job)
	}
	if err == nil || ctx.Err() != nil {
		return
	}
	s.log.Info("replica not started", "job", id.String(), "slot", c.SlotName, "err", err)
	p.drop(id, c, "the replica could not start: "+err.Error(), nil)
}

// involves reports whether a job's event is one update may handle: the
// job runs as several instances, or the event is a replica's.
func (p *replication) involves(u *wire.JobUpdate, id queue.JobID) bool {
	c, others, isReplica := p.s.claims.Instance(id, u.ClaimID)
	return c != nil && (others > 0 || isReplica)
}

// update sees a startd's job event before the schedd does: it handles an
// event of an instance of a job that runs several, and says so; any other
// it passes on (handled false), having noted a first instance's start.
// It may change u (a replica's start that came with its end is taken
// here) before passing it on.
func (p *replication) update(u *wire.JobUpdate, id queue.JobID) (handled bool, err error) {
	s := p.s
	c, others, isReplica := s.claims.Instance(id, u.ClaimID)
	if c == nil {
		return false, nil
	}
	if u.Event == wire.EventStarted && s.claims.Started(c, s.now()) && !isReplica && p.mayReplicate(id) {
		s.kickAds() // the submitter's ad offers a replica now (KiteReplicable)
	}
	if others == 0 && !isReplica {
		return false, nil
	}
	switch u.Event {
	case wire.EventStarted:
		if !isReplica {
			return false, nil
		}
		return true, p.started(id, c)
	case wire.EventExited:
		if isReplica && u.StartedAt != 0 {
			// A replica that ended at once reports its start with its
			// end: the log says so as for any replica, and the job's
			// own start stays the first instance's.
			s.claims.Started(c, time.Unix(u.StartedAt, 0))
			if err := p.started(id, c); err != nil {
				return true, err
			}
			u.StartedAt = 0
		}
		if err := s.claims.SendOutputs(id, c.ID); err != nil {
			return p.drop(id, c, "another instance sends the job's outputs", u), nil
		}
		if err := p.win(id, c); err != nil {
			return true, wire.Unavailable("%v", err)
		}
		return false, nil
	case wire.EventEvicted, wire.EventHeld, wire.EventFailed:
		reason := u.Reason
		if reason == "" {
			reason = "the startd reported it " + u.Event
		}
		return p.drop(id, c, u.Event+": "+reason, u), nil
	}
	return false, nil
}

// started notes in the job's log that a replica's process began.
func (p *replication) started(id queue.JobID, c *claims.Claim) error {
	s := p.s
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		v := tx.View(j)
		ev.add(&v, userlog.Event{Code: userlog.Generic,
			Reason: fmt.Sprintf("Replica %d of the job executes on %s <%s>", c.Replica, c.SlotName, c.Startd)})
	})
	return unavailable(err)
}

// win makes the instance on c the job's run, ahead of the event that ends
// the job: the job's RemoteHost and claim become c's, the other instances
// are detached, then vacated and released.
func (p *replication) win(id queue.JobID, c *claims.Claim) error {
	s := p.s
	var losers []*claims.Claim
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		losers = s.claims.Promote(id, c)
		v := tx.View(j)
		if at := s.claims.StartedAt(c); c.Replica > 0 && !at.IsZero() {
			tx.SetInt(j, attr.JobCurrentStartDate, at.Unix())
		}
		setClaim(tx, j, c)
		tx.SetString(j, attr.KiteWinner, c.SlotName)
		tx.SetInt(j, attr.KiteWinnerInstance, int64(c.Replica))
		tx.Delete(j, attrReplicaClaims)
		ev.add(&v, userlog.Event{Code: userlog.Generic, Reason: winText(c, v.Int(attr.KiteReplicaRuns, 0), len(losers))})
	})
	if err != nil {
		return err
	}
	for _, l := range losers {
		s.goBackground(func(ctx context.Context) { s.vacate(ctx, l, "another instance of the job finished first") })
	}
	return nil
}

// winText says which instance won.
func winText(c *claims.Claim, replicas int64, killed int) string {
	which := "The first instance"
	if c.Replica > 0 {
		which = "Replica " + strconv.Itoa(c.Replica)
	}
	return fmt.Sprintf("%s of the job, on %s, finished first and wins; %d replica(s) ran, %d other instance(s) killed",
		which, c.SlotName, replicas, killed)
}

// drop ends one instance of a job that runs others: a replica leaves the
// job, a first instance gives way to the oldest replica. Its usage (u,
// when its last event came) counts in the job's, and its claim is vacated
// and released. It returns false, changing nothing, when c is by now the
// job's only instance: the caller treats it as any job's.
func (p *replication) drop(id queue.JobID, c *claims.Claim, reason string, u *wire.JobUpdate) bool {
	s := p.s
	dropped := false
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		carrier, reps, ok := s.claims.DropInstance(id, c)
		if dropped = ok; !ok {
			return
		}
		setReplicaClaims(tx, j, reps)
		if u != nil {
			addUsage(tx, j, u)
		}
		v := tx.View(j)
		text := fmt.Sprintf("The instance of the job on %s stopped (%s); %d other instance(s) run on", c.SlotName, reason, len(reps)+1)
		if carrier != nil {
			setClaim(tx, j, carrier)
			text = fmt.Sprintf("The instance of the job on %s stopped (%s); replica %d on %s carries on", c.SlotName, reason, carrier.Replica, carrier.SlotName)
		}
		ev.add(&v, userlog.Event{Code: userlog.Generic, Reason: text})
	})
	if err != nil {
		s.log.Error("dropping an instance of a job", "job", id.String(), "err", err)
	}
	if !dropped && s.claims.Stray(id, c) {
		return false
	}
	s.goBackground(func(ctx context.Context) { s.vacate(ctx, c, "the schedd dropped this instance of the job: "+reason) })
	return true
}

// stop is called in a transaction that takes a job out of Running: once
// it commits, the job's replicas are vacated and released.
func (p *replication) stop(tx *queue.Tx, j *queue.Job, why string) {
	reps := p.s.claims.StopReplicas(j.ID)
	if len(reps) == 0 {
		return
	}
	tx.Delete(j, attrReplicaClaims)
	tx.AfterCommit(func() {
		for _, c := range reps {
			p.s.goBackground(func(ctx context.Context) { p.s.vacate(ctx, c, "the job was "+why) })
		}
	})
}

// limitIn writes into a job ad sent to a startd how many replicas the
// job may run, when the schedd's default allows some: a starter runs a job
// that may replicate apart from the submitter's files (its outputs are
// sent, and only the winner's are kept).
func (p *replication) limitIn(job *classad.Ad) {
	if _, own := job.Lookup(attr.KiteReplicas); !own && p.s.cfg.Replicas > 0 {
		job.Set(attr.KiteReplicas, ast.Int(int64(min(p.s.cfg.Replicas, 16))))
	}
}

// mayReplicate reports whether a job may run replicas at all.
func (p *replication) mayReplicate(id queue.JobID) bool {
	if p.s.cfg.Replicas > 0 {
		return true
	}
	v, ok := p.s.view(id)
	return ok && p.allowed(&v) > 0
}

// replicable counts a submitter's running jobs that may start another
// instance now (its ad's KiteReplicable).
func (p *replication) replicable(submitter string) int { return len(p.candidates(submitter)) }
