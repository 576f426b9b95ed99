package master

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/wire"
)

const subsystem = metrics.Subsystem("master")

// daemonStates are the states a master's daemon can be in.
var daemonStates = []string{wire.DaemonRunning, wire.DaemonBackoff, wire.DaemonStopping, wire.DaemonStopped}

// masterMetrics are the master's Prometheus metrics (GET /metrics): its
// daemons by state, each daemon's state, and the restarts of daemons that
// ended by themselves.
type masterMetrics struct {
	restarts *prometheus.CounterVec
}

// newMetrics makes the master's registry and metrics.
func (s *Server) newMetrics() (*prometheus.Registry, *masterMetrics) {
	m := &masterMetrics{
		restarts: prometheus.NewCounterVec(subsystem.Counter("daemon_restarts_total",
			"Daemons that ended by themselves (crashed or exited) and were scheduled to start again, by daemon."), []string{"daemon"}),
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(m.restarts,
		metrics.NewGaugeFunc(subsystem.Desc("daemons", "The master's daemons by state: running, backoff (waiting to restart), stopping, stopped.", "state"), s.emitStates),
		metrics.NewGaugeFunc(subsystem.Desc("daemon_up", "1 for each daemon that runs, 0 for one that does not.", "daemon"), s.emitUp),
		metrics.NewGaugeFunc(subsystem.Desc("daemon_consecutive_restarts", "Restarts in a row of each daemon, which set its backoff; forgotten after master.recover_after of running.", "daemon"), s.emitConsecutive),
	)
	return reg, m
}

func (s *Server) emitStates(emit metrics.Emit) {
	counts := map[string]int{}
	for _, st := range s.sup.statuses() {
		counts[st.State]++
	}
	for _, state := range daemonStates {
		emit(float64(counts[state]), state)
	}
}

func (s *Server) emitUp(emit metrics.Emit) {
	for _, st := range s.sup.statuses() {
		up := 0.0
		if st.State == wire.DaemonRunning {
			up = 1
		}
		emit(up, st.Name)
	}
}

func (s *Server) emitConsecutive(emit metrics.Emit) {
	for _, st := range s.sup.statuses() {
		emit(float64(st.Restarts), st.Name)
	}
}

// Metrics returns the master's Prometheus registry.
func (s *Server) Metrics() *prometheus.Registry { return s.reg }
