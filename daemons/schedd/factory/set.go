package factory

import (
	"fmt"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
)

// Set is the schedd's factories, by cluster. It is read and changed with
// the queue locked: in the queue's transactions, and in its reads.
type Set struct {
	m map[int64]*Factory
	// Batch bounds the procs one transaction materializes for a factory
	// (the schedd's max_jobs_per_submission).
	Batch int64
	// PerOwner, when positive, bounds the jobs an owner has in the queue:
	// a factory makes none past it (the schedd's max_jobs_per_owner,
	// which caps materialization rather than refusing the submit).
	PerOwner int64
	// Grown, when set, is told of the procs a transaction materialized
	// (the schedd writes their submit events).
	Grown func(tx *queue.Tx, c *queue.Cluster, first int64, procs []*classad.Ad)
	// Removed, when set, is told in the transaction in which the cluster
	// of an ended factory leaves the queue (the schedd writes its
	// ClusterRemove event).
	Removed func(tx *queue.Tx, c *queue.Cluster, e Ended)

	ended map[int64]Ended // factories that ended, their clusters in the queue (ended.go)
}

// Load reads the factories a queue keeps and keeps their clusters open.
// Call it before the queue is shared.
func Load(q *queue.Queue, batch int64) (*Set, error) {
	s := &Set{m: map[int64]*Factory{}, Batch: batch, ended: map[int64]Ended{}}
	specs, states := map[int64][]byte{}, map[int64][]byte{}
	err := q.Aux(keyPrefix, func(key string, val []byte) error {
		id, isState, err := clusterOfKey(key)
		if err != nil {
			return err
		}
		if isState {
			states[id] = append([]byte(nil), val...)
		} else {
			specs[id] = append([]byte(nil), val...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id, spec := range specs {
		f, err := decode(id, spec, states[id])
		if err != nil {
			return nil, err
		}
		if q.OpenLoaded(id) == nil {
			return nil, fmt.Errorf("factory of cluster %d: the cluster is not in the queue", id)
		}
		s.m[id] = f
	}
	if err := s.loadEnded(q); err != nil {
		return nil, err
	}
	return s, nil
}

// Get returns the factory of a cluster, or nil (a nil Set has none).
func (s *Set) Get(cluster int64) *Factory {
	if s == nil {
		return nil
	}
	return s.m[cluster]
}

// Len is the number of factories.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.m)
}

// Start makes the cluster's first procs, for its submit: f.Next is 0.
func (s *Set) Start(f *Factory) ([]*classad.Ad, error) {
	n := f.Want(f.Left(), queue.Counts{}, s.Batch)
	procs := make([]*classad.Ad, n)
	for i := range procs {
		p, err := f.Proc(int64(i))
		if err != nil {
			return nil, err
		}
		procs[i] = p
	}
	return procs, nil
}

// Add keeps a new factory whose cluster tx just submitted with the first
// firsts procs: its records are written with the submit.
func (s *Set) Add(tx *queue.Tx, c *queue.Cluster, f *Factory, first int) {
	f.Next = int64(first)
	tx.PutAux(specKey(f.Cluster), f.spec())
	s.m[f.Cluster] = f
	tx.OnRollback(func() { delete(s.m, f.Cluster) })
	if f.Left() == 0 {
		s.drop(tx, c, f, true)
		return
	}
	tx.PutAux(stateKey(f.Cluster), f.state())
	tx.KeepOpen(c, true)
}

// Hook materializes, for each cluster whose jobs tx changed, what its
// factory may: set it as the queue's hook.
func (s *Set) Hook(tx *queue.Tx) error {
	s.leaving(tx)
	if len(s.m) == 0 {
		return nil
	}
	for _, c := range tx.Clusters() {
		if f := s.m[c.ID]; f != nil {
			if err := s.grow(tx, c, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// grow materializes the procs a factory may add now.
func (s *Set) grow(tx *queue.Tx, c *queue.Cluster, f *Factory) error {
	if f.Paused {
		return nil
	}
	n := f.Want(f.Left(), tx.Counts(c), s.Batch)
	if s.PerOwner > 0 {
		n = max(min(n, s.PerOwner-int64(tx.OwnerJobs(c.Owner))), 0)
	}
	if n == 0 {
		return nil
	}
	first := f.Next
	procs := make([]*classad.Ad, n)
	for i := range procs {
		p, err := f.Proc(first + int64(i))
		if err != nil {
			return err
		}
		procs[i] = p
	}
	if err := tx.Grow(c, first, procs); err != nil {
		return err
	}
	f.Next += n
	tx.OnRollback(func() { f.Next = first })
	if s.Grown != nil {
		s.Grown(tx, c, first, procs)
	}
	if f.Left() == 0 {
		s.drop(tx, c, f, true)
		return nil
	}
	tx.PutAux(stateKey(f.Cluster), f.state())
	return nil
}

// drop forgets a factory: its last proc materialized, or its cluster
// removed.
func (s *Set) drop(tx *queue.Tx, c *queue.Cluster, f *Factory, grew bool) {
	s.end(tx, c, f, grew)
	delete(s.m, f.Cluster)
	tx.OnRollback(func() { s.m[f.Cluster] = f })
	tx.PutAux(specKey(f.Cluster), nil)
	tx.PutAux(stateKey(f.Cluster), nil)
	tx.KeepOpen(c, false)
}

// Remove removes the factory of a cluster (condor_rm of the cluster):
// its procs not yet materialized are never made. It reports whether the
// cluster had one.
func (s *Set) Remove(tx *queue.Tx, cluster int64) bool {
	f := s.m[cluster]
	c := tx.Cluster(cluster)
	if f == nil || c == nil {
		return false
	}
	s.drop(tx, c, f, false)
	return true
}

// Pause pauses (a hold of the cluster) or resumes (a release) the factory
// of a cluster; a resumed factory materializes what it may at once. It
// reports whether the cluster has a factory whose state changed.
func (s *Set) Pause(tx *queue.Tx, cluster int64, paused bool) (bool, error) {
	f := s.m[cluster]
	c := tx.Cluster(cluster)
	if f == nil || c == nil || f.Paused == paused {
		return false, nil
	}
	f.Paused = paused
	tx.OnRollback(func() { f.Paused = !paused })
	tx.PutAux(stateKey(f.Cluster), f.state())
	if !paused {
		return true, s.grow(tx, c, f)
	}
	return true, nil
}

// Clusters returns the clusters that have factories, in no order.
func (s *Set) Clusters() []int64 {
	out := make([]int64, 0, len(s.m))
	for id := range s.m {
		out = append(out, id)
	}
	return out
}
