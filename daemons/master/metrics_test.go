package master_test

import (
	"strconv"
	"testing"

	"github.com/kite-sched/kite/internal/metrics/metricstest"
	"github.com/kite-sched/kite/internal/wire"
)

// The master's metrics say which daemons run and count the restarts of
// those that crash, with conventional names, behind a READ token.
func TestMetrics(t *testing.T) {
	f := startMaster(t, []string{"schedd", "startd"}, map[string]string{"schedd": "crash"}, nil)
	f.waitFor("the startd running and the schedd restarted twice", func() bool {
		return f.state("startd").State == wire.DaemonRunning && f.state("schedd").Restarts >= 2
	})
	text := metricstest.Check(t, f.p, "master:1", f.m.Metrics(), "kite_master_daemons", "kite_master_daemon_up",
		"kite_master_daemon_restarts_total", "kite_master_daemon_consecutive_restarts")
	value := func(name string, labels ...string) float64 {
		t.Helper()
		v, ok := metricstest.Value(text, name, labels...)
		if !ok {
			t.Fatalf("no sample of %s%v", name, labels)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	if up := value("kite_master_daemon_up", `daemon="startd"`); up != 1 {
		t.Errorf("the startd is up: %v", up)
	}
	if n := value("kite_master_daemon_restarts_total", `daemon="schedd"`); n < 2 {
		t.Errorf("schedd restarts: %v", n)
	}
	if _, ok := metricstest.Value(text, "kite_master_daemon_restarts_total", `daemon="startd"`); ok {
		t.Errorf("restarts counted for the startd, which never crashed")
	}
	if c := value("kite_master_daemon_consecutive_restarts", `daemon="schedd"`); c < 2 {
		t.Errorf("schedd's restarts in a row: %v", c)
	}
	total := 0.0
	for _, state := range []string{"running", "backoff", "stopping", "stopped"} {
		total += value("kite_master_daemons", `state="`+state+`"`)
	}
	if total != 2 || value("kite_master_daemons", `state="running"`) < 1 {
		t.Errorf("daemons by state: %v in all\n%s", total, text)
	}
}
