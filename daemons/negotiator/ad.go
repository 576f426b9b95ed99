package negotiator

import (
	"context"
	"net"
	"strconv"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/policy"
	"github.com/kite-sched/kite/internal/wire"
)

// name is the negotiator's ad name: negotiator@host, or, in a Raft group
// (whose members may share a host), negotiator@ its Raft id.
func (s *Server) name() string {
	if s.group != nil {
		return "negotiator@" + s.group.ID()
	}
	host, _, _ := net.SplitHostPort(s.Addr())
	return "negotiator@" + host
}

// ad is the negotiator's ad: where it serves, and what its last cycle did,
// with HTCondor's attribute names where HTCondor has them.
func (s *Server) ad() *classad.Ad {
	s.mu.Lock()
	rep := s.report
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	ad := classad.NewAd()
	str := func(n, v string) { ad.Set(n, ast.Str(v)) }
	num := func(n string, v float64) { setNumber(ad, n, v) }
	str(attr.MyType, attr.TypeNegotiator)
	str(attr.Name, s.name())
	str(attr.MyAddress, s.Addr())
	str(attr.Member, daemon.MemberName("negotiator", s.Addr()))
	str(attr.Incarnation, s.env.Incarnation())
	str(attr.KiteVersion, daemon.Version)
	ad.Set(attr.DaemonStartTime, ast.Int(s.start.Unix()))
	ad.Set(attr.UpdateSequence, ast.Int(seq))
	str("NegotiatorStrategy", s.cfg.Strategy)
	num("NegotiatorInterval", s.cfg.Interval.Seconds())
	pol := s.policy()
	advertiseLimits(ad, pol.ConcurrencyLimits, pol.DefaultLimit)
	if id, state, leader := s.raftAttrs(); id != "" {
		str(attr.RaftID, id)
		str(attr.RaftState, state)
		str(attr.RaftLeader, leader)
	}
	if rep.Number == 0 {
		return ad
	}
	num("LastNegotiationCycleNumber0", float64(rep.Number))
	ad.Set("LastNegotiationCycleTime0", ast.Int(rep.Start.Unix()))
	num("LastNegotiationCycleDuration0", rep.Duration)
	num("LastNegotiationCyclePhase1Duration0", rep.Fetch)
	num("LastNegotiationCyclePhase2Duration0", rep.Requests)
	num("LastNegotiationCyclePhase3Duration0", rep.Match)
	num("LastNegotiationCyclePhase4Duration0", rep.Deliver)
	num("LastNegotiationCycleMatches0", float64(rep.Matches))
	num("LastNegotiationCycleTotalSlots0", float64(rep.Slots))
	num("LastNegotiationCycleSlotClasses0", float64(rep.Classes))
	num("LastNegotiationCycleActiveSubmitterCount0", float64(rep.Submitters))
	num("LastNegotiationCycleAutoclusters0", float64(rep.Autoclusters))
	num("LastNegotiationCycleNumIdleJobs0", float64(rep.IdleJobs))
	num("LastNegotiationCycleEvaluations0", float64(rep.Evaluations))
	if rep.Duration > 0 {
		num("LastNegotiationCycleMatchRate0", float64(rep.Matches)/rep.Duration)
	}
	total := 0
	for _, r := range policy.Reasons() {
		n := rep.Rejections[r.String()]
		total += n
		num("LastNegotiationCycleRejected"+reasonAttr(r)+"0", float64(n))
	}
	num("LastNegotiationCycleRejections0", float64(total))
	ad.Set("LastNegotiationCycleSeed0", ast.Str(strconv.FormatUint(rep.Seed, 16)))
	return ad
}

// reasonAttr spells a rejection reason inside an attribute name.
func reasonAttr(r policy.Reason) string {
	switch r {
	case policy.NoMatch:
		return "NoMatch"
	case policy.Busy:
		return "Busy"
	case policy.Quota:
		return "Quota"
	case policy.Limit:
		return "Limit"
	case policy.Priority:
		return "Priority"
	}
	return "Policy"
}

// advertise sends the negotiator ad to the collector.
func (s *Server) advertise(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	body := classad.AppendJSONArray(nil, []*classad.Ad{s.ad()})
	var res wire.UpdateAdsResult
	if err := s.env.Collector().CallRaw(ctx, "POST", wire.PathAds, body, &res); err != nil && ctx.Err() == nil {
		s.log.Warn("advertising to the collector", "err", err)
	}
}

// invalidateAd removes the negotiator ad when it stops.
func (s *Server) invalidateAd() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var res wire.InvalidateResult
	inv := wire.Invalidate{Type: attr.TypeNegotiator, Names: []string{s.name()}}
	if err := s.env.Collector().Call(ctx, "POST", wire.PathInvalidate, inv, &res); err != nil {
		s.log.Debug("invalidating the negotiator ad", "err", err)
	}
}
