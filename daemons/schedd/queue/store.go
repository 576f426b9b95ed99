package queue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// The store's layout in bbolt. Keys are big-endian so that cursors walk
// clusters, procs and history in order.
//
//	meta      next_cluster → uint64; history_first, history_next → uint64
//	clusters  cluster      → the cluster ad (JSON), Owner included
//	procs     cluster|proc → the proc's own ad (JSON)
//	history   seq          → a finished job's whole ad (JSON)
//	aux       name         → a record the schedd keeps beside the jobs
var (
	bucketMeta     = []byte("meta")
	bucketClusters = []byte("clusters")
	bucketProcs    = []byte("procs")
	bucketHistory  = []byte("history")
	bucketAux      = []byte("aux")

	keyNextCluster  = []byte("next_cluster")
	keyHistoryFirst = []byte("history_first")
	keyHistoryNext  = []byte("history_next")
	keyVersion      = []byte("version")
)

// storeVersion is the layout version written in meta.
const storeVersion = 1

// write is one change to the store: a put, or a delete when val is nil.
type write struct {
	bucket []byte
	key    []byte
	val    []byte
}

func u64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

func clusterKey(c int64) []byte { return u64(uint64(c)) }

func procKey(id JobID) []byte {
	k := make([]byte, 16)
	putProcKey(k, id)
	return k
}

func putProcKey(k []byte, id JobID) {
	binary.BigEndian.PutUint64(k, uint64(id.Cluster))
	binary.BigEndian.PutUint64(k[8:], uint64(id.Proc))
}

func parseProcKey(k []byte) (JobID, error) {
	if len(k) != 16 {
		return JobID{}, fmt.Errorf("proc key of %d bytes", len(k))
	}
	return JobID{int64(binary.BigEndian.Uint64(k)), int64(binary.BigEndian.Uint64(k[8:]))}, nil
}

// commit is one Update's writes, acknowledged on done after they are
// durable; after runs (in commit order) once they are, undo (with the
// queue locked) if they fail.
type commit struct {
	writes []write
	after  []func()
	undo   func()
	done   chan error
}

// committer writes commits in the order they were queued, as many as are
// waiting in one bbolt transaction (group commit): one fsync for all.
//
// A transaction that fails (a full disk) fails its commits and every
// commit queued behind them, whose changes memory already shows on top of
// the failed ones: rollback undoes them all, newest first, with the
// queue locked, so that memory again shows what the file holds. The
// committer goes on: the next commit tries again.
type committer struct {
	db       *bolt.DB
	mu       sync.Mutex
	cond     *sync.Cond
	pending  []*commit
	closing  bool
	failed   error // the last transaction's error, nil once one succeeds
	stopped  chan struct{}
	rollback func(take func() []*commit)
	// fault, when set, is asked before each transaction's writes; its
	// error fails the transaction as a write error would.
	fault func() error
	// retain bounds the history: a commit that makes it longer drops the
	// oldest entries.
	retain uint64
	// txs and changes count bbolt transactions and the changes in them,
	// failures the transactions that failed.
	txs, changes, failures atomic.Int64
	// queued counts the commits enqueued, written those written (or
	// failed); flushed is signalled as written grows.
	queued, written uint64
	flushed         *sync.Cond
	// holds counts the holds in force: no transaction starts meanwhile.
	holds int
}

// newCommitter starts a committer; rollback is called with the queue's
// lock taken, and calls take (which takes the commits queued behind the
// failed ones) inside it.
func newCommitter(db *bolt.DB, retain uint64, rollback func(take func() []*commit)) *committer {
	c := &committer{db: db, stopped: make(chan struct{}), retain: retain, rollback: rollback}
	c.cond = sync.NewCond(&c.mu)
	c.flushed = sync.NewCond(&c.mu)
	go c.run()
	return c
}

// enqueue queues a commit; its writes follow those of every commit queued
// before it.
func (c *committer) enqueue(cm *commit) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		cm.done <- ErrClosed
		return
	}
	c.pending = append(c.pending, cm)
	c.queued++
	c.mu.Unlock()
	c.cond.Signal()
}

// hold keeps the next transaction from starting until release is called
// (the one under way goes on), so that the commits queued meanwhile share
// it.
func (c *committer) hold() (release func()) {
	c.mu.Lock()
	c.holds++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.holds--
			c.mu.Unlock()
			c.cond.Signal()
		})
	}
}

// barrier waits until every commit queued before it was written (or the
// store failed or closed): a read of the store after it sees every change
// the memory already shows.
func (c *committer) barrier() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for target := c.queued; c.written < target && !c.closing; {
		c.flushed.Wait()
	}
}

// ErrClosed is returned by changes after the queue was closed.
var ErrClosed = errors.New("job queue closed")

func (c *committer) run() {
	defer close(c.stopped)
	for {
		c.mu.Lock()
		for (len(c.pending) == 0 || c.holds > 0) && !c.closing {
			c.cond.Wait()
		}
		batch := c.pending
		c.pending = nil
		c.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		err := c.db.Update(func(tx *bolt.Tx) error { return c.apply(tx, batch) })
		c.txs.Add(1)
		c.changes.Add(int64(len(batch)))
		if err != nil {
			err = fmt.Errorf("job queue: commit failed: %w", err)
			batch = c.fail(batch)
			c.failures.Add(1) // after: whoever sees it sees the queue undone
		}
		c.mu.Lock()
		c.failed = err
		c.mu.Unlock()
		for _, cm := range batch {
			if err == nil {
				for _, f := range cm.after {
					f()
				}
			}
			cm.done <- err
		}
		c.mu.Lock()
		c.written += uint64(len(batch))
		c.mu.Unlock()
		c.flushed.Broadcast()
	}
}

// fail undoes a failed batch and every commit queued behind it, newest
// first, and returns them all: none is durable.
func (c *committer) fail(batch []*commit) []*commit {
	all := batch
	c.rollback(func() []*commit {
		c.mu.Lock()
		all = append(all, c.pending...)
		c.pending = nil
		c.mu.Unlock()
		for i := len(all) - 1; i >= 0; i-- {
			if all[i].undo != nil {
				all[i].undo()
			}
		}
		return all
	})
	return all
}

func (c *committer) apply(tx *bolt.Tx, batch []*commit) error {
	if c.fault != nil {
		if err := c.fault(); err != nil {
			return err
		}
	}
	// The history only grows at its end (its keys count up): its pages
	// are filled whole rather than split half-empty, which halves what a
	// large removal writes.
	tx.Bucket(bucketHistory).FillPercent = 1
	for _, cm := range batch {
		for _, w := range cm.writes {
			b := tx.Bucket(w.bucket)
			var err error
			if w.val == nil {
				err = b.Delete(w.key)
			} else {
				err = b.Put(w.key, w.val)
			}
			if err != nil {
				return err
			}
		}
	}
	return c.trimHistory(tx)
}

// trimHistory drops the oldest history entries beyond the retention.
func (c *committer) trimHistory(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	first, next := getU64(meta, keyHistoryFirst), getU64(meta, keyHistoryNext)
	if c.retain == 0 || next-first <= c.retain {
		return nil
	}
	h := tx.Bucket(bucketHistory)
	for ; next-first > c.retain; first++ {
		if err := h.Delete(u64(first)); err != nil {
			return err
		}
	}
	return meta.Put(keyHistoryFirst, u64(first))
}

func getU64(b *bolt.Bucket, key []byte) uint64 {
	v := b.Get(key)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// close writes what is queued and stops.
func (c *committer) close() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.cond.Signal()
	c.flushed.Broadcast()
	<-c.stopped
}
