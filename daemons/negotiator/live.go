package negotiator

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
	"github.com/kite-sched/kite/internal/wire"
)

// A live cycle: fetch slot and submitter ads from the collector, bring the
// accountant up to date, ask each submitter's schedds for resource
// requests, run the pure cycle, and send each schedd its matches.

// Cycle runs one negotiation cycle against the pool now.
func (s *Server) Cycle(ctx context.Context) error {
	start := s.now()
	rep := wire.CycleReport{Start: start, Seed: s.newSeed()}
	t := time.Now()
	slots, subs, err := s.fetchAds(ctx)
	if err != nil {
		return err
	}
	inUse, limits := matchmaker.InUse(slots)
	poolWeight := 0.0
	for _, ad := range slots {
		poolWeight += matchmaker.SlotWeight(ad)
	}
	s.pending.apply(&slots, limits, inUse, start)
	if err := s.updateUsage(start, inUse); err != nil {
		return err
	}
	rep.Fetch = time.Since(t).Seconds()

	if !s.anyCandidate(slots) {
		// Every slot is taken and nothing may be preempted: asking the
		// schedds for their idle jobs would change nothing.
		s.finishIdle(&rep, start, slots, subs)
		return nil
	}
	t = time.Now()
	pol := s.policy()
	pol.Seed = rep.Seed
	pol.Strategy = s.strategy
	snap := &matchmaker.Snapshot{Slots: slots, Now: start, LimitsInUse: limits, Priorities: s.acct.Priorities(), PoolWeight: poolWeight}
	pools := scheddPools(subs)
	snap.Submitters, rep.Unreachable = s.requests(ctx, subs, matchmaker.Significant(slots, &pol), inUse, pools)
	rep.Requests = time.Since(t).Seconds()

	res := matchmaker.Cycle(snap, &pol)
	rep.Match = (res.Stats.ClassifyTime + res.Stats.MatchTime).Seconds()

	t = time.Now()
	s.deliver(ctx, snap, res.Matches, pools)
	rep.Deliver = time.Since(t).Seconds()
	rep.Duration = time.Since(start).Seconds()
	st := res.Stats
	rep.Strategy, rep.Slots, rep.Classes, rep.Submitters = st.Strategy, st.Slots, st.Classes, st.Submitters
	rep.Autoclusters, rep.IdleJobs, rep.Matches, rep.Evaluations = st.Requests, st.Jobs, len(res.Matches), st.Evaluations
	rep.Rejections = st.Rejections
	s.record(&rep)
	s.log.Debug("cycle", "n", rep.Number, "slots", rep.Slots, "submitters", rep.Submitters, "idle", rep.IdleJobs,
		"matches", rep.Matches, "seconds", rep.Duration)
	return nil
}

// record keeps a cycle's report.
func (s *Server) record(rep *wire.CycleReport) {
	s.mu.Lock()
	rep.Number = s.report.Number + 1
	s.report = *rep
	s.mu.Unlock()
	s.metrics.record(rep)
}

// anyCandidate reports whether some slot could take a job this cycle.
func (s *Server) anyCandidate(slots []*classad.Ad) bool {
	for _, ad := range slots {
		if matchmaker.Available(ad, s.cfg.Policy.ConsiderPreemption) {
			return true
		}
	}
	return false
}

// finishIdle reports a cycle that had no slot to give: the submitters'
// idle jobs all wait for busy slots.
func (s *Server) finishIdle(rep *wire.CycleReport, start time.Time, slots, subs []*classad.Ad) {
	idle := 0
	for _, ad := range subs {
		idle += int(classad.EvalIntOr(ad, attr.IdleJobs, 0))
	}
	rep.Strategy, rep.Slots, rep.Submitters, rep.IdleJobs = s.cfg.Strategy, len(slots), len(subs), idle
	rep.Rejections = map[string]int{policy.Busy.String(): idle}
	rep.Duration = time.Since(start).Seconds()
	s.record(rep)
}

// fetchAds reads the slots and the submitters with idle jobs, or with
// running jobs that may start another instance (KiteReplicable:
// replication). The negotiator's DAEMON token lets it see each slot's
// ClaimId.
func (s *Server) fetchAds(ctx context.Context) (slots, subs []*classad.Ad, err error) {
	c := s.env.Collector()
	read := func(q wire.Query) ([]*classad.Ad, error) {
		var out []*classad.Ad
		err := c.Stream(ctx, "POST", wire.PathQuery, q, func(item json.RawMessage) error {
			ad, err := classad.ParseJSON(item)
			if err != nil {
				return fmt.Errorf("collector sent a bad ad: %w", err)
			}
			out = append(out, ad)
			return nil
		})
		return out, err
	}
	if slots, err = read(wire.Query{Type: attr.TypeSlot}); err != nil {
		return nil, nil, fmt.Errorf("fetching slots: %w", err)
	}
	if subs, err = read(wire.Query{Type: attr.TypeSubmitter, Constraint: attr.IdleJobs + " > 0 || " + attr.KiteReplicable + " > 0"}); err != nil {
		return nil, nil, fmt.Errorf("fetching submitters: %w", err)
	}
	return slots, subs, nil
}

