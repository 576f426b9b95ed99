package scale

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/resources"
	"github.com/kite-sched/kite/internal/attr"
)

// A simulated pool runs jobs end to end through the real daemons, each
// for the run time it declares, on the fake clock of a synctest bubble:
// two hosts, five jobs of ten minutes, so the slots take jobs one after
// another on the claims they hold (claim reuse). Each job's history
// shows the run time it declared as its wall-clock time and its declared
// exit code (HTCondor manual, "Job ClassAd Attributes": CompletionDate,
// JobCurrentStartDate, RemoteWallClockTime, ExitCode).
func TestSimulatedJobsHonourTheirRunTime(t *testing.T) {
	resources.Benchmark() // it measures the wall clock: before the bubble
	synctest.Test(t, func(t *testing.T) {
		pl := Start(t, Options{Hosts: 2})
		ctx := context.Background()
		if err := pl.WaitIngest(ctx); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		err := pl.SubmitFile(ctx, "executable = /bin/true\nshould_transfer_files = IF_NEEDED\n"+
			"+KiteSimRunTime = 600\n+KiteSimExitCode = 3\nqueue 5\n")
		if err != nil {
			t.Fatal(err)
		}
		for {
			c, err := pl.Counts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.Idle+c.Running == 0 {
				break
			}
			if time.Since(began) > 2*time.Hour {
				t.Fatalf("jobs left after two hours: %+v", c)
			}
			<-time.After(time.Second)
		}
		// Three rounds of ten minutes on two slots, and a little for the
		// negotiation and the claims.
		if took := time.Since(began); took < 30*time.Minute || took > 31*time.Minute {
			t.Errorf("five jobs of ten minutes on two slots took %v, want 30 minutes and a little", took)
		}
		ads, err := pl.History(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkRuns(t, ads, 5, 600, 3)
		// three jobs on one slot and two on the other: three periods of
		// a run time and the claim's reuse
		tv, err := pl.Turnover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if tv.Pairs != 3 || tv.Period < 600*time.Second || tv.Period > 605*time.Second {
			t.Errorf("turnover %+v, want 3 periods of 600 s and a little", tv)
		}
	})
}

// checkRuns checks the history: n jobs, each run for secs seconds with
// the exit code given, and a slot that ran jobs one after the other.
func checkRuns(t *testing.T, ads []*classad.Ad, n int, secs, code int64) {
	t.Helper()
	if len(ads) != n {
		t.Fatalf("%d jobs in the history, want %d", len(ads), n)
	}
	bySlot := map[string][]int64{}
	for _, ad := range ads {
		id := classad.EvalStringOr(ad, attr.GlobalJobID, "")
		start := classad.EvalIntOr(ad, attr.JobCurrentStartDate, 0)
		end := classad.EvalIntOr(ad, attr.CompletionDate, 0)
		wall := classad.EvalIntOr(ad, attr.RemoteWallClockTime, 0)
		if end-start != secs || wall != secs {
			t.Errorf("job %s: ran from %d to %d, wall clock %d s; want %d s", id, start, end, wall, secs)
		}
		if got := classad.EvalIntOr(ad, attr.ExitCode, -1); got != code {
			t.Errorf("job %s: exit code %d, want %d", id, got, code)
		}
		slot := classad.EvalStringOr(ad, attr.LastRemoteHost, classad.EvalStringOr(ad, attr.RemoteHost, ""))
		bySlot[slot] = append(bySlot[slot], start)
	}
	for slot, starts := range bySlot {
		sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
		for i := 1; i < len(starts); i++ {
			if gap := starts[i] - starts[i-1]; gap < secs || gap > secs+5 {
				t.Errorf("slot %q: jobs started %d s apart, want %d s and a little: %s", slot, gap, secs, fmt.Sprint(starts))
			}
		}
	}
	if len(bySlot) != 2 {
		t.Errorf("the jobs ran on %d slots, want 2: %v", len(bySlot), bySlot)
	}
}
