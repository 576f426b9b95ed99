package startd

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
)

// flockedFrom marks a job that a schedd of another pool (one of
// pool.flock_from, by its token) claims or activates here with that
// pool's name (KiteFlockedFrom), and unmarks any other: START, the slot's
// Requirements and Rank may then tell flocked jobs apart
// (START = TARGET.KiteFlockedFrom =?= undefined || ...), and no schedd can
// pass its jobs off as another pool's or as this pool's own.
func flockedFrom(job *classad.Ad, caller auth.Identity) { markPool(job, caller.Pool) }

// markPool marks a job with the pool of the schedd that claimed its slot
// ("" for this pool's: no mark). An activation marks the job again with
// the claim's pool, so that the next job a schedd of another pool hands
// over in the answer to an end report is marked as well.
func markPool(job *classad.Ad, pool string) {
	if pool == "" {
		job.Delete(attr.FlockedFrom)
		return
	}
	job.Set(attr.FlockedFrom, ast.Str(pool))
}

// claimingPool is the pool of the schedd that claimed a slot for job,
// which flockedFrom marked from its token: "" for this pool's. The
// claim's job events and files go to that schedd with the flock token
// for its pool, never with this pool's DAEMON token (scheddClient).
func claimingPool(job *classad.Ad) string {
	return classad.EvalStringOr(job, attr.FlockedFrom, "")
}
