package collector

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/metrics"
)

// collectorMetrics are the collector's Prometheus metrics (GET /metrics):
// ads by type, the updates and queries it gets, how long queries take,
// the ads that expire and the pool's members by state.
type collectorMetrics struct {
	updates   *prometheus.CounterVec
	refused   prometheus.Counter
	queries   *prometheus.CounterVec
	queryTime *prometheus.HistogramVec
	expired   prometheus.Counter
}

const subsystem = metrics.Subsystem("collector")

// knownTypes are the ad types metrics name; queries of others count as
// "other", so that a client cannot make labels without end.
var knownTypes = []string{attr.TypeSlot, attr.TypeScheduler, attr.TypeSubmitter, attr.TypeNegotiator,
	attr.TypeMaster, attr.TypeCollector}

// typeLabel is the label of an ad type in metrics: a known type as it is
// spelled, "any" for all types, "other" for the rest.
func typeLabel(typ string) string {
	if typ == "" {
		return "any"
	}
	for _, k := range knownTypes {
		if strings.EqualFold(k, typ) {
			return k
		}
	}
	return "other"
}

// newMetrics makes the collector's registry and metrics.
func (s *Server) newMetrics() (*prometheus.Registry, *collectorMetrics) {
	m := &collectorMetrics{
		updates: prometheus.NewCounterVec(subsystem.Counter("ad_updates_total",
			"Ads received in updates, by result: stored, or stale (older than the stored ad) and ignored."), []string{"result"}),
		refused: prometheus.NewCounter(subsystem.Counter("update_requests_refused_total",
			"Update requests refused whole for a malformed ad.")),
		queries: prometheus.NewCounterVec(subsystem.Counter("queries_total",
			"Queries answered, by the ad type asked for (any: all types)."), []string{"type"}),
		queryTime: prometheus.NewHistogramVec(subsystem.Histogram("query_duration_seconds",
			"Time to answer a query, streaming included, by the ad type asked for.", nil), []string{"type"}),
		expired: prometheus.NewCounter(subsystem.Counter("ads_expired_total",
			"Ads removed because they outlived their lifetime or their member's grace.")),
	}
	for _, r := range []string{"stored", "stale"} {
		m.updates.WithLabelValues(r)
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(m.updates, m.refused, m.queries, m.queryTime, m.expired,
		metrics.NewGaugeFunc(subsystem.Desc("ads", "Ads held, by type and whether their daemon is absent (gossip reports it gone).", "type", "absent"), s.emitAds),
		metrics.NewGaugeFunc(subsystem.Desc("members", "Members of the pool's gossip, by daemon kind and state (alive, dead, left).", "kind", "state"), s.emitMembers),
	)
	return reg, m
}

// emitAds reports the ads held by type.
func (s *Server) emitAds(emit metrics.Emit) {
	type key struct {
		typ    string
		absent bool
	}
	counts := map[key]int{}
	s.store.mu.RLock()
	s.store.each("", func(e *entry) bool {
		counts[key{e.typ, !e.absent.IsZero()}]++
		return true
	})
	s.store.mu.RUnlock()
	for k, n := range counts {
		absent := "false"
		if k.absent {
			absent = "true"
		}
		emit(float64(n), k.typ, absent)
	}
}

// emitMembers reports the gossip's members by kind and state.
func (s *Server) emitMembers(emit metrics.Emit) {
	if s.gossip == nil {
		return
	}
	type key struct{ kind, state string }
	counts := map[key]int{}
	for _, m := range s.gossip.Members() {
		counts[key{m.Meta.Kind, string(m.State)}]++
	}
	for k, n := range counts {
		emit(float64(n), k.kind, k.state)
	}
}

// observeQuery records a query of an ad type that began at start.
func (m *collectorMetrics) observeQuery(typ string, start time.Time) {
	l := typeLabel(typ)
	m.queries.WithLabelValues(l).Inc()
	m.queryTime.WithLabelValues(l).Observe(time.Since(start).Seconds())
}

// observeUpdate records an update request's outcome.
func (m *collectorMetrics) observeUpdate(stored, stale int, err error) {
	if err != nil {
		m.refused.Inc()
		return
	}
	m.updates.WithLabelValues("stored").Add(float64(stored))
	m.updates.WithLabelValues("stale").Add(float64(stale))
}
