package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// Jobs that wait in the queue for a machine start as soon as one comes
// (a pool restarted with idle jobs, a startd added), not at the
// negotiator's next periodic cycle: a new startd's slots, like slots
// freed by a claim's end, ask the negotiator for a cycle.
func TestNewSlotsStartWaitingJobs(t *testing.T) {
	p := pooltest.New(t)
	p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable = 1, 1, false
	p.Config.Startd.Memory = 512
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, time.Hour
	})
	start.Schedd(t, p, "schedd:1", nil)
	pl := &pool{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write),
		admin: p.Client("schedd:1", "root", auth.Administrator), startd: map[string]*startd.Server{}}
	dir := t.TempDir()
	id := fmt.Sprintf("%d.0", pl.submit(dir, "executable = /bin/true\nqueue\n"))
	time.Sleep(200 * time.Millisecond) // the negotiator's cycles for the submit find no slot
	began := time.Now()
	pl.startd["a"] = start.Startd(t, p, "startd-0:1", "a", nil)
	pl.waitStatus(id, attr.Completed)
	t.Logf("the job ran %v after its machine came", time.Since(began))
}
