// Package metrics gives each daemon its own Prometheus registry (with the
// Go runtime and process collectors) and serves it on the daemon's mux at
// GET /metrics, behind a READ token like every other endpoint: Prometheus
// sends it with `authorization: {credentials_file: ...}`.
package metrics

import (
	"context"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// Path is where daemons serve their metrics.
const Path = "/metrics"

// Namespace prefixes every Kite metric name.
const Namespace = "kite"

// NewRegistry returns a registry with the Go runtime and process
// collectors registered.
func NewRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// Serve adds GET /metrics for reg to the mux.
func Serve(m *wire.Mux, reg *prometheus.Registry) {
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
	m.HandleRaw("GET "+Path, auth.Read, func(w http.ResponseWriter, r *wire.Request) error {
		h.ServeHTTP(w, r.HTTP.WithContext(context.WithoutCancel(r.HTTP.Context())))
		return nil
	})
}
