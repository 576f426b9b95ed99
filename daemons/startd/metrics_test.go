package startd

import (
	"strconv"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/metrics/metricstest"
	"github.com/kite-sched/kite/internal/wire"
)

// The startd's metrics count its slots, the jobs it runs, their start
// latency and phases and the bytes of their files, with conventional
// names, behind a READ token.
func TestMetrics(t *testing.T) {
	h := newHarness(t, nil)
	ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	job := jobAd(t, "Cmd = \"/home/alice/job.sh\"\nTransferInput = \"input.txt\"\nTransferOutput = \"result.txt\"")
	h.schedd.inputs["/home/alice/job.sh"] = "#!/bin/sh\ncat input.txt > result.txt\nsleep 0.3\n"
	h.schedd.inputs["input.txt"] = "0123456789\n"
	res, err := h.schedd.claim(ads["slot1@host1"], job, 60)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job}); err != nil {
		t.Fatal(err)
	}
	if u := h.schedd.next(); u.Event != wire.EventStarted {
		t.Fatalf("%+v", u)
	}
	// While the job runs: one dynamic slot busy, a core claimed.
	running := metricstest.Check(t, h.pool, h.sd.Addr(), h.sd.Metrics(), "kite_startd_slots", "kite_startd_cpus",
		"kite_startd_machine_memory_bytes", "kite_startd_jobs_started_total", "kite_startd_job_start_latency_seconds_bucket")
	expect(t, running, "kite_startd_slots", "1", `state="Claimed"`, `activity="Busy"`)
	expect(t, running, "kite_startd_slots", "1", `state="Unclaimed"`, `activity="Idle"`)
	expect(t, running, "kite_startd_slots", "0", `state="Owner"`)
	expect(t, running, "kite_startd_cpus", "1", `use="claimed"`)
	expect(t, running, "kite_startd_cpus", "3", `use="free"`)
	expect(t, running, "kite_startd_machine_memory_bytes", "4.294967296e+09")
	expect(t, running, "kite_startd_jobs_started_total", "1")
	expect(t, running, "kite_startd_job_start_latency_seconds_count", "1")

	if u := h.schedd.next(); u.Event != wire.EventExited {
		t.Fatalf("%+v", u)
	}
	_, done := metricstest.Scrape(t, h.pool, h.sd.Addr(), auth.Read)
	script := len(h.schedd.inputs["/home/alice/job.sh"])
	expect(t, done, "kite_startd_jobs_ended_total", "1", `event="exited"`)
	expect(t, done, "kite_startd_jobs_ended_total", "0", `event="held"`)
	expect(t, done, "kite_startd_transfer_bytes_total", strconv.Itoa(script+11), `direction="input"`)
	expect(t, done, "kite_startd_transfer_bytes_total", "11", `direction="output"`)
	expect(t, done, "kite_startd_transfer_files_total", "2", `direction="input"`)
	expect(t, done, "kite_startd_transfer_files_total", "1", `direction="output"`)
	expect(t, done, "kite_startd_transfer_failures_total", "0", `direction="input"`)
	for _, phase := range []string{"sandbox", "input", "output"} {
		expect(t, done, "kite_startd_job_phase_duration_seconds_count", "1", `phase="`+phase+`"`)
	}
}

// expect checks one sample's value in a metrics text.
func expect(t *testing.T, text, name, want string, labels ...string) {
	t.Helper()
	if got, ok := metricstest.Value(text, name, labels...); !ok || got != want {
		t.Errorf("%s%v = %q, want %s", name, labels, got, want)
	}
}
