package startd

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/kite-sched/kite/internal/wire"
)

// sameAsMarshal checks that appendResultLine writes what json.Marshal does.
func sameAsMarshal(t *testing.T, what string, rl resultLine) {
	t.Helper()
	want, werr := json.Marshal(rl)
	got, err := appendResultLine([]byte("prefix"), rl)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%s: error %v, json.Marshal's %v", what, err, werr)
	}
	if err == nil && string(got) != "prefix"+string(want) {
		t.Errorf("%s:\n got %s\nwant prefix%s", what, got, want)
	}
}

// A result line is written as encoding/json writes it, the job's event
// in it too (wire.JobUpdate.AppendJSON, whose own tests go through every
// field and value): kept results, with and without their pool, and
// forgotten ones.
func TestAppendResultLine(t *testing.T) {
	u := wire.JobUpdate{ClaimID: "<claim#1>", Job: "12.3", Event: wire.EventHeld, Time: 1764140123, StartedAt: 1764140122,
		ExitCode: 3, WallSeconds: 0.00131, UserCPU: 1e-7, PeakMemoryMB: 2, Reason: `a "quoted" <reason> é`, HoldCode: 21,
		Transfers: &wire.RunTransfers{}, Activation: &wire.ActivationTimes{SetupSeconds: 0.000216, ExecutionSeconds: 0.5}}
	sameAsMarshal(t, "a kept result", resultLine{Keep: &result{Schedd: "host:9618", Update: u}})
	sameAsMarshal(t, "a kept result of another pool", resultLine{Keep: &result{Schedd: "host:9618", Pool: "other", Update: u}})
	sameAsMarshal(t, "no field", resultLine{Keep: &result{}})
	sameAsMarshal(t, "a number JSON cannot hold", resultLine{Keep: &result{Update: wire.JobUpdate{WallSeconds: math.NaN()}}})
	sameAsMarshal(t, "a forgotten result", resultLine{Claim: "<claim#1>", Job: "12.3"})
	sameAsMarshal(t, "a forgotten claim alone", resultLine{Claim: "c"})
	sameAsMarshal(t, "an empty line", resultLine{})
}

// BenchmarkResultLogKeep measures keeping and forgetting one short job's
// result, as the startd does for every job.
func BenchmarkResultLogKeep(b *testing.B) {
	l, _, err := openResults(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	r := result{Schedd: "127.0.0.1:9618", Update: wire.JobUpdate{ClaimID: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Job: "17.4096", Event: wire.EventExited, Time: 1764140123, StartedAt: 1764140122, WallSeconds: 0.00131,
		UserCPU: 0.000412, SysCPU: 0.000901, PeakMemoryMB: 2,
		Activation: &wire.ActivationTimes{SetupSeconds: 0.000216, ExecutionSeconds: 0.00131, TeardownSeconds: 0.000057}}}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.keep(r); err != nil {
			b.Fatal(err)
		}
		if err := l.forget(r.Update.ClaimID, r.Update.Job); err != nil {
			b.Fatal(err)
		}
	}
}
