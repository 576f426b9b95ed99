package negotiator_test

import (
	"testing"
	"testing/synctest"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// A strategy with state (round-robin's turn) lives as long as the
// negotiator: the second cycle goes on from where the first stopped
// rather than starting the turn again.
func TestStrategyKeepsItsStateAcrossCycles(t *testing.T) {
	synctest.Test(t, testStrategyKeepsItsStateAcrossCycles)
}

func testStrategyKeepsItsStateAcrossCycles(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	f := startSchedd(t, p, "schedd:1", map[string]int{"alice@test": 1})
	advertise(t, p, slot("slot1@a", 1), slot("slot1@b", 1), slot("slot1@c", 1), submitterAd("alice@test", "schedd:1", 1))
	n := start.Negotiator(t, p, func(c *negotiator.Config) {
		fastConfig(c)
		c.Strategy = "round-robin"
	})
	n.Reschedule()
	f.wait(t)
	// slot1@a re-advertises, so it may be matched again; the turn is at b.
	advertise(t, p, slot("slot1@a", 2))
	f.mu.Lock()
	f.idle["alice@test"] = 1
	f.mu.Unlock()
	n.Reschedule()
	f.wait(t)
	waitCycle(t, n, 2)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.matches) != 2 {
		t.Fatalf("%d matches, want 2", len(f.matches))
	}
	name := func(i int) string {
		v, _ := f.matches[i].Slot.Lookup("Name")
		return classad.String(v)
	}
	if name(0) != `"slot1@a"` || name(1) != `"slot1@b"` {
		t.Errorf("round-robin matched %s then %s, want slot1@a then slot1@b", name(0), name(1))
	}
}
