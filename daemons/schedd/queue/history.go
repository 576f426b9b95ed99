package queue

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// History reads in batches of at most this many records or bytes: a read
// transaction lives for one batch only.
const (
	historyBatchRecords = 256
	historyBatchBytes   = 1 << 20
)

// History calls fn with each job in the history, newest first, as JSON
// (valid only during the call), until fn returns false. A job that left
// the queue before the call is in it: the call waits for the commits
// under way (never call it with the queue locked: see Aux).
//
// fn is never called under a store transaction: History copies a bounded
// batch of records in a read transaction, ends it, hands the batch to fn,
// and goes on from the last key in a new one. A caller that streams to a
// slow reader therefore never holds the store (a read transaction held
// open blocks the commit that must grow the file, and so every commit).
// Jobs that leave the queue during the call come after it began and are
// not included; records the retention trims meanwhile are skipped.
func (q *Queue) History(fn func(ad []byte) bool) error {
	q.locks.waits("History (which waits for commits)")
	if err := q.cm.barrier(); err != nil {
		return err
	}
	var (
		batch [][]byte
		after []byte // the last key handed out; nil before the first batch
	)
	for {
		batch = batch[:0]
		err := q.db.View(func(tx *bolt.Tx) error {
			batch, after = historyBatch(tx.Bucket(bucketHistory.name()).Cursor(), after, batch)
			return nil
		})
		if err != nil {
			return err
		}
		for _, v := range batch {
			if !fn(v) {
				return nil
			}
		}
		if len(batch) == 0 || after == nil {
			return nil
		}
	}
}

// historyBatch appends to batch copies of the records before the key
// after (from the newest when after is nil), newest first, up to the
// batch bounds, and returns it with the last key it took (nil when it
// took none).
func historyBatch(c *bolt.Cursor, after []byte, batch [][]byte) ([][]byte, []byte) {
	var k, v []byte
	if after == nil {
		k, v = c.Last()
	} else if k, _ = c.Seek(after); k == nil {
		k, v = c.Last() // every key is before after
	} else {
		k, v = c.Prev()
	}
	var last []byte
	size := 0
	for ; k != nil && len(batch) < historyBatchRecords && size < historyBatchBytes; k, v = c.Prev() {
		batch = append(batch, bytes.Clone(v))
		size += len(v)
		last = k
	}
	return batch, bytes.Clone(last)
}
