package negotiator_test

import (
	"slices"
	"testing"
	"testing/synctest"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// Concurrency limits apply on reconfig, from the next cycle (issue 15,
// finding 7): a job that asks for more of a limit than its maximum
// (sw_a:2 with sw_a = 1) never matches, and one that fits does once the
// limit is raised. HTCondor's manual, "Concurrency Limits".
func TestReconfigureAppliesLimits(t *testing.T) {
	synctest.Test(t, testReconfigureAppliesLimits)
}

func testReconfigureAppliesLimits(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	f := startSchedd(t, p, "schedd:1", map[string]int{"alice@test": 2})
	f.mu.Lock()
	f.limits = "sw_a:2"
	f.mu.Unlock()
	advertise(t, p, slot("slot1@a", 1), slot("slot2@a", 1), submitterAd("alice@test", "schedd:1", 2))
	n := start.Negotiator(t, p, fastConfig)
	var svc daemon.Service = n
	r, ok := svc.(daemon.Reconfigurer)
	if !ok {
		t.Fatal("the negotiator does not take a configuration on reconfig")
	}
	cfg := *p.Config
	cfg.Negotiator.Limits = map[string]float64{"SW_A": 1}
	if err := r.Reconfigure(&cfg); err != nil {
		t.Fatal(err)
	}
	n.Reschedule()
	if rep := waitCycle(t, n, 1); rep.Matches != 0 || rep.Rejections["limit"] == 0 {
		t.Errorf("cycle with sw_a = 1: %d matches, rejections %v; want none, refused by the limit", rep.Matches, rep.Rejections)
	}
	cfg.Negotiator.Limits = map[string]float64{"sw_a": 3}
	if err := r.Reconfigure(&cfg); err != nil {
		t.Fatal(err)
	}
	f.wait(t)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.matches) != 1 {
		t.Errorf("%d matches with sw_a = 3, want 1 (a second sw_a:2 would need 4)", len(f.matches))
	}
}

// LimitShortfalls reads the limits from the negotiator's ad and names
// each one a job asks for more of than its maximum.
func TestLimitShortfalls(t *testing.T) {
	neg := mustAd(t, `[ KiteConcurrencyLimits = "sw_a:1, sw_b:4"; KiteDefaultConcurrencyLimit = 2 ]`)
	for _, c := range []struct {
		job  string
		want []string
	}{
		{`[ ConcurrencyLimits = "sw_a:2" ]`, []string{"concurrency limit sw_a: asks 2, the pool has 1"}},
		{`[ ConcurrencyLimits = "SW_A, sw_b:4" ]`, nil},
		{`[ ConcurrencyLimits = "other:3, sw_b:4.5" ]`, []string{"concurrency limit other: asks 3, the pool has 2", "concurrency limit sw_b: asks 4.5, the pool has 4"}},
		{`[ Cmd = "/bin/true" ]`, nil},
	} {
		if got := negotiator.LimitShortfalls(mustAd(t, c.job), neg); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.job, got, c.want)
		}
	}
	if got := negotiator.LimitShortfalls(mustAd(t, `[ ConcurrencyLimits = "sw_a:9" ]`), nil); got != nil {
		t.Errorf("with no negotiator ad: %q", got)
	}
}

func mustAd(t *testing.T, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}
