package schedd

import (
	"context"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// vacateJob asks the startd that runs a job (or suspends it) to stop it,
// condor_vacate_job: the job keeps its place in the queue and is matched
// again. Its process gets its soft kill signal (SIGKILL at once when fast).
// The job stays Running until the startd reports it gone (an evicted
// event, which puts it back to idle and releases the claim), so that it
// never runs in two places at once, as during a kill grace it could. A
// job with no claim here (not running, or being reconnected) is left
// alone, as HTCondor leaves it.
func (s *Server) vacateJob(tx *queue.Tx, j *queue.Job, reason string, fast bool, _ *eventBatch) bool {
	if st := tx.Status(j); st != attr.Running && st != attr.Suspended {
		return false
	}
	c, _ := s.claims.First(j.ID)
	if c == nil {
		return false
	}
	s.replication.stop(tx, j, "vacated")
	tx.AfterCommit(func() {
		s.goBackground(func(ctx context.Context) { s.askVacate(ctx, c, reason, fast) })
	})
	return true
}

// askVacate asks a claim's startd to stop its job; the startd reports the
// job evicted once it is gone. A startd that does not answer loses the
// claim as any silent startd does (its keep-alives).
func (s *Server) askVacate(ctx context.Context, c *claims.Claim, reason string, fast bool) {
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := s.startd(c).Call(vctx, "POST", wire.PathVacate, wire.Vacate{ClaimID: c.ID, Reason: reason, Fast: fast}, nil)
	if err != nil && !wire.IsCode(err, wire.CodeNotFound) {
		s.log.Info("vacate failed", "slot", c.SlotName, "err", err)
	}
}
