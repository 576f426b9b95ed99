package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/prometheus/client_golang/prometheus"
)

// Jobs that leave out request_memory and request_disk run on a
// partitionable slot, and every match the negotiator makes is one the
// startd accepts: both carve the slot by the same rule (internal/fit), a
// missing request taking 128 MiB and 1024 KiB. The slot has room for one
// such job at a time; a negotiator that took a missing request as nothing
// matched both jobs to it in one cycle, and the startd refused the second
// claim (409).
func TestJobsWithoutRequestsFitAPartitionableSlot(t *testing.T) {
	tests := []struct {
		name string
		edit func(*startd.Config)
	}{
		{"memory for one", func(c *startd.Config) { c.Cpus, c.Memory = 2, 200 }},
		{"disk for one", func(c *startd.Config) { c.Cpus, c.Memory, c.Disk = 2, 1024, 1500 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, sd := newPartitionablePool(t, tc.edit)
			dir := t.TempDir()
			c := pl.submit(dir, "executable = /bin/true\nrequest_memory = undefined\nrequest_disk = undefined\nqueue 2\n")
			for proc := range 2 {
				id := fmt.Sprintf("%d.%d", c, proc)
				ad := pl.waitStatus(id, attr.Completed)
				if _, ok := ad.Lookup(attr.RequestMemory); ok {
					t.Fatalf("job %s has a RequestMemory", id)
				}
				if host := str(ad, attr.LastRemoteHost); !strings.HasSuffix(host, "@a") {
					t.Errorf("job %s ran on %q, want machine a", id, host)
				}
			}
			// The second job runs on the first one's claim once it is done,
			// or on a claim of its own; the startd refuses none.
			claims := counters(t, sd.Metrics(), "kite_schedd_claims_total", "result")
			if claims["granted"] < 1 || claims["refused"] != 0 {
				t.Errorf("claims %v, want some granted and none refused", claims)
			}
		})
	}
}

// newPartitionablePool starts a collector, a negotiator, a schedd and one
// startd "a" with one partitionable slot, sized by edit.
func newPartitionablePool(t *testing.T, edit func(*startd.Config)) (*pool, *schedd.Server) {
	p := pooltest.New(t)
	p.Config.Startd.Slots, p.Config.Startd.Partitionable = 1, true
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, time.Second
	})
	pl := &pool{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write),
		admin: p.Client("schedd:1", "root", auth.Administrator), startd: map[string]*startd.Server{}}
	sd := start.Schedd(t, p, "schedd:1", nil)
	pl.startd["a"] = start.Startd(t, p, "startd-0:1", "a", edit)
	return pl, sd
}

// counters reads a counter vector of a registry by the value of one
// label.
func counters(t *testing.T, reg *prometheus.Registry, name, label string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}
