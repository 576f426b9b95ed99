package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// A completed job's ad carries its file transfers and its last
// activation as HTCondor's shadow records them (manual: "Job ClassAd
// Attributes": TransferInputStats, TransferOutputStats, ActivationDuration
// and its parts; BytesSent and BytesRecvd from the job's side: what it
// sent back and what it was sent). The job runs twice (max_retries): the
// statistics' Total is both runs', LastRun the last's.
func TestCompletedJobAdRecordsItsTransfers(t *testing.T) {
	pl := newPool(t, 1, "a")
	dir := t.TempDir()
	input := strings.Repeat("x", 5000)
	script := fmt.Sprintf("#!/bin/sh\ncat in.dat > out.dat\ntest -e %[1]s/again && exit 0\ntouch %[1]s/again\nexit 1\n", dir)
	os.WriteFile(filepath.Join(dir, "in.dat"), []byte(input), 0o644)
	os.WriteFile(filepath.Join(dir, "job.sh"), []byte(script), 0o755)
	c := pl.submit(dir, `executable = job.sh
transfer_input_files = in.dat
should_transfer_files = YES
max_retries = 1
log = job.log
queue
`)
	ad := pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed)
	in, out := int64(len(input)+len(script)), int64(len(input))
	for expr, want := range map[string]int64{
		"TransferInputStats.CedarFilesCountLastRun":  2, // job.sh and in.dat
		"TransferInputStats.CedarFilesCountTotal":    4,
		"TransferInputStats.CedarSizeBytesLastRun":   in,
		"TransferInputStats.CedarSizeBytesTotal":     2 * in,
		"TransferOutputStats.CedarFilesCountLastRun": 1, // out.dat
		"TransferOutputStats.CedarFilesCountTotal":   2,
		"TransferOutputStats.CedarSizeBytesLastRun":  out,
		"TransferOutputStats.CedarSizeBytesTotal":    2 * out,
		"BytesRecvd": 2 * in,
		"BytesSent":  2 * out,
	} {
		if got, ok := evalNumber(t, ad, expr); !ok || got != float64(want) {
			t.Errorf("%s = %v (%v), want %d", expr, got, ok, want)
		}
	}
	parts := 0.0
	for _, name := range []string{attr.ActivationSetupDuration, attr.ActivationExecutionDuration, attr.ActivationTeardownDuration} {
		n, ok := classad.EvalInt(ad, name)
		if !ok || n < 0 {
			t.Errorf("%s = %s, want a whole number of seconds", name, str(ad, name))
		}
		parts += float64(n)
	}
	total, ok := classad.EvalInt(ad, attr.ActivationDuration)
	if !ok || math.Abs(float64(total)-parts) > 1 {
		t.Errorf("ActivationDuration = %s, its parts add to %v", str(ad, attr.ActivationDuration), parts)
	}
	if wall, _ := classad.EvalNumber(ad, attr.LastRemoteWallClockTime); float64(total) < math.Floor(wall)-1 {
		t.Errorf("ActivationDuration %d is shorter than the run's wall time %v", total, wall)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "job.log"))
	for _, line := range []string{
		fmt.Sprintf("\t%d  -  Run Bytes Sent By Job\n\t%d  -  Run Bytes Received By Job\n", out, in),
		fmt.Sprintf("\t%d  -  Total Bytes Sent By Job\n\t%d  -  Total Bytes Received By Job\n", 2*out, 2*in),
	} {
		if !strings.Contains(string(log), line) {
			t.Errorf("the terminated event lacks %q:\n%s", line, log)
		}
	}
}

// evalNumber evaluates an expression against a job ad.
func evalNumber(t *testing.T, ad *classad.Ad, expr string) (float64, bool) {
	t.Helper()
	p, err := classad.Compile(expr)
	if err != nil {
		t.Fatal(err)
	}
	v, err := classad.Eval(p, ad, nil)
	if err != nil {
		return 0, false
	}
	if n, ok := v.IntValue(); ok {
		return float64(n), true
	}
	return v.RealValue()
}
