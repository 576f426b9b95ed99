package queue

import (
	"iter"

	"github.com/kite-sched/kite/internal/attr"
)

// ClustersFrom yields the clusters that have jobs from id on, in id
// order: a walk through the whole queue in several read locks
// resumes where it stopped, so that writers wait for a part of it, not
// all of it.
func (r *Reader) ClustersFrom(id int64) iter.Seq[*Cluster] {
	return func(yield func(*Cluster) bool) {
		i, _ := r.q.orderIndex(id)
		for _, c := range r.q.order[i:] {
			if c.live > 0 && !yield(c) {
				return
			}
		}
	}
}

// IdleJobs yields the cluster's idle jobs in proc order, with the queue
// read-locked. A claim's next job is the first idle one its walk finds,
// and the jobs at a cluster's front are the ones running: at 10 000
// slots each walk passed 10 000 running jobs (docs/scale.md). The
// cluster keeps the proc id of its first idle job as the walks find it
// (readers agree on it: the queue does not change under a read lock), and
// a change that makes any of its jobs idle forgets it (count).
func (c *Cluster) IdleJobs(yield func(*Job) bool) {
	from := max(int(c.idleFrom.Load()), c.first)
	found := false
	for i := from; i < len(c.procs); i++ {
		j := c.procs[i]
		if j == nil || j.status != attr.Idle {
			continue
		}
		if !found {
			found = true
			c.raiseIdleFrom(i)
		}
		if !yield(j) {
			return
		}
	}
	if !found {
		c.raiseIdleFrom(len(c.procs))
	}
}

// raiseIdleFrom moves the first idle proc id up to i, unless a concurrent
// walk moved it already.
func (c *Cluster) raiseIdleFrom(i int) {
	for {
		old := c.idleFrom.Load()
		if int64(i) <= old || c.idleFrom.CompareAndSwap(old, int64(i)) {
			return
		}
	}
}
