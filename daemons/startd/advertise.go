package startd

import (
	"context"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/wire"
)

// advertise sends the slot ads to the collector when something changed
// (gathering the changes of UpdateDelay into one update), every
// UpdateInterval, at once when a restarted collector is back, and within
// seconds again after an update that failed, until ctx is done.
func (s *Server) advertise(ctx context.Context, collectorBack <-chan struct{}) {
	t := time.NewTicker(s.cfg.UpdateInterval)
	defer t.Stop()
	retry := &daemon.UpdateRetry{Log: s.log, What: "slot ads", Interval: s.cfg.UpdateInterval}
	for {
		err := s.sendAds(context.WithoutCancel(ctx)) // a send in flight ends on its own
		again := retry.Done(err)
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-again:
		case <-collectorBack:
		case <-s.wake:
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.cfg.UpdateDelay):
			}
		}
	}
}

// sendAds sends every slot's ad, and withdraws the dynamic slots that
// are gone. It returns why the collector did not take them.
func (s *Server) sendAds(ctx context.Context) error {
	if s.crashed.Load() {
		return nil // nothing leaves a dead machine
	}
	s.mu.Lock()
	s.seq++
	var ads []*classad.Ad
	for _, st := range s.all() {
		ads = append(ads, s.slotAd(st))
	}
	gone, freed := s.gone, s.freed && !s.stopping // a stopping startd takes no claims
	s.gone, s.freed = nil, false
	s.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	collector := s.env.Collector()
	if len(gone) > 0 {
		err := collector.Call(cctx, "POST", wire.PathInvalidate, wire.Invalidate{Type: attr.TypeSlot, Names: gone}, nil)
		if err != nil {
			s.log.Warn("withdrawing ads of dynamic slots", "err", err)
			s.mu.Lock()
			s.gone = append(s.gone, gone...)
			s.mu.Unlock()
		}
	}
	var res wire.UpdateAdsResult
	if err := collector.CallRaw(cctx, "POST", wire.PathAds, classad.AppendJSONArray(nil, ads), &res); err != nil {
		if freed {
			s.mu.Lock()
			s.freed = true // asked for with the next update that lands
			s.mu.Unlock()
		}
		return err
	}
	s.log.Debug("advertised", "ads", len(ads), "stored", res.Stored)
	if freed {
		s.env.Reschedule(ctx)
	}
	return nil
}

// withdraw removes every ad of the startd from the collector.
func (s *Server) withdraw() {
	s.mu.Lock()
	names := s.gone
	for _, st := range s.all() {
		names = append(names, st.name)
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.env.Collector().Call(ctx, "POST", wire.PathInvalidate, wire.Invalidate{Type: attr.TypeSlot, Names: names}, nil)
	if err != nil {
		s.log.Info("withdrawing the slot ads", "err", err)
	}
}
