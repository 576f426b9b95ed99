package collector

import (
	"context"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/metrics/metricstest"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// The collector's metrics count what it was sent and asked, by type, and
// follow Prometheus's naming conventions.
func TestMetrics(t *testing.T) {
	p := pooltest.New(t)
	s := startCollector(t, p, testConfig(p))
	ctx := context.Background()
	startd := p.Client(s.Addr(), "startd@h1", auth.Daemon)
	update := func(body any) error { return startd.Call(ctx, "POST", wire.PathAds, body, nil) }
	if err := update(ads(t,
		`[ MyType = "Machine"; Name = "slot1@h1"; DaemonStartTime = 5; UpdateSequenceNumber = 2 ]`,
		`[ MyType = "Machine"; Name = "slot2@h1" ]`,
		`[ MyType = "Scheduler"; Name = "schedd@h1" ]`,
	)); err != nil {
		t.Fatal(err)
	}
	// An older update of slot1 is stale; a malformed batch is refused.
	if err := update(ads(t, `[ MyType = "Machine"; Name = "slot1@h1"; DaemonStartTime = 5; UpdateSequenceNumber = 1 ]`)); err != nil {
		t.Fatal(err)
	}
	if err := update([]map[string]string{{"MyType": "Machine"}}); !wire.IsCode(err, wire.CodeBadRequest) {
		t.Fatalf("a malformed ad: %v", err)
	}
	reader := p.Client(s.Addr(), "alice", auth.Read)
	query(t, reader, wire.Query{Type: "machine"})
	query(t, reader, wire.Query{Type: "Machine", Constraint: "true"})
	query(t, reader, wire.Query{})
	query(t, reader, wire.Query{Type: "Gadget"})

	text := metricstest.Check(t, p, s.Addr(), s.Metrics(), "kite_collector_ads", "kite_collector_ad_updates_total",
		"kite_collector_update_requests_refused_total", "kite_collector_queries_total", "kite_collector_query_duration_seconds_bucket",
		"kite_collector_ads_expired_total", "go_goroutines", "process_cpu_seconds_total")
	for _, c := range []struct {
		name   string
		labels []string
		want   string
	}{
		{"kite_collector_ads", []string{`type="Machine"`, `absent="false"`}, "2"},
		{"kite_collector_ads", []string{`type="Scheduler"`}, "1"},
		{"kite_collector_ad_updates_total", []string{`result="stored"`}, "3"},
		{"kite_collector_ad_updates_total", []string{`result="stale"`}, "1"},
		{"kite_collector_update_requests_refused_total", nil, "1"},
		{"kite_collector_queries_total", []string{`type="Machine"`}, "2"},
		{"kite_collector_queries_total", []string{`type="any"`}, "1"},
		{"kite_collector_queries_total", []string{`type="other"`}, "1"},
		{"kite_collector_query_duration_seconds_count", []string{`type="Machine"`}, "2"},
	} {
		if got, ok := metricstest.Value(text, c.name, c.labels...); !ok || got != c.want {
			t.Errorf("%s%v = %q, want %s", c.name, c.labels, got, c.want)
		}
	}
}

// A scrape of a collector holding 100000 slot ads: the ads by type are
// counted when Prometheus asks.
func BenchmarkGatherMetrics100kAds(b *testing.B) {
	p := pooltest.New(b)
	s, err := New(p.Env("collector"), testConfig(p))
	if err != nil {
		b.Fatal(err)
	}
	var batch []*classad.Ad
	for i := range 100000 {
		ad, err := classad.Parse(machineAd(i))
		if err != nil {
			b.Fatal(err)
		}
		batch = append(batch, ad)
	}
	if _, _, err := s.store.Update(batch, nil, time.Now()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Metrics().Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
