package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
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
	if len(join) == 0 && kind != "collector" {
		g, err := e.askGossip(ctx)
		if err != nil {
			return nil, fmt.Errorf("asking the collector where to gossip: %w", err)
		}
		if g.Addr != "" {
			join = []string{g.Addr}
		}
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

// askGossip asks the collector for its gossip address, again and again
// while it does not answer, for collectorPatience at most.
func (e *Env) askGossip(ctx context.Context) (wire.GossipInfo, error) {
	deadline := time.Now().Add(collectorPatience)
	wait := 100 * time.Millisecond
	for warned := false; ; warned = true {
		var g wire.GossipInfo
		err := e.Collector().Call(ctx, "GET", wire.PathGossip, nil, &g)
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
