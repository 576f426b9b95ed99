package starter

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/wire"
)

// A simulated job lasts its declared run time on the starter's clock and
// is reported as a real one: its start (folded into the exit when it is
// short), then its exit with its declared code; a vacate evicts it at
// once. Bad declarations fail the job with the attribute named.
func TestSimulatedJob(t *testing.T) {
	cases := []struct {
		name   string
		ad     string
		vacate time.Duration // 0: none
		events []string
		wall   float64
		code   int
		reason string
	}{
		{"runs its time", "[KiteSimRunTime = 600; KiteSimExitCode = 7]", 0, []string{wire.EventStarted, wire.EventExited}, 600, 7, ""},
		{"an expression", "[RequestCpus = 2; KiteSimRunTime = RequestCpus * 1.5]", 0, []string{wire.EventStarted, wire.EventExited}, 3, 0, ""},
		{"none declared ends at once", "[]", 0, []string{wire.EventExited}, 0, 0, ""},
		{"vacated", "[KiteSimRunTime = 600]", 100 * time.Second, []string{wire.EventStarted, wire.EventEvicted}, 100, 0, "the owner came back"},
		{"negative", "[KiteSimRunTime = -1]", 0, []string{wire.EventFailed}, 0, 0, "simulated job: KiteSimRunTime = -1 is not a run time in seconds"},
		{"bad exit code", "[KiteSimExitCode = 256]", 0, []string{wire.EventFailed}, 0, 0, "simulated job: KiteSimExitCode = 256 is not an exit code (0 to 255)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ad, err := classad.Parse(c.ad)
			if err != nil {
				t.Fatal(err)
			}
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var got []wire.JobUpdate
				report := func(_ context.Context, u wire.JobUpdate) error {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, u)
					return nil
				}
				s := Start(Config{Simulate: true, Report: report, FoldStarted: 50 * time.Millisecond},
					Job{ID: "1.0", ClaimID: "c", Ad: ad})
				if c.vacate > 0 {
					<-time.After(c.vacate)
					s.Vacate("the owner came back", false)
				}
				<-s.Done()
				if len(got) != len(c.events) {
					t.Fatalf("events %+v, want %v", got, c.events)
				}
				for i, e := range c.events {
					if got[i].Event != e {
						t.Errorf("event %d is %s, want %s", i, got[i].Event, e)
					}
				}
				last := got[len(got)-1]
				if last.WallSeconds != c.wall || last.ExitCode != c.code || last.Reason != c.reason {
					t.Errorf("last event: wall %v s, exit code %d, reason %q; want %v s, %d, %q",
						last.WallSeconds, last.ExitCode, last.Reason, c.wall, c.code, c.reason)
				}
			})
		})
	}
}
