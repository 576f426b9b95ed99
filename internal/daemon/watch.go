package daemon

import (
	"context"
	"time"

	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/wire"
)

// WatchCollector follows the pool's gossip for the collector. When the
// collector fails or leaves (a restart loses the ads it held and starts a
// gossip of its own), it asks the collector every second until one
// answers, joins its gossip, and then signals on the returned channel:
// the daemon should advertise at once instead of at its next update. It
// With several collectors (pool.collectors) it also signals when one of
// them joins the gossip, so that a restarted collector gets the ads at
// once. It consumes node's events, passing each to onEvent first when that is not
// nil; with no node (gossip off) the channel never fires.
func (e *Env) WatchCollector(ctx context.Context, node *membership.Node, onEvent func(membership.Event)) <-chan struct{} {
	back := make(chan struct{}, 1)
	if node == nil {
		return back
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-node.Events():
				if onEvent != nil {
					onEvent(ev)
				}
				if ev.Member.Meta.Kind != "collector" {
					continue
				}
				if ev.Kind == membership.Joined && len(e.Config.Pool.CollectorAddrs()) > 1 {
					// One of several collectors (re)started: it has no
					// ads until the daemons send theirs.
					notify(back)
					continue
				}
				if ev.Kind != membership.Failed && ev.Kind != membership.Departed {
					continue
				}
			}
			e.Log.Info("the collector is gone; waiting for it to come back")
			if !e.rejoinCollector(ctx, node) {
				return
			}
			notify(back)
		}
	}()
	return back
}

// notify sends on a channel of one unless a signal already waits there.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// rejoinCollector asks the collector for its gossip address until it
// answers, and joins it.
func (e *Env) rejoinCollector(ctx context.Context, node *membership.Node) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Second):
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var g wire.GossipInfo
		err := e.Collector().Call(cctx, "GET", wire.PathGossip, nil, &g)
		cancel()
		if err != nil || g.Addr == "" {
			continue
		}
		if err := node.Join([]string{g.Addr}); err != nil {
			e.Log.Debug("rejoining the collector's gossip", "err", err)
			continue
		}
		e.Log.Info("the collector is back", "gossip", g.Addr)
		return true
	}
}
