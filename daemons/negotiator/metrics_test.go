package negotiator_test

import (
	"testing"
	"testing/synctest"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/metrics/metricstest"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// GET /metrics serves the cycle's metrics to READ tokens only.
func TestMetricsServed(t *testing.T) {
	synctest.Test(t, testMetricsServed)
}

func testMetricsServed(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	f := startSchedd(t, p, "schedd:1", map[string]int{"alice@test": 2})
	advertise(t, p, slot("slot1@a", 1), submitterAd("alice@test", "schedd:1", 2))
	n := start.Negotiator(t, p, fastConfig)
	n.Reschedule()
	f.wait(t)
	synctest.Wait() // the cycle records its metrics a moment after it delivers
	text := metricstest.Check(t, p, n.Addr(), n.Metrics(), "kite_negotiator_cycles_total", "kite_negotiator_matches_total",
		"kite_negotiator_cycle_duration_seconds_bucket", "kite_negotiator_unmatched_jobs_total", "kite_negotiator_last_cycle_inputs")
	if v, _ := metricstest.Value(text, "kite_negotiator_matches_total"); v != "1" {
		t.Errorf("matches: %s", v)
	}
	if v, _ := metricstest.Value(text, "kite_negotiator_last_cycle_unmatched_jobs", `reason="busy"`); v != "1" {
		t.Errorf("the second job waits for a busy slot: %q", v)
	}
	if code, _ := metricstest.Scrape(t, p, n.Addr(), auth.Read); code != 200 {
		t.Errorf("a READ token: %d", code)
	}
}
