package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/wire"
)

func rowsOf(t *testing.T, srcs ...string) []*row {
	t.Helper()
	var ads []*classad.Ad
	for _, s := range srcs {
		ad, err := classad.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ads = append(ads, ad)
	}
	return adRows(ads)
}

// The queue views print what condor_q's do, for each kind of job.
func TestQueueTables(t *testing.T) {
	now := time.Unix(1790000000, 0)
	q := time.Unix(1790000000-3600, 0).Local().Format("1/2 15:04")
	rows := rowsOf(t,
		`[ ClusterId = 7; ProcId = 0; Owner = "alice"; QDate = 1789996400; JobStatus = 2; TotalSubmitProcs = 4; JobCurrentStartDate = 1789999940; RemoteWallClockTime = 100.0; Cmd = "/bin/sleep"; Args = "60"; RemoteHost = "slot1@node"; MemoryUsage = 12; JobPrio = 3 ]`,
		`[ ClusterId = 7; ProcId = 2; Owner = "alice"; QDate = 1789996400; JobStatus = 5; TotalSubmitProcs = 4; Cmd = "/bin/sleep"; Arguments = "a 'b c'"; HoldReason = "via kite hold (by user alice)"; HoldReasonCode = 1; HoldReasonSubCode = 0; EnteredCurrentStatus = 1789996400; ImageSize = 2048 ]`,
		`[ ClusterId = 8; ProcId = 0; Owner = "bob"; QDate = 1789996400; JobStatus = 1; TotalSubmitProcs = 1; JobBatchName = "nightly"; Cmd = "/usr/bin/env" ]`,
	)
	var b strings.Builder
	batchTable([]wire.Batch{
		{Owner: "alice", Cluster: 7, Submitted: 1789996400, Total: 4, First: "7.0", Last: "7.2", StatusCounts: wire.StatusCounts{Jobs: 2, Running: 1, Held: 1}},
		{Owner: "bob", Name: "nightly", Cluster: 8, Submitted: 1789996400, Total: 1, First: "8.0", Last: "8.0", StatusCounts: wire.StatusCounts{Jobs: 1, Idle: 1}},
	}).write(&b)
	want := "OWNER BATCH_NAME SUBMITTED  DONE RUN IDLE HOLD TOTAL JOB_IDS\n\n" +
		"alice ID: 7      " + q + "    2   1    _    1     4 7.0-2\n" +
		"bob   nightly    " + q + "    _   _    1    _     1 8.0\n"
	if b.String() != want {
		t.Errorf("batch:\n%s\nwant\n%s", b.String(), want)
	}
	checkTable(t, jobTable(rows, now), []string{
		"7.0 alice " + q + " 0+00:02:40 R 3 12.0 sleep 60",
		"7.2 alice " + q + " 0+00:00:00 H 0 2.0 sleep a 'b c'",
		"8.0 bob " + q + " 0+00:00:00 I 0 0.0 env",
	})
	checkTable(t, holdTable(rows[1:2], now), []string{"7.2 alice " + q + " 1/0 via kite hold (by user alice)"})
	checkTable(t, runTable(rows[:1], now), []string{"7.0 alice " + q + " 0+00:02:40 slot1@node"})
	for _, tt := range []struct{ first, last, want string }{{"1.0", "1.0", "1.0"}, {"1.0", "1.9", "1.0-9"}, {"1.0", "3.2", "1.0 ... 3.2"}} {
		if got := idRange(tt.first, tt.last); got != tt.want {
			t.Errorf("idRange(%s, %s) = %s", tt.first, tt.last, got)
		}
	}
}

// checkTable compares a table's rows, spaces collapsed.
func checkTable(t *testing.T, tb *table, want []string) {
	t.Helper()
	var b strings.Builder
	tb.write(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")[2:]
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("table:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
