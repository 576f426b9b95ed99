package collector

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// PathTargets is GET: the pool's daemons as Prometheus HTTP service
// discovery targets (READ).
const PathTargets = "/v1/prometheus/targets"

// TargetGroup is one group of Prometheus's HTTP service discovery: the
// daemons behind addresses, with labels.
type TargetGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

// daemonKinds names the daemon kind behind each ad type that carries a
// daemon's address.
var daemonKinds = map[string]string{
	attr.TypeCollector: "collector", attr.TypeNegotiator: "negotiator", attr.TypeScheduler: "schedd",
	attr.TypeMaster: "master", attr.TypeSlot: "startd",
}

// handleTargets lists every daemon the collector holds an ad of, once per
// address (a startd's slots share one), so that Prometheus finds daemons
// that listen on ports picked at start.
func (s *Server) handleTargets(ctx context.Context, r *wire.Request) (any, error) {
	seen := map[string]bool{}
	out := []TargetGroup{}
	for typ, kind := range daemonKinds {
		for _, ad := range s.ads(typ, false) {
			addr := classad.EvalStringOr(ad, attr.MyAddress, "")
			if addr == "" || seen[addr] {
				continue
			}
			seen[addr] = true
			labels := map[string]string{"kite_daemon": kind, "kite_pool": s.poolName()}
			name := classad.EvalStringOr(ad, attr.Name, "")
			if m := cmp.Or(classad.EvalStringOr(ad, attr.Machine, ""), hostOf(name)); m != "" {
				labels["kite_machine"] = m
			}
			out = append(out, TargetGroup{Targets: []string{addr}, Labels: labels})
		}
	}
	slices.SortFunc(out, func(a, b TargetGroup) int {
		return cmp.Or(strings.Compare(a.Labels["kite_daemon"], b.Labels["kite_daemon"]), strings.Compare(a.Targets[0], b.Targets[0]))
	})
	return out, nil
}

// hostOf returns what follows the @ of a daemon's name ("schedd@host").
func hostOf(name string) string {
	if _, host, ok := strings.Cut(name, "@"); ok {
		return host
	}
	return ""
}

// targetRoutes adds the service discovery endpoint.
func (s *Server) targetRoutes(m *wire.Mux) {
	m.Handle("GET "+PathTargets, auth.Read, s.handleTargets)
}
