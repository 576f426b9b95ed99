package daemon_test

import (
	"context"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// A daemon that starts before its collector answers (the master starts
// them a moment apart; a busy host may be slow) waits for it and joins
// its gossip, instead of stopping.
func TestJoinWaitsForTheCollector(t *testing.T) {
	p := pooltest.New(t)
	p.Config.Membership.Enabled = true
	p.Config.Membership.Bind = "127.0.0.1:0"
	env := p.Env("startd")
	type joined struct {
		node *membership.Node
		err  error
	}
	done := make(chan joined, 1)
	go func() {
		n, err := env.JoinPool(context.Background(), "startd", "startd@late", "startd:1")
		done <- joined{n, err}
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case j := <-done:
		t.Fatalf("JoinPool returned before the collector started: %v", j.err)
	default:
	}
	start.Collector(t, p)
	select {
	case j := <-done:
		if j.err != nil {
			t.Fatal(j.err)
		}
		defer j.node.Shutdown()
		deadline := time.Now().Add(5 * time.Second)
		for !hasCollector(j.node.Members()) {
			if time.Now().After(deadline) {
				t.Fatalf("members %+v, want the collector", j.node.Members())
			}
			time.Sleep(20 * time.Millisecond)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("JoinPool did not return once the collector started")
	}
}

func hasCollector(ms []membership.Member) bool {
	for _, m := range ms {
		if m.Meta.Kind == "collector" && m.State == membership.Alive {
			return true
		}
	}
	return false
}
