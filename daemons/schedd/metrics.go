package schedd

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/metrics"
)

// scheddMetrics are the schedd's Prometheus metrics (GET /metrics):
// jobs by status, the queue's commits, submits, claims and job events,
// how long jobs wait from submit to their first start, and the bytes of
// job files the schedd serves and receives.
type scheddMetrics struct {
	submits    prometheus.Counter
	submitted  prometheus.Counter
	claims     *prometheus.CounterVec
	events     *prometheus.CounterVec
	firstStart prometheus.Histogram
	bytes      *prometheus.CounterVec
	files      *prometheus.CounterVec
}

func (s *Server) newMetrics() (*prometheus.Registry, *scheddMetrics) {
	const sub = "schedd"
	opts := func(name, help string) prometheus.Opts {
		return prometheus.Opts{Namespace: metrics.Namespace, Subsystem: sub, Name: name, Help: help}
	}
	m := &scheddMetrics{
		submits:   prometheus.NewCounter(prometheus.CounterOpts(opts("submits_total", "Clusters submitted."))),
		submitted: prometheus.NewCounter(prometheus.CounterOpts(opts("jobs_submitted_total", "Jobs submitted."))),
		claims:    prometheus.NewCounterVec(prometheus.CounterOpts(opts("claims_total", "Claims asked of startds, by result.")), []string{"result"}),
		events:    prometheus.NewCounterVec(prometheus.CounterOpts(opts("job_events_total", "Job events startds reported, by event.")), []string{"event"}),
		firstStart: prometheus.NewHistogram(metrics.Subsystem(sub).Histogram("job_first_start_latency_seconds",
			"Time from a job's submit (QDate) to its first start (the execute event).", metrics.WaitBuckets)),
		bytes: prometheus.NewCounterVec(metrics.Subsystem(sub).Counter("transfer_bytes_total",
			"Bytes of job files moved, by direction: input (served to startds) and output (received from them)."), []string{"direction"}),
		files: prometheus.NewCounterVec(metrics.Subsystem(sub).Counter("transfer_files_total",
			"Job files moved whole, by direction."), []string{"direction"}),
	}
	for _, d := range []string{"input", "output"} {
		m.bytes.WithLabelValues(d)
		m.files.WithLabelValues(d)
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(m.submits, m.submitted, m.claims, m.events, m.firstStart, m.bytes, m.files)
	for name, pick := range map[string]func(queue.Counts) int{
		"idle": func(c queue.Counts) int { return c.Idle }, "running": func(c queue.Counts) int { return c.Running },
		"held": func(c queue.Counts) int { return c.Held }, "suspended": func(c queue.Counts) int { return c.Suspended },
	} {
		o := opts("jobs", "Jobs in the queue, by status.")
		o.ConstLabels = prometheus.Labels{"status": name}
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts(o), func() float64 { return float64(pick(s.counts())) }))
	}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts(opts("commits_total", "Queue commits written to the queue's log (each one sync).")),
			func() float64 { t, _ := s.queueStats(); return float64(t) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts(opts("changes_total", "Queue changes committed; many per commit is group commit.")),
			func() float64 { _, c := s.queueStats(); return float64(c) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts(opts("checkpoints_total", "Checkpoints of the queue's log into its store.")),
			func() float64 { d, _ := s.checkpoints(); return float64(d) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts(opts("checkpoint_failures_total", "Checkpoints of the queue's log that failed (tried again each second).")),
			func() float64 { _, f := s.checkpoints(); return float64(f) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts(opts("claims", "Claims held at startds.")),
			func() float64 { return float64(s.claims.Count()) }),
	)
	return reg, m
}

func (s *Server) counts() queue.Counts {
	var all queue.Counts
	if s.q != nil {
		s.q.Read(func(r *queue.Reader) { _, all = r.Counts() })
	}
	return all
}

func (s *Server) queueStats() (int64, int64) {
	if s.q == nil {
		return 0, 0
	}
	return s.q.Stats()
}

func (s *Server) checkpoints() (int64, int64) {
	if s.q == nil {
		return 0, 0
	}
	return s.q.Checkpoints()
}

// firstStartLatency returns how long a job starting at at waited since
// its submit, if this is its first start.
func firstStartLatency(v *queue.View, at time.Time) (time.Duration, bool) {
	if v.Int(attr.NumJobStarts, 0) > 0 {
		return 0, false
	}
	q := v.Int(attr.QDate, 0)
	if q <= 0 {
		return 0, false
	}
	return max(at.Sub(time.Unix(q, 0)), 0), true
}

// observeStart records a first start's latency.
func (m *scheddMetrics) observeStart(d time.Duration) { m.firstStart.Observe(d.Seconds()) }

// transferred records a file moved whole in a direction.
func (m *scheddMetrics) transferred(direction string, n int64, err error) {
	m.bytes.WithLabelValues(direction).Add(float64(n))
	if err == nil {
		m.files.WithLabelValues(direction).Inc()
	}
}

// Metrics returns the schedd's Prometheus registry.
func (s *Server) Metrics() *prometheus.Registry { return s.reg }
