package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/wire"
)

// Version is Kite's version, as members report it.
var Version = "devel"

// JoinPool starts this daemon's membership: it gossips as name, of the
// given kind, serving the wire protocol at addr. It joins the members the
// configuration lists or, when it lists none, the collector's gossip
// address (asked over the wire); the collector itself starts the gossip.
// With membership disabled it returns nil.
func (e *Env) JoinPool(ctx context.Context, kind, name, addr string) (*membership.Node, error) {
	mc := e.Config.Membership
	if !mc.Enabled {
		return nil, nil
	}
	join := mc.Join
	switch {
	case len(join) > 0:
	case kind == "collector":
		// With several collectors, each joins the gossip of those already
		// up, so that the pool gossips as one.
		join = e.peerGossip(ctx, addr)
	default:
		addrs, err := e.askGossip(ctx)
		if err != nil {
			return nil, fmt.Errorf("asking the collector where to gossip: %w", err)
		}
		join = addrs
	}
	return membership.Start(membership.Config{
		Name:          name,
		Bind:          mc.Bind,
		Join:          join,
		Meta:          membership.Meta{Kind: kind, Addr: addr, Version: Version, Incarnation: e.Incarnation()},
		ProbeInterval: mc.ProbeInterval.Duration,
		ProbeTimeout:  mc.ProbeTimeout.Duration,
		SuspicionMult: mc.SuspicionMult,
		Logger:        e.Log,
	})
}

// collectorPatience is how long a starting daemon waits for a collector
// that does not answer yet (one the master started a moment before, on a
// busy host) before it gives up and says why.
const collectorPatience = 30 * time.Second

// askGossip asks the collectors for their gossip addresses, again and
// again while none answers, for collectorPatience at most. Joining every
// collector that answers joins gossips that started apart into one.
func (e *Env) askGossip(ctx context.Context) ([]string, error) {
	deadline := time.Now().Add(collectorPatience)
	wait := 100 * time.Millisecond
	for warned := false; ; warned = true {
		g, err := e.gossipOf(ctx, e.Config.Pool.CollectorAddrs(), collectorPatience)
		if err == nil || !errors.Is(err, wire.ErrUnreachable) || time.Now().Add(wait).After(deadline) {
			return g, err
		}
		if !warned {
			e.Log.Warn("waiting for the collector", "err", err)
		}
		select {
		case <-ctx.Done():
			return g, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// peerGossip returns the gossip addresses of the other collectors that
// answer now (none when this is the only or the first one up).
func (e *Env) peerGossip(ctx context.Context, self string) []string {
	all := e.Config.Pool.CollectorAddrs()
	if len(all) < 2 {
		return nil
	}
	var peers []string
	for _, a := range all {
		if a != self {
			peers = append(peers, a)
		}
	}
	if len(peers) == 0 {
		return nil
	}
	addrs, err := e.gossipOf(ctx, peers, 2*time.Second)
	if err != nil {
		e.Log.Info("no other collector answers yet; gossiping alone until one joins", "err", err)
	}
	return addrs
}

// gossipOf asks each collector at addrs for its gossip address, at once,
// each for timeout at most; it fails only when none answers.
func (e *Env) gossipOf(ctx context.Context, addrs []string, timeout time.Duration) ([]string, error) {
	out := make([]string, len(addrs))
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			var g wire.GossipInfo
			errs[i] = e.Connector().Client(a).Call(cctx, "GET", wire.PathGossip, nil, &g)
			out[i] = g.Addr
		})
	}
	wg.Wait()
	var join []string
	answered := false
	for i := range addrs {
		if errs[i] == nil {
			answered = true
			if out[i] != "" {
				join = append(join, out[i])
			}
		}
	}
	if !answered {
		return nil, errors.Join(errs...)
	}
	return join, nil
}

// MemberName is a daemon's gossip name: kind@host:port of its address, so
// that daemons of one kind on one host stay distinct.
func MemberName(kind, addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return kind + "@" + addr
	}
	if p, err := strconv.Atoi(port); err == nil {
		port = strconv.Itoa(p)
	}
	return kind + "@" + host + ":" + port
}
