package startd

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/reliability"
	"github.com/kite-sched/kite/internal/wire"
)

// monitoring reads a slot ad's node monitoring: R, jobs completed and
// aborted.
func monitoring(ad *classad.Ad) string {
	return fmt.Sprintf("R=%d done=%d aborted=%d", num(ad, attr.KiteReliability), num(ad, attr.KiteJobsCompleted), num(ad, attr.KiteJobsAborted))
}

// waitMonitoring waits until the partitionable slot's ad shows want.
func (h *harness) waitMonitoring(want string) *classad.Ad {
	h.t.Helper()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ad := h.ads()["slot1@host1"]; ad != nil {
			if got = monitoring(ad); got == want {
				return ad
			}
		}
	}
	h.t.Fatalf("the slot ad shows %s, want %s", got, want)
	return nil
}

// runToExit runs jobs one after another on one claim, each exiting by
// itself.
func (h *harness) runToExit(n int) {
	h.t.Helper()
	h.schedd.inputs["/quick.sh"] = "#!/bin/sh\nexit 0\n"
	ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	res, err := h.schedd.claim(ads["slot1@host1"], jobAd(h.t, `Cmd = "/quick.sh"`), 60)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := range n {
		job := jobAd(h.t, fmt.Sprintf("ProcId = %d\nCmd = \"/quick.sh\"", i))
		if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job}); err != nil {
			h.t.Fatal(err)
		}
		if u := h.schedd.lastEvent(); u.Event != wire.EventExited {
			h.t.Fatalf("job %d: %+v", i, u)
		}
		h.waitAds("the claim idle", func(a map[string]*classad.Ad) bool { return status(a, "slot1_1@host1") == "Claimed/Idle" })
	}
	h.schedd.call(wire.PathRelease, wire.ClaimRef{ClaimID: res.ClaimID})
}

// loseByLease runs a long job whose claim the schedd stops renewing: the
// lease runs out and the startd evicts it, which counts as a loss.
func (h *harness) loseByLease() {
	h.t.Helper()
	h.schedd.inputs["/long.sh"] = "#!/bin/sh\nsleep 300\n"
	h.claimAndRun(jobAd(h.t, `Cmd = "/long.sh"`), 30)
	h.clock.advance(31 * time.Second)
	h.sd.tick()
	if u := h.schedd.next(); u.Event != wire.EventEvicted {
		h.t.Fatalf("%+v", u)
	}
	h.waitAds("the dynamic slot gone", func(a map[string]*classad.Ad) bool { _, there := a["slot1_1@host1"]; return !there })
}

// A machine's reliability index starts at its benchmark class, rises with
// the jobs it completes and falls with those it loses, as the collector's
// ads show; jobs its schedd vacates do not count. The record survives a
// restart, which also counts the periods up and the jobs a crash left.
func TestReliabilityFollowsOutcomes(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.BenchmarkMs = 12000 }) // class 0
	ad := h.waitMonitoring("R=0 done=0 aborted=0")
	if num(ad, attr.KiteBenchmark) != 12000 || num(ad, attr.KiteBenchmarkIndex) != 0 {
		t.Errorf("benchmark: %s", ad)
	}
	if _, known := ad.Lookup(attr.KiteAvgSucceededTime); known {
		t.Errorf("avS before any job: %s", ad)
	}

	h.runToExit(4)
	ad = h.waitMonitoring("R=2 done=4 aborted=0")
	if v, _ := classad.EvalAttr(ad, attr.KiteAvgSucceededTime, nil); !v.IsNumber() {
		t.Errorf("avS after 4 jobs: %v", v)
	}

	for range 3 {
		h.loseByLease()
	}
	ad = h.waitMonitoring("R=1 done=4 aborted=3") // (4 - 3) / 2 = 0.5, rounded away from zero
	if v, _ := classad.EvalAttr(ad, attr.KiteAvgFailedTime, nil); !v.IsNumber() {
		t.Errorf("avF after 3 losses: %v", v)
	}

	// The schedd vacating a job for its own reasons is not the machine's
	// doing.
	h.schedd.inputs["/long.sh"] = "#!/bin/sh\nsleep 300\n"
	claim := h.claimAndRun(jobAd(t, `Cmd = "/long.sh"`), 60)
	if err := h.schedd.call(wire.PathVacate, wire.Vacate{ClaimID: claim, Reason: "the job was removed", Fast: true}); err != nil {
		t.Fatal(err)
	}
	if u := h.schedd.next(); u.Event != wire.EventEvicted {
		t.Fatalf("%+v", u)
	}
	h.schedd.call(wire.PathRelease, wire.ClaimRef{ClaimID: claim})

	h.loseByLease()
	h.loseByLease()
	h.waitMonitoring("R=-1 done=4 aborted=5")

	// A graceful stop ends a period up; the restarted startd reads the
	// record back and counts the sandbox a crashed job left as lost.
	h.stop()
	var rec monitorRecord
	data, err := os.ReadFile(filepath.Join(h.cfg.StateDir, monitorFile))
	if err != nil || decodeRecord(data, &rec) != nil || rec.UpSince != 0 || len(rec.Node.Uptimes) != 1 {
		t.Fatalf("the record after a stop: %s %v", data, err)
	}
	os.MkdirAll(filepath.Join(h.cfg.ExecuteDir, "dir_slot1_1_host1_12.0_abcdef"), 0o700)
	// A parked sandbox, and one an earlier version parked, held no job.
	parked := []string{filepath.Join(h.cfg.ExecuteDir, "dir_slot1_2_host1_abcdef"), filepath.Join(h.cfg.ExecuteDir, sandbox.SparePrefix+"abcdef")}
	for _, p := range parked {
		os.MkdirAll(p, 0o700)
	}
	os.Chmod(parked[0], sandbox.ParkedMode)
	h2 := h.restart()
	ad = h2.waitMonitoring("R=-1 done=4 aborted=6") // (4 - 6) / 2
	for _, p := range parked {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
	if v, _ := classad.EvalAttr(ad, attr.KiteAvgUptime, nil); !v.IsNumber() {
		t.Errorf("avU after a period up: %v", v)
	}
}

