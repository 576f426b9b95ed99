package e2e

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/daemons/startd/resources"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// Jobs that wait in the queue for a machine start as soon as one comes
// (a pool restarted with idle jobs, a startd added), not at the
// negotiator's next periodic cycle: a new startd's slots, like slots
// freed by a claim's end, ask the negotiator for a cycle. The pool runs
// on the fake clock of a synctest bubble, so that the negotiator's hour
// between periodic cycles passes at once when nothing else is to happen:
// only the startd's request can start the job within the hour.
func TestNewSlotsStartWaitingJobs(t *testing.T) {
	const interval = time.Hour
	resources.Benchmark() // it measures the wall clock: before the bubble
	synctest.Test(t, func(t *testing.T) {
		p := pooltest.New(t)
		p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable = 1, 1, false
		p.Config.Startd.Memory = 512
		start.Collector(t, p)
		n := start.Negotiator(t, p, func(c *negotiator.Config) {
			c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, interval
		})
		start.Schedd(t, p, "schedd:1", nil)
		pl := &pool{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write),
			admin: p.Client("schedd:1", "root", auth.Administrator), startd: map[string]*startd.Server{}}
		id := fmt.Sprintf("%d.0", pl.submit(t.TempDir(), "executable = /bin/true\nqueue\n"))
		<-time.After(time.Second) // the bubble's clock: the schedd's poke and its cycle are over
		synctest.Wait()
		before := n.LastCycle()
		if before.IdleJobs != 1 || before.Slots != 0 || before.Matches != 0 {
			t.Fatalf("the cycle for the submit: %+v, want one idle job, no slot", before)
		}
		began := time.Now()
		pl.startd["a"] = start.Startd(t, p, "startd-0:1", "a", nil)
		pl.waitStatus(id, attr.Completed)
		if took := time.Since(began); took >= interval {
			t.Errorf("the job ran %v after its machine came: at a periodic cycle, not at the startd's request", took)
		}
		if after := n.LastCycle(); after.Number <= before.Number {
			t.Errorf("no cycle after the startd came: %+v", after)
		}
	})
}
