package queue

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// The aux bucket holds small records the schedd keeps beside its jobs
// (job type statistics), written in the same transactions as the jobs
// they follow, so that a record and the change it counts are durable
// together.

// PutAux stages a record of the aux bucket: val under key, or the key's
// removal when val is nil.
func (tx *Tx) PutAux(key string, val []byte) {
	tx.writes = append(tx.writes, write{bucketAux, []byte(key), val})
}

// Aux calls fn with each committed record of the aux bucket whose key
// begins with prefix, in key order, until fn returns an error. The value
// is valid only during the call. Like History it waits for the commits
// queued before it: never call it with the queue locked (in an Update's
// function, or a Read's), where a commit that fails could not be undone.
func (q *Queue) Aux(prefix string, fn func(key string, val []byte) error) error {
	q.locks.waits("Aux (which waits for commits)")
	if err := q.cm.barrier(); err != nil {
		return err
	}
	return q.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketAux.name()).Cursor()
		p := []byte(prefix)
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			if err := fn(string(k), v); err != nil {
				return err
			}
		}
		return nil
	})
}
