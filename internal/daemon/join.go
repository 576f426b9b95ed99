package daemon

import (
	"context"
	"fmt"
	"net"
	"strconv"

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
		var g wire.GossipInfo
		if err := e.Collector().Call(ctx, "GET", wire.PathGossip, nil, &g); err != nil {
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
		Meta:          membership.Meta{Kind: kind, Addr: addr, Version: Version},
		ProbeInterval: mc.ProbeInterval.Duration,
		ProbeTimeout:  mc.ProbeTimeout.Duration,
		SuspicionMult: mc.SuspicionMult,
		Logger:        e.Log,
	})
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
