package schedd_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/metrics/metricstest"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// The schedd's metrics, in a pool that runs a job with input and output
// files: jobs by status at scrape time, the wait from submit to the first
// start, and the bytes of the files it served and received.
func TestMetricsOfARunningPool(t *testing.T) {
	p := pooltest.New(t)
	p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable, p.Config.Startd.Memory = 1, 1, false, 512
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, time.Second
	})
	sd := start.Schedd(t, p, "schedd:1", nil)
	start.Startd(t, p, "startd:1", "exec", nil)

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("0123456789"), 0o644)
	text := "executable = /bin/sh\ntransfer_executable = false\narguments = \"-c 'cat in.txt in.txt > out.txt'\"\n" +
		"transfer_input_files = in.txt\ntransfer_output_files = out.txt\nqueue\n"
	d, _, err := submit.Parse(filepath.Join(dir, "job.sub"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	alice := p.Client("schedd:1", "alice", auth.Write)
	ctx := context.Background()
	var nc wire.NewCluster
	if err := alice.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		t.Fatal(err)
	}
	env := submit.LocalEnv(dir)
	env.Cluster, env.Owner = int(nc.Cluster), nc.Owner
	c, _, err := d.Expand(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.CallRaw(ctx, "POST", wire.PathSubmit+"?cluster="+strconv.FormatInt(nc.Cluster, 10), c.AppendJSON(nil), nil); err != nil {
		t.Fatal(err)
	}
	// The job's end (which observes its start latency) comes after its
	// output: wait for both.
	deadline := time.Now().Add(15 * time.Second)
	for {
		var tot wire.QueueTotals
		if err := alice.Call(ctx, "GET", wire.PathTotals, nil, &tot); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err == nil && len(b) == 20 && tot.All.Idle+tot.All.Running == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job did not send its output and end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The latency is observed once the end's commit returned, just after
	// the job left the queue.
	for !observed(t, sd.Metrics(), "kite_schedd_job_first_start_latency_seconds") {
		if time.Now().After(deadline) {
			t.Fatal("no first start latency observed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	text = metricstest.Check(t, p, sd.Addr(), sd.Metrics(), "kite_schedd_jobs", "kite_schedd_job_first_start_latency_seconds_bucket",
		"kite_schedd_transfer_bytes_total", "kite_schedd_transfer_files_total")
	for _, c := range []struct {
		name, label, want string
	}{
		{"kite_schedd_job_first_start_latency_seconds_count", "", "1"},
		{"kite_schedd_transfer_bytes_total", `direction="input"`, "10"},
		{"kite_schedd_transfer_bytes_total", `direction="output"`, "20"},
		{"kite_schedd_transfer_files_total", `direction="input"`, "1"},
		{"kite_schedd_transfer_files_total", `direction="output"`, "1"},
		{"kite_schedd_jobs", `status="idle"`, "0"},
	} {
		if got, _ := metricstest.Value(text, c.name, c.label); got != c.want {
			t.Errorf("%s{%s} = %q, want %s", c.name, c.label, got, c.want)
		}
	}
}

// observed reports whether a histogram of the registry has a sample.
func observed(t *testing.T, reg prometheus.Gatherer, name string) bool {
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.Metric {
				if m.GetHistogram().GetSampleCount() > 0 {
					return true
				}
			}
		}
	}
	return false
}
