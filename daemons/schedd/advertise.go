package schedd

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/wire"
)

// advertise sends the schedd's ad and one ad per submitter to the
// collector: soon after a change (changes within UpdateDelay make one
// update) and every UpdateInterval. After an update that shows more idle
// jobs than the last one (a submit, a release, a job back from a machine)
// it pokes the negotiator, so that new work starts without waiting for the
// next cycle; jobs that only leave Idle (claims reused as jobs end) ask
// for no cycle, which at thousands of slots would fetch every slot ad
// again and again to match nothing (docs/scale.md). A restarted
// collector gets the ads at once, and an update that failed is tried
// again within seconds.
func (s *Server) advertise(ctx context.Context, collectorBack <-chan struct{}) {
	t := time.NewTicker(s.cfg.UpdateInterval)
	defer t.Stop()
	var seq int64 = 1
	sent := map[string]bool{} // submitter ads at the collector
	retry := &daemon.UpdateRetry{Log: s.log, What: "schedd and submitter ads", Interval: s.cfg.UpdateInterval}
	idle, err := s.sendAds(ctx, seq, sent)
	if idle > 0 {
		s.env.Reschedule(ctx) // jobs left idle by the last run
	}
	told := idle // the idle jobs the negotiator was last asked to look at
	again := retry.Done(err)
	for {
		poke, back := false, false
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-again:
			poke, back = true, true
		case <-collectorBack:
			poke, back = true, true
		case <-s.kick:
			poke = true
		case <-s.q.Changed():
			poke = true
		}
		if poke && s.cfg.UpdateDelay > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.cfg.UpdateDelay):
			}
			drain(s.kick)
			drain(s.q.Changed())
		}
		seq++
		idle, err := s.sendAds(ctx, seq, sent)
		again = retry.Done(err)
		if poke && idle > 0 && (idle > told || back) {
			s.env.Reschedule(ctx)
		}
		if err == nil {
			told = idle
		}
	}
}

func drain(c <-chan struct{}) {
	select {
	case <-c:
	default:
	}
}

// sendAds sends the ads and invalidates those of submitters that left.
// It returns the number of idle jobs, and why the collector did not take
// the update.
func (s *Server) sendAds(ctx context.Context, seq int64, sent map[string]bool) (int, error) {
	per, all := map[string]queue.Counts{}, queue.Counts{}
	s.q.Read(func(r *queue.Reader) { per, all = r.SubmitterCounts() })
	ads := []*classad.Ad{s.scheddAd(seq, all)}
	names := make([]string, 0, len(per))
	for o := range per {
		names = append(names, o)
	}
	sort.Strings(names)
	now := map[string]bool{}
	for _, o := range names {
		c := per[o]
		if c.Idle+c.Running+c.Held == 0 {
			continue
		}
		ad := s.submitterAd(o, seq, c)
		now[o+"@"+s.domain] = true
		ads = append(ads, ad)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	body := classad.AppendJSONArray(nil, ads)
	if err := s.env.Collector().CallRaw(cctx, "POST", wire.PathAds, body, nil); err != nil {
		return all.Idle, fmt.Errorf("advertising: %w", err)
	}
	var gone []string
	for n := range sent {
		if !now[n] {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		inv := wire.Invalidate{Type: attr.TypeSubmitter, Names: gone}
		if err := s.env.Collector().Call(cctx, "POST", wire.PathInvalidate, inv, nil); err != nil {
			return all.Idle, fmt.Errorf("invalidating the ads of submitters gone: %w", err)
		}
	}
	clear(sent)
	for n := range now {
		sent[n] = true
	}
	return all.Idle, nil
}

// common sets what every ad of the schedd carries.
func (s *Server) common(ad *classad.Ad, typ, name string, seq int64) {
	addr := s.Addr()
	host, _, _ := net.SplitHostPort(addr)
	ad.Set(attr.MyType, ast.Str(typ))
	ad.Set(attr.Name, ast.Str(name))
	ad.Set(attr.Machine, ast.Str(host))
	ad.Set(attr.MyAddress, ast.Str(addr))
	ad.Set(attr.ScheddName, ast.Str(s.name))
	ad.Set(attr.DaemonStartTime, ast.Int(s.start.Unix()))
	ad.Set(attr.UpdateSequence, ast.Int(seq))
	ad.Set(attr.KiteVersion, ast.Str(daemon.Version))
	if s.env.Config != nil && s.env.Config.Membership.Enabled {
		ad.Set(attr.Member, ast.Str(daemon.MemberName("schedd", addr)))
		ad.Set(attr.Incarnation, ast.Str(s.env.Incarnation()))
	}
}

// scheddAd is the schedd's own ad.
func (s *Server) scheddAd(seq int64, all queue.Counts) *classad.Ad {
	ad := classad.NewAd()
	s.common(ad, attr.TypeScheduler, s.name, seq)
	ad.Set(attr.TotalIdleJobs, ast.Int(int64(all.Idle)))
	ad.Set(attr.TotalRunningJobs, ast.Int(int64(all.Running)))
	ad.Set(attr.TotalHeldJobs, ast.Int(int64(all.Held)))
	ad.Set(attr.TotalJobAds, ast.Int(int64(all.Total())))
	ad.Set(attr.UIDDomain, ast.Str(s.domain))
	ad.Set("MaxJobsRunning", ast.Int(int64(s.cfg.MaxRunning)))
	s.flock.describe(ad)
	return ad
}

// submitterAd is one submitter's ad (an owner, or an accounting group
// user): what the negotiator asks about.
func (s *Server) submitterAd(submitter string, seq int64, c queue.Counts) *classad.Ad {
	ad := classad.NewAd()
	s.common(ad, attr.TypeSubmitter, submitter+"@"+s.domain, seq)
	if i := strings.LastIndexByte(submitter, '.'); i > 0 {
		ad.Set(attr.AcctGroup, ast.Str(submitter[:i]))
	}
	ad.Set(attr.IdleJobs, ast.Int(int64(c.Idle)))
	ad.Set(attr.RunningJobs, ast.Int(int64(c.Running)))
	ad.Set(attr.HeldJobs, ast.Int(int64(c.Held)))
	if c.Running > 0 {
		if n := s.replication.replicable(submitter); n > 0 {
			ad.Set(attr.KiteReplicable, ast.Int(int64(n)))
		}
	}
	return ad
}

// invalidate removes the schedd's ads from the collector as it stops.
func (s *Server) invalidate() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c := s.env.Collector()
	c.Call(ctx, "POST", wire.PathInvalidate, wire.Invalidate{Type: attr.TypeScheduler, Names: []string{s.name}}, nil)
	c.Call(ctx, "POST", wire.PathInvalidate, wire.Invalidate{Type: attr.TypeSubmitter, Constraint: "ScheddName == " + string(ast.AppendQuoted(nil, s.name))}, nil)
}
