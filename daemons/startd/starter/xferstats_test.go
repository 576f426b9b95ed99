package starter

import (
	"reflect"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/wire"
)

// A run's transfers are counted by method, as HTCondor's starter names
// them for TransferInputStats: Cedar for the schedd's files, the URL
// scheme upper-cased for a plugin's.
func TestTransferStatsCountByMethod(t *testing.T) {
	var ts transferStats
	ts.add(false, cedar, 100)
	ts.add(false, cedar, 23)
	ts.add(false, urlMethod("https://example.org/a"), 7)
	ts.add(true, cedar, 5)
	want := map[string]wire.TransferCount{"Cedar": {Files: 2, Bytes: 123}, "HTTPS": {Files: 1, Bytes: 7}}
	if !reflect.DeepEqual(ts.in, want) {
		t.Errorf("in = %v, want %v", ts.in, want)
	}
	if want := map[string]wire.TransferCount{"Cedar": {Files: 1, Bytes: 5}}; !reflect.DeepEqual(ts.out, want) {
		t.Errorf("out = %v, want %v", ts.out, want)
	}
}

// The last event carries the counts and the activation's phases: setup
// until the process started, its run, and teardown until now.
func TestRunFacts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	now := t0.Add(10 * time.Second)
	s := &Starter{cfg: Config{Now: func() time.Time { return now }}}
	s.xfer.add(false, cedar, 42)
	for _, tc := range []struct {
		name       string
		start, end time.Time
		want       *wire.ActivationTimes
	}{
		{"ran", t0.Add(2 * time.Second), t0.Add(7 * time.Second), &wire.ActivationTimes{SetupSeconds: 2, ExecutionSeconds: 5, TeardownSeconds: 3}},
		{"never started", time.Time{}, time.Time{}, nil},
	} {
		var u wire.JobUpdate
		s.runFacts(&u, t0, tc.start, tc.end)
		if !reflect.DeepEqual(u.Activation, tc.want) {
			t.Errorf("%s: activation %+v, want %+v", tc.name, u.Activation, tc.want)
		}
		if u.Transfers == nil || u.Transfers.In["Cedar"] != (wire.TransferCount{Files: 1, Bytes: 42}) {
			t.Errorf("%s: transfers %+v", tc.name, u.Transfers)
		}
	}
}
