package negotiator_test

import (
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// A strategy with state (round-robin's turn) lives as long as the
// negotiator: the second cycle goes on from where the first stopped
// rather than starting the turn again.
func TestStrategyKeepsItsStateAcrossCycles(t *testing.T) {
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

func TestMemoryAccountant(t *testing.T) {
	a := negotiator.NewAccountant(time.Hour, 100)
	t0 := time.Unix(1e9, 0)
	if err := a.Update(t0, map[string]float64{"alice": 4}); err != nil {
		t.Fatal(err)
	}
	if err := a.Update(t0.Add(time.Hour), map[string]float64{"alice": 4}); err != nil {
		t.Fatal(err)
	}
	// Halfway from 0.5 to 4 in one half-life, times the factor.
	if got := a.Effective("alice"); got < 224.99 || got > 225.01 {
		t.Errorf("EUP %v after one half-life at 4 slots, want 225", got)
	}
	if _, err := a.SetFactor("alice", 10); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("closing an in-memory accountant: %v", err)
	}
}
