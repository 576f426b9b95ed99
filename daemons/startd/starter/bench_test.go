package starter

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// BenchmarkShortJob runs the personal pool's short job (/bin/true in its
// own directory) start to end report, one after another on one claim as
// the startd runs them: the claim's sandbox parked and reused, a new
// starter goroutine for each. Its time is mostly the process's; its
// allocations are all the starter's, and a CPU profile shows the
// starter's share beside fork and exec.
func BenchmarkShortJob(b *testing.B) {
	job := benchAd(b, "testdata/shortjob.ad", classad.ParseOld)
	job.Set(attr.Iwd, ast.Str(b.TempDir()))
	machine := benchAd(b, "testdata/slot.ad", classad.Parse)
	var spare *sandbox.Dir
	cfg := Config{ExecuteDir: b.TempDir(), Slot: "slot1_1", Cpus: 1, MemoryMiB: 4096, FoldStarted: foldStarted,
		KillGrace: 10 * time.Second, SampleInterval: 5 * time.Second,
		MachineAd: machine, MachineAdText: &AdText{}, Recycle: func(d *sandbox.Dir) { spare = d },
		Report: func(_ context.Context, u wire.JobUpdate) error {
			if u.Event != wire.EventStarted && (u.Event != wire.EventExited || u.ExitCode != 0) { // started: a job slower than foldStarted
				b.Errorf("event %+v", u)
			}
			return nil
		}}
	b.ReportAllocs()
	for b.Loop() {
		cfg.Spare, spare = spare, nil
		<-Start(cfg, Job{ID: "1.0", ClaimID: "claim", Ad: job}).Done()
	}
	if spare != nil {
		spare.Remove()
	}
}

// foldStarted is the startd's: a short job is reported once.
const foldStarted = 50 * time.Millisecond

// benchAd reads an ad of testdata.
func benchAd(b *testing.B, file string, parse func(string, ...classad.ParseOption) (*classad.Ad, error)) *classad.Ad {
	b.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	ad, err := parse(string(text))
	if err != nil {
		b.Fatalf("%s: %v", file, err)
	}
	return ad
}
