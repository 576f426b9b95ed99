package factory

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/daemons/schedd/queue"
)

// A factory that ended (its last proc made, or its cluster removed) is
// remembered, durably, until its cluster leaves the queue with its last
// job: then the schedd writes the cluster's ClusterRemove event (HTCondor
// writes it as it destroys the cluster), with how far the factory got.

// Ended is a factory that ended, its cluster still in the queue.
type Ended struct {
	Cluster  int64
	Made     int64 // procs materialized
	Complete bool  // every proc was made
	Paused   bool  // held when it was removed
}

// endedPrefix keys the records of ended factories in the aux bucket.
const endedPrefix = "factory-ended/"

func endedKey(cluster int64) string { return fmt.Sprintf("%s%016x", endedPrefix, cluster) }

// loadEnded reads the ended factories a queue keeps.
func (s *Set) loadEnded(q *queue.Queue) error {
	return q.Aux(endedPrefix, func(key string, val []byte) error {
		id, err := strconv.ParseUint(strings.TrimPrefix(key, endedPrefix), 16, 63)
		if err != nil {
			return fmt.Errorf("ended factory record %q: not a cluster's key", key)
		}
		var e Ended
		if err := json.Unmarshal(val, &e); err != nil || e.Cluster != int64(id) {
			return fmt.Errorf("ended factory record of cluster %d: %v", id, err)
		}
		s.ended[e.Cluster] = e
		return nil
	})
}

// end records in tx that a factory ended. A cluster left with no job
// (a removed factory whose jobs are gone) leaves now.
func (s *Set) end(tx *queue.Tx, c *queue.Cluster, f *Factory, grew bool) {
	e := Ended{Cluster: f.Cluster, Made: f.Next, Complete: f.Left() == 0, Paused: f.Paused}
	if !grew && tx.Counts(c).Total() == 0 {
		s.gone(tx, c, e)
		return
	}
	s.ended[e.Cluster] = e
	tx.OnRollback(func() { delete(s.ended, e.Cluster) })
	b, err := json.Marshal(e)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	tx.PutAux(endedKey(e.Cluster), b)
}

// leaving tells, for each cluster of an ended factory whose jobs tx
// changed, whether its last job leaves: then the cluster goes.
func (s *Set) leaving(tx *queue.Tx) {
	if len(s.ended) == 0 {
		return
	}
	for _, c := range tx.Clusters() {
		if e, ok := s.ended[c.ID]; ok && tx.Counts(c).Total() == 0 {
			delete(s.ended, c.ID)
			tx.OnRollback(func() { s.ended[e.Cluster] = e })
			tx.PutAux(endedKey(e.Cluster), nil)
			s.gone(tx, c, e)
		}
	}
}

// gone tells the schedd that an ended factory's cluster leaves.
func (s *Set) gone(tx *queue.Tx, c *queue.Cluster, e Ended) {
	if s.Removed != nil {
		s.Removed(tx, c, e)
	}
}
