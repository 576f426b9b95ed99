package queue

import (
	bolt "go.etcd.io/bbolt"
)

// History calls fn with each job in the history, newest first, as JSON
// (valid only during the call), until fn returns false. A job that left
// the queue before the call is in it: the call waits for the commits
// under way.
func (q *Queue) History(fn func(ad []byte) bool) error {
	q.cm.barrier()
	return q.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketHistory).Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			if !fn(v) {
				return nil
			}
		}
		return nil
	})
}
