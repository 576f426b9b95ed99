package metrics

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Subsystem builds the options of one daemon's metrics, named
// kite_<subsystem>_<name>.
type Subsystem string

// Counter returns the options of a counter (its name ends in _total).
func (s Subsystem) Counter(name, help string) prometheus.CounterOpts {
	return prometheus.CounterOpts{Namespace: Namespace, Subsystem: string(s), Name: name, Help: help}
}

// Gauge returns the options of a gauge.
func (s Subsystem) Gauge(name, help string) prometheus.GaugeOpts {
	return prometheus.GaugeOpts{Namespace: Namespace, Subsystem: string(s), Name: name, Help: help}
}

// Histogram returns the options of a histogram with the given buckets
// (nil: LatencyBuckets).
func (s Subsystem) Histogram(name, help string, buckets []float64) prometheus.HistogramOpts {
	if buckets == nil {
		buckets = LatencyBuckets
	}
	return prometheus.HistogramOpts{Namespace: Namespace, Subsystem: string(s), Name: name, Help: help, Buckets: buckets}
}

// Desc returns the description of a metric a GaugeFunc family reports.
func (s Subsystem) Desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(Namespace, string(s), name), help, labels, nil)
}

// LatencyBuckets are the buckets of request and step durations, in
// seconds: 1 ms to about 2 minutes.
var LatencyBuckets = prometheus.ExponentialBuckets(0.001, 2.5, 14)

// WaitBuckets are the buckets of waits that take seconds to hours, such as
// the time from submit to running: 0.1 s to about 4 days.
var WaitBuckets = prometheus.ExponentialBuckets(0.1, 3, 14)

// SizeBuckets are the buckets of byte counts: 1 KiB to 16 GiB.
var SizeBuckets = prometheus.ExponentialBuckets(1024, 4, 13)

// Emit reports one value of a GaugeFunc family with its label values, in
// the order of the family's labels.
type Emit func(value float64, labels ...string)

// GaugeFunc is a family of gauges computed when Prometheus scrapes: the
// number of ads of each type, of slots in each state. Collect calls the
// function, which emits one value per combination of labels it has; a
// combination it does not emit is absent from that scrape.
type GaugeFunc struct {
	desc *prometheus.Desc
	fn   func(emit Emit)
}

// NewGaugeFunc returns a family of gauges described by desc, whose values
// fn emits at each scrape.
func NewGaugeFunc(desc *prometheus.Desc, fn func(emit Emit)) *GaugeFunc {
	return &GaugeFunc{desc: desc, fn: fn}
}

// Describe implements prometheus.Collector.
func (g *GaugeFunc) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

// Collect implements prometheus.Collector.
func (g *GaugeFunc) Collect(ch chan<- prometheus.Metric) {
	g.fn(func(v float64, labels ...string) {
		for i, l := range labels {
			labels[i] = strings.ToValidUTF8(l, "\uFFFD") // label values from ads are not trusted
		}
		m, err := prometheus.NewConstMetric(g.desc, prometheus.GaugeValue, v, labels...)
		if err != nil {
			m = prometheus.NewInvalidMetric(g.desc, err)
		}
		ch <- m
	})
}
