package schedd

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/metrics"
)

// extraMetrics are the schedd's metrics of issue 11 besides those of
// metrics.go: how long jobs wait from submit to their first start, and
// the bytes of job files the schedd serves and receives.
type extraMetrics struct {
	firstStart prometheus.Histogram
	bytes      *prometheus.CounterVec
	files      *prometheus.CounterVec
}

// newExtraMetrics registers the extra metrics on the schedd's registry.
func newExtraMetrics(reg prometheus.Registerer) *extraMetrics {
	const sub = metrics.Subsystem("schedd")
	m := &extraMetrics{
		firstStart: prometheus.NewHistogram(sub.Histogram("job_first_start_latency_seconds",
			"Time from a job's submit (QDate) to its first start (the execute event).", metrics.WaitBuckets)),
		bytes: prometheus.NewCounterVec(sub.Counter("transfer_bytes_total",
			"Bytes of job files moved, by direction: input (served to startds) and output (received from them)."), []string{"direction"}),
		files: prometheus.NewCounterVec(sub.Counter("transfer_files_total",
			"Job files moved whole, by direction."), []string{"direction"}),
	}
	for _, d := range []string{"input", "output"} {
		m.bytes.WithLabelValues(d)
		m.files.WithLabelValues(d)
	}
	reg.MustRegister(m.firstStart, m.bytes, m.files)
	return m
}

// firstStartLatency returns how long a job starting at at waited since
// its submit, if this is its first start.
func firstStartLatency(v *queue.View, at time.Time) (time.Duration, bool) {
	if intAttr(v, attr.NumJobStarts, 0) > 0 {
		return 0, false
	}
	q := intAttr(v, attr.QDate, 0)
	if q <= 0 {
		return 0, false
	}
	return max(at.Sub(time.Unix(q, 0)), 0), true
}

// observeStart records a first start's latency.
func (m *extraMetrics) observeStart(d time.Duration) { m.firstStart.Observe(d.Seconds()) }

// transferred records a file moved whole in a direction.
func (m *extraMetrics) transferred(direction string, n int64, err error) {
	m.bytes.WithLabelValues(direction).Add(float64(n))
	if err == nil {
		m.files.WithLabelValues(direction).Inc()
	}
}

// Metrics returns the schedd's Prometheus registry.
func (s *Server) Metrics() *prometheus.Registry { return s.reg }
