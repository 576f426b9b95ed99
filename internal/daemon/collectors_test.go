package daemon_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// Several collectors gossip as one pool: a collector that starts after
// another joins its gossip, and a daemon joins every collector's, so
// each collector hears of each daemon's death (HTCondor manual, "High
// Availability of the Central Manager": every daemon updates each
// collector of COLLECTOR_HOST).
func TestSeveralCollectorsGossipAsOne(t *testing.T) {
	p := pooltest.New(t)
	p.Config.Membership.Enabled = true
	p.Config.Membership.Bind = "127.0.0.1:0"
	addrs := []string{"127.0.0.1:19618", "127.0.0.2:19618"}
	p.Config.Pool.Collectors = addrs
	p.Config.Pool.Collector = addrs[0]
	for _, a := range addrs {
		p.Config.Collector.Listen = a
		start.Collector(t, p)
	}
	first := p.Client(addrs[0], "reader", auth.Read)
	waitMembers(t, first, map[string]int{"collector": 2})
	node, err := p.Env("startd").JoinPool(context.Background(), "startd", "startd@test:1", "startd:1")
	if err != nil {
		t.Fatal(err)
	}
	defer node.Shutdown()
	waitMembers(t, first, map[string]int{"collector": 2, "startd": 1})
}

// waitMembers waits until a collector's gossip has members of the kinds
// and numbers given (gossip runs on real sockets with memberlist's own
// timers: poll, 10 s at most).
func waitMembers(t *testing.T, c *wire.Client, want map[string]int) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		var m wire.Members
		if err := c.Call(context.Background(), "GET", wire.PathMembers, nil, &m); err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, mem := range m.Members {
			kinds[mem.Kind]++
		}
		if maps.Equal(kinds, want) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the collector's gossip: %+v; want %v", m.Members, want)
		}
	}
}