// restart starts a new startd with the harness's configuration, once the
// old one stopped.
func (h *harness) restart() *harness {
	h.t.Helper()
	sd, err := New(h.pool.Env("startd"), h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h2 := *h
	h2.sd = sd
	h2.stop = runDaemon(h.t, "startd", sd.Run, sd.Ready())
	h2.schedd.startd = h.pool.Client(sd.Addr(), "schedd@test", auth.Daemon)
	return &h2
}

// A killed startd writes nothing; its restart ends the period up at the
// last sign of life the record holds.
func TestKilledStartdsPeriodEndsAtLastSignOfLife(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.BenchmarkMs = 3000 })
	h.waitMonitoring("R=4 done=0 aborted=0")
	h.sd.Kill()
	h.stop()
	var rec monitorRecord
	data, _ := os.ReadFile(filepath.Join(h.cfg.StateDir, monitorFile))
	if err := decodeRecord(data, &rec); err != nil || rec.UpSince == 0 || rec.LastSeen < rec.UpSince {
		t.Fatalf("a killed startd's record: %s %v", data, err)
	}
	m, err := openMonitor(h.cfg.StateDir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	m.recover(nil)
	if got := m.rec.Node.Uptimes; len(got) != 1 || got[0] != float64(rec.LastSeen-rec.UpSince) {
		t.Errorf("uptimes %v, want one of %d s", got, rec.LastSeen-rec.UpSince)
	}
}

// A record that cannot be read keeps the startd from starting, with the
// file and the problem named.
func TestMonitorRecordRefused(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not json", "{", "unexpected EOF"},
		{"unknown field", `{"version":1,"node":{},"extra":1}`, `unknown field "extra"`},
		{"newer", `{"version":2,"node":{}}`, "layout 2 is newer"},
		{"no version", `{"node":{}}`, "no layout version"},
		{"bad outcome", `{"version":1,"node":{"outcomes":[2]}}`, "bad outcome 2"},
		{"negative time", `{"version":1,"node":{"failed":[-1]}}`, "bad time -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, monitorFile)
			os.WriteFile(path, []byte(tc.data), 0o644)
			_, err := openMonitor(dir, slog.New(slog.DiscardHandler))
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s and %q", err, path, tc.want)
			}
		})
	}
}

// A restart after a crash ends the open period at the last sign of life
// and counts each sandbox left as a job lost after working until then.
func TestMonitorRecover(t *testing.T) {
	m := &monitor{rec: monitorRecord{Version: 1, UpSince: 1000, LastSeen: 1600}}
	m.recover([]time.Time{time.Unix(1300, 0), time.Unix(2000, 0)})
	n := m.rec.Node
	if fmt.Sprint(n.Uptimes, n.Failed, n.Lost, m.rec.UpSince) != "[600] [300 0] 2 0" {
		t.Errorf("uptimes %v failed %v lost %d open %d", n.Uptimes, n.Failed, n.Lost, m.rec.UpSince)
	}
	// A graceful stop leaves no open period: nothing to add.
	m = &monitor{rec: monitorRecord{Version: 1, LastSeen: 1600}}
	m.recover(nil)
	if len(m.rec.Node.Uptimes) != 0 {
		t.Errorf("uptimes %v after a graceful stop", m.rec.Node.Uptimes)
	}
}

// The benchmark's classes: the reference speed is class 0, twice as fast
// is above 2, twice as slow -4.
func TestBenchmarkClasses(t *testing.T) {
	for _, tc := range []struct {
		kflops, mips int64
		ms           float64
		class        int
	}{
		{refKFlops, refMips, 10000, 0},
		{3 * refKFlops, 3 * refMips, 10000.0 / 3, 4},
		{refKFlops * 3 / 2, refMips * 3 / 2, 10000.0 / 1.5, 2},
		{refKFlops / 2, refMips / 2, 20000, -4},
		{refKFlops * 2 / 3, refMips * 2 / 3, 15000.1, -2},
		{0, refMips, 0, 0},
	} {
		ms := benchmarkMs(tc.kflops, tc.mips)
		if diff := ms - tc.ms; diff > 1e-3*tc.ms || diff < -1e-3*tc.ms || reliability.BenchmarkIndex(ms) != tc.class {
			t.Errorf("benchmarkMs(%d, %d) = %v (class %d), want %v (class %d)", tc.kflops, tc.mips, ms,
				reliability.BenchmarkIndex(ms), tc.ms, tc.class)
		}
	}
}
