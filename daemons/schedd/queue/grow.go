package queue

import (
	"fmt"

	"github.com/kite-sched/kite/classad"
)

// A job factory (late materialization) adds procs to a cluster that is
// already in the queue, as the cluster's jobs move on: the hook it sets
// runs at the end of every transaction's function, with the queue
// locked, so the procs it adds commit with the change that made room
// for them. A cluster whose factory has procs to come is kept open: it
// stays in the queue while it has no jobs.

// growth is procs staged for an existing cluster.
type growth struct {
	c     *Cluster
	first int64
	procs []*classad.Ad
}

// openChange is a staged KeepOpen.
type openChange struct {
	c    *Cluster
	open bool
}

// SetHook sets fn to run at the end of every Update's (and Stage's)
// function, before its changes are installed; an error fails the
// transaction. Set it before the queue is shared.
func (q *Queue) SetHook(fn func(tx *Tx) error) { q.hook = fn }

func (q *Queue) runHook(tx *Tx) error {
	if q.hook == nil {
		return nil
	}
	return q.hook(tx)
}

// Open reports whether the cluster is kept in the queue for its factory.
func (c *Cluster) Open() bool { return c.open }

// Counts returns the numbers of the cluster's jobs by status.
func (c *Cluster) Counts() Counts { return c.counts }

// Next returns the proc id after the highest the cluster has had since
// the queue was loaded (procs that left before are not counted).
func (c *Cluster) Next() int64 { return int64(len(c.procs)) }

// Grow adds procs to an existing cluster, with ProcIds first, first+1
// ...; each own ad holds its ProcId. The ids must be above every proc
// the cluster has. The jobs are in the queue once the transaction is
// installed (the rest of its function does not see them).
func (tx *Tx) Grow(c *Cluster, first int64, procs []*classad.Ad) error {
	next := int64(len(c.procs))
	for _, g := range tx.grown {
		if g.c == c {
			next = g.first + int64(len(g.procs))
		}
	}
	if first < next || first > 1<<31 {
		return fmt.Errorf("cluster %d: proc %d is not above its procs", c.ID, first)
	}
	tx.grown = append(tx.grown, growth{c, first, procs})
	return nil
}

// KeepOpen keeps a cluster in the queue while it has no jobs (open), or
// lets it go (a cluster with no jobs left then leaves the queue).
func (tx *Tx) KeepOpen(c *Cluster, open bool) {
	tx.opens = append(tx.opens, openChange{c, open})
}

// Counts returns the cluster's jobs by status as the transaction leaves
// them so far (procs it grew not counted).
func (tx *Tx) Counts(c *Cluster) Counts {
	n := c.counts
	for _, j := range tx.touched {
		if j.Cluster != c {
			continue
		}
		n.add(j.status, -1)
		if !tx.leaving[j] {
			n.add(statusOf(c.ad, tx.own[j]), 1)
		}
	}
	return n
}

// Clusters returns the clusters whose jobs the transaction changed so
// far, each once.
func (tx *Tx) Clusters() []*Cluster {
	var out []*Cluster
	seen := map[*Cluster]bool{}
	for _, j := range tx.touched {
		if !seen[j.Cluster] {
			seen[j.Cluster] = true
			out = append(out, j.Cluster)
		}
	}
	return out
}

// installGrowth puts grown procs in their clusters and stages their
// writes; a cluster that is opened is opened first.
func (tx *Tx) installGrowth() {
	q := tx.q
	for _, o := range tx.opens {
		if o.open && !o.c.open {
			c := o.c
			c.open = true
			tx.undo = append(tx.undo, func() { c.open = false })
		}
	}
	for _, g := range tx.grown {
		c := g.c
		oldLen := len(c.procs)
		for int64(len(c.procs)) < g.first {
			c.procs = append(c.procs, nil)
		}
		for i, own := range g.procs {
			j := &Job{ID: JobID{c.ID, g.first + int64(i)}, Cluster: c, own: own, status: statusOf(c.ad, own)}
			c.procs = append(c.procs, j)
			c.live++
			q.count(c, j.status, 1)
			tx.writes = append(tx.writes, write{bucketProcs, procKey(j.ID), classad.AppendJSON(nil, own, false)})
		}
		tx.undo = append(tx.undo, func() {
			for _, j := range c.procs[g.first:] {
				q.count(c, j.status, -1)
				c.live--
			}
			clear(c.procs[oldLen:])
			c.procs = c.procs[:oldLen]
		})
		tx.signal = true
	}
}

// installClosed lets go of the clusters the transaction closed: one with
// no jobs left leaves the queue.
func (tx *Tx) installClosed() {
	q := tx.q
	for _, o := range tx.opens {
		c := o.c
		if o.open || !c.open {
			continue
		}
		c.open = false
		dropped := c.live == 0 && q.clusters[c.ID] == c
		if dropped {
			tx.writes = append(tx.writes, write{bucketClusters, clusterKey(c.ID), nil})
			q.dropCluster(c)
		}
		tx.undo = append(tx.undo, func() {
			c.open = true
			if dropped {
				q.undropCluster(c)
			}
		})
	}
}

// OpenLoaded keeps a loaded cluster open for its factory (before the
// queue is shared); it returns the cluster, or nil when there is none.
func (q *Queue) OpenLoaded(id int64) *Cluster {
	c := q.clusters[id]
	if c != nil {
		c.open = true
	}
	return c
}

// OwnerJobs returns how many jobs owner has in the queue as the
// transaction leaves them so far (procs it grew not counted).
func (tx *Tx) OwnerJobs(owner string) int {
	c := tx.q.owners[owner]
	if c == nil {
		return 0
	}
	n := c.Total()
	for j := range tx.leaving {
		if j.Cluster.Owner == owner {
			n--
		}
	}
	return n
}
