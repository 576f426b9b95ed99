package schedd

import (
	"testing"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/wire"
)

// TransferInputStats as HTCondor's shadow keeps it (manual: "Job ClassAd
// Attributes"): each method's counts of the last run, and totals with the
// runs before; a method the last run did not use is dropped, as the
// shadow's updateFileTransferStats drops it.
func TestTransferStatsTotals(t *testing.T) {
	first := transferStats(nil, map[string]wire.TransferCount{"Cedar": {Files: 2, Bytes: 100}, "HTTPS": {Files: 1, Bytes: 9}})
	second := transferStats(first, map[string]wire.TransferCount{"Cedar": {Files: 1, Bytes: 50}})
	for _, tc := range []struct {
		rec  *ast.Record
		want string
	}{
		{first, "[ CedarFilesCountLastRun = 2; CedarFilesCountTotal = 2; CedarSizeBytesLastRun = 100; CedarSizeBytesTotal = 100; " +
			"HTTPSFilesCountLastRun = 1; HTTPSFilesCountTotal = 1; HTTPSSizeBytesLastRun = 9; HTTPSSizeBytesTotal = 9 ]"},
		{second, "[ CedarFilesCountLastRun = 1; CedarFilesCountTotal = 3; CedarSizeBytesLastRun = 50; CedarSizeBytesTotal = 150 ]"},
	} {
		if got := ast.String(tc.rec); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