// requests asks each submitter's schedds for its resource requests, in
// parallel, and merges a user's requests from several schedds into one
// submitter. Schedds that do not answer are skipped this cycle and named.
// A schedd of another pool (pools) is called with the flock token for
// that pool.
func (s *Server) requests(ctx context.Context, subs []*classad.Ad, sig []string, inUse map[string]float64, pools map[string]string) ([]matchmaker.Submitter, []string) {
	type answer struct {
		user, schedd string
		reqs         []wire.ResourceRequest
		err          error
	}
	answers := make([]answer, len(subs))
	var wg sync.WaitGroup
	for i, ad := range subs {
		user, _ := classad.EvalString(ad, attr.Name)
		schedd, _ := classad.EvalString(ad, attr.MyAddress)
		answers[i] = answer{user: user, schedd: schedd}
		if answers[i].user == "" || answers[i].schedd == "" {
			answers[i].err = fmt.Errorf("submitter ad without %s or %s", attr.Name, attr.MyAddress)
			continue
		}
		wg.Go(func() {
			a := &answers[i]
			cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
			defer cancel()
			var out wire.ResourceRequests
			q := wire.RequestsQuery{Submitter: a.user, Significant: sig, Limit: s.cfg.MaxRequests}
			a.err = s.env.ConnectorFor(pools[a.schedd]).Client(a.schedd).Call(cctx, "POST", wire.PathResourceRequests, q, &out)
			a.reqs = out.Requests
		})
	}
	wg.Wait()
	byUser := map[string]*matchmaker.Submitter{}
	var order []string
	var unreachable []string
	for _, a := range answers {
		if a.err != nil {
			s.log.Warn("no resource requests", "submitter", a.user, "schedd", a.schedd, "err", a.err)
			unreachable = append(unreachable, a.schedd)
			continue
		}
		sub := byUser[a.user]
		if sub == nil {
			sub = &matchmaker.Submitter{Name: a.user, Schedd: a.schedd, Priority: s.acct.Effective(a.user), InUse: inUse[a.user]}
			byUser[a.user] = sub
			order = append(order, a.user)
		}
		for _, r := range a.reqs {
			if r.Ad != nil && r.Count > 0 {
				sub.Requests = append(sub.Requests, matchmaker.Request{ID: r.ID, Count: r.Count, Ad: r.Ad, Schedd: a.schedd})
			}
		}
	}
	out := make([]matchmaker.Submitter, 0, len(order))
	for _, u := range order {
		out = append(out, *byUser[u])
	}
	return out, unreachable
}

// deliver sends each schedd its matches, one call per submitter, in
// parallel, and remembers the matched slots until their ads change. A
// schedd of another pool (pools) is called with the flock token for that
// pool.
func (s *Server) deliver(ctx context.Context, snap *matchmaker.Snapshot, matches []matchmaker.Match, pools map[string]string) {
	type key struct{ schedd, user string }
	groups := map[key][]matchmaker.Match{}
	var keys []key
	for _, m := range matches {
		k := key{m.Schedd, m.Submitter}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], m)
	}
	limitsOf, workOf := requestLimits(snap)
	now := s.now()
	var wg sync.WaitGroup
	for _, k := range keys {
		ms := groups[k]
		for _, m := range ms {
			key := m.Schedd + "\x00" + m.Request
			s.pending.add(m, limitsOf[key], workOf[key], now)
		}
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
			defer cancel()
			msg := wire.Matches{Submitter: k.user, Matches: make([]wire.Match, len(ms))}
			for i, m := range ms {
				msg.Matches[i] = wire.Match{Request: m.Request, Slot: m.Slot, Preempt: m.Preempt}
			}
			var res wire.MatchesResult
			if err := s.env.ConnectorFor(pools[k.schedd]).Client(k.schedd).Call(cctx, "POST", wire.PathMatches, msg, &res); err != nil {
				s.log.Warn("matches not delivered", "schedd", k.schedd, "submitter", k.user, "matches", len(ms), "err", err)
				s.pending.forget(ms)
			}
		})
	}
	wg.Wait()
}

// requestLimits maps schedd and request id to the request's limits and
// to the work its jobs declare (policy.JobWork).
func requestLimits(snap *matchmaker.Snapshot) (map[string][]matchmaker.LimitUse, map[string]float64) {
	limits, work := map[string][]matchmaker.LimitUse{}, map[string]float64{}
	for _, sub := range snap.Submitters {
		for _, r := range sub.Requests {
			key := cmp.Or(r.Schedd, sub.Schedd) + "\x00" + r.ID
			limits[key] = matchmaker.JobLimits(r.Ad)
			work[key] = policy.JobWork(r.Ad)
		}
	}
	return limits, work
}
