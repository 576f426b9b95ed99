package negotiator

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/policy"
	"github.com/kite-sched/kite/internal/wire"
)

// cycleMetrics are the negotiator's Prometheus metrics: what each cycle
// took, per phase, and what it decided.
type cycleMetrics struct {
	cycles      prometheus.Counter
	duration    *prometheus.HistogramVec
	matches     prometheus.Counter
	unmatched   *prometheus.CounterVec
	lastUnmatch *prometheus.GaugeVec
	last        *prometheus.GaugeVec
	unreachable prometheus.Counter
}

func newCycleMetrics(reg prometheus.Registerer) *cycleMetrics {
	const sub = "negotiator"
	m := &cycleMetrics{
		cycles: prometheus.NewCounter(prometheus.CounterOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "cycles_total", Help: "Negotiation cycles run."}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "cycle_duration_seconds", Help: "Time of a negotiation cycle and of its phases (fetch, requests, match, deliver, total).",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10)}, []string{"phase"}),
		matches: prometheus.NewCounter(prometheus.CounterOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "matches_total", Help: "Jobs matched to slots."}),
		unmatched: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "unmatched_jobs_total", Help: "Idle jobs a cycle left unmatched, summed over cycles, by reason."}, []string{"reason"}),
		lastUnmatch: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "last_cycle_unmatched_jobs", Help: "Idle jobs the last cycle left unmatched, by reason."}, []string{"reason"}),
		last: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "last_cycle_inputs", Help: "What the last cycle saw: slots, slot classes, submitters, autoclusters, idle jobs, evaluations."}, []string{"what"}),
		unreachable: prometheus.NewCounter(prometheus.CounterOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "unreachable_schedds_total", Help: "Schedds that did not answer a cycle's request."}),
	}
	reg.MustRegister(m.cycles, m.duration, m.matches, m.unmatched, m.lastUnmatch, m.last, m.unreachable)
	for _, r := range policy.Reasons() {
		m.unmatched.WithLabelValues(r.String())
		m.lastUnmatch.WithLabelValues(r.String())
	}
	return m
}

// record adds a cycle's report.
func (m *cycleMetrics) record(rep *wire.CycleReport) {
	m.cycles.Inc()
	for phase, v := range map[string]float64{"fetch": rep.Fetch, "requests": rep.Requests, "match": rep.Match,
		"deliver": rep.Deliver, "total": rep.Duration} {
		m.duration.WithLabelValues(phase).Observe(v)
	}
	m.matches.Add(float64(rep.Matches))
	for _, r := range policy.Reasons() {
		n := float64(rep.Rejections[r.String()])
		m.unmatched.WithLabelValues(r.String()).Add(n)
		m.lastUnmatch.WithLabelValues(r.String()).Set(n)
	}
	for what, v := range map[string]int{"slots": rep.Slots, "classes": rep.Classes, "submitters": rep.Submitters,
		"autoclusters": rep.Autoclusters, "idle_jobs": rep.IdleJobs, "evaluations": rep.Evaluations} {
		m.last.WithLabelValues(what).Set(float64(v))
	}
	m.unreachable.Add(float64(len(rep.Unreachable)))
}
