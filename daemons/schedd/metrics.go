package schedd

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/metrics"
)

// scheddMetrics are the schedd's Prometheus metrics (GET /metrics):
// jobs by status, the queue's commits, submits, claims and job events.
type scheddMetrics struct {
	submits   prometheus.Counter
	submitted prometheus.Counter
	claims    *prometheus.CounterVec
	events    *prometheus.CounterVec
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
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(m.submits, m.submitted, m.claims, m.events)
	for name, pick := range map[string]func(queue.Counts) int{
		"idle": func(c queue.Counts) int { return c.Idle }, "running": func(c queue.Counts) int { return c.Running },
		"held": func(c queue.Counts) int { return c.Held }, "suspended": func(c queue.Counts) int { return c.Suspended },
	} {
		o := opts("jobs", "Jobs in the queue, by status.")
		o.ConstLabels = prometheus.Labels{"status": name}
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts(o), func() float64 { return float64(pick(s.counts())) }))
	}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts(opts("commits_total", "Queue transactions written (each one fsync).")),
			func() float64 { t, _ := s.queueStats(); return float64(t) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts(opts("changes_total", "Queue changes committed; many per transaction is group commit.")),
			func() float64 { _, c := s.queueStats(); return float64(c) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts(opts("claims", "Claims held at startds.")),
			func() float64 { return float64(s.jobs.claimCount()) }),
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

func (r *runs) claimCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.claims)
}
