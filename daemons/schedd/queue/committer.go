package queue

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kite-sched/kite/internal/wal"
)

// commit is one Update's writes, acknowledged on done after they are
// durable; after runs (in commit order) once they are, undo (with the
// queue locked) if they fail.
type commit struct {
	writes []write
	after  []func()
	undo   func()
	done   chan error
}

// A checkpoint is due once the current file of the write-ahead log holds
// this many bytes, or its oldest record waited this long; History and
// Aux, which read the store, and Close ask for one at once. A batch of
// commits that writes storeBytes or more (a bulk change: a large submit,
// a batch of a removal) goes to bbolt directly.
const (
	checkpointBytes = 4 << 20
	checkpointAge   = time.Second
	storeBytes      = 1 << 20
)

// committer writes commits in the order they were queued, as many as are
// waiting in one record of the write-ahead log (group commit: one sync
// for all), acknowledges them, and later puts the records of a whole file
// of the log into bbolt in one transaction (a checkpoint, run by its own
// goroutine while the next records go to the log's other file). An
// acknowledged change is thus durable after one sync of space the log
// wrote ahead, and bbolt's two syncs and its pages are shared by
// thousands of changes; Open puts what the log holds beyond the last
// checkpoint into bbolt before it loads the queue.
//
// A write to the log that fails (a full disk) fails its commits and every
// commit queued behind them, whose changes memory already shows on top of
// the failed ones: rollback undoes them all, newest first, with the
// queue locked, so that memory again shows what the file holds. The
// committer goes on: the next commit tries again. A checkpoint that fails
// is tried again while the log keeps the changes.
type committer struct {
	db       *bolt.DB
	log      *wal.Log
	mu       sync.Mutex
	cond     *sync.Cond
	pending  []*commit
	closing  bool
	failed   error // the last write's error, nil once one succeeds
	stopped  chan struct{}
	rollback func(take func() []*commit)
	// fault, when set, is asked before each write to the log; its error
	// fails the write as a write error would. checkpointFault is the same
	// for each checkpoint.
	fault, checkpointFault func() error
	// checkpointBytes is checkpointBytes, but for tests.
	checkpointBytes int64
	// retain bounds the history: a checkpoint that makes it longer drops
	// the oldest entries.
	retain uint64
	// txs and changes count the writes to the log and the changes in
	// them, failures the writes that failed; checkpointsDone and
	// checkpointsFailed count the checkpoints' tries.
	txs, changes, failures             atomic.Int64
	checkpointsDone, checkpointsFailed atomic.Int64
	// queued counts the commits enqueued, written those written (or
	// failed); flushed is signalled as written or applied grows.
	queued, written uint64
	flushed         *sync.Cond
	// holds counts the holds in force: no write starts meanwhile but
	// for a barrier.
	holds int

	// unapplied are the writes in the log's current file, in order;
	// applying is set while a checkpoint is under way, and applied counts
	// the commits written that bbolt holds (or that failed).
	unapplied [][]write
	applying  bool
	applied   uint64
	// want is the count of written commits a barrier waits to see
	// applied; aged is set once the oldest unapplied write waited
	// checkpointAge; applyErr is why the last checkpoint failed, gaveUp
	// set once one was given up on closing.
	want     uint64
	aged     bool
	age      *time.Timer
	applyErr error
	gaveUp   bool
	// checkpoints hands a checkpoint to its goroutine; quit is closed
	// when closing starts.
	checkpoints chan checkpoint
	quit        chan struct{}
}

// checkpoint is the writes of one file of the log, the sequence number of
// its last record, and the count of commits written before it was taken.
type checkpoint struct {
	writes  [][]write
	last    uint64
	through uint64
}

// newCommitter starts a committer; rollback is called with the queue's
// lock taken, and calls take (which takes the commits queued behind the
// failed ones) inside it.
func newCommitter(db *bolt.DB, log *wal.Log, retain uint64, rollback func(take func() []*commit)) *committer {
	c := &committer{
		db: db, log: log, stopped: make(chan struct{}), retain: retain, rollback: rollback,
		checkpoints: make(chan checkpoint, 1), quit: make(chan struct{}), checkpointBytes: checkpointBytes,
	}
	c.cond = sync.NewCond(&c.mu)
	c.flushed = sync.NewCond(&c.mu)
	c.age = time.AfterFunc(time.Hour, c.aging)
	c.age.Stop()
	applied := make(chan struct{})
	go func() { defer close(applied); c.applier() }()
	go func() { defer close(c.stopped); c.run(); close(c.checkpoints); <-applied }()
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

// hold keeps the next write from starting until release is called (the
// one under way goes on), so that the commits queued meanwhile share it.
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

// barrier waits until every commit queued before it is in bbolt (or
// failed): a read of the store after it sees every change the memory
// already shows. The commits it waits for are written whatever holds are
// in force: a holder may be waiting for something the barrier's caller
// holds. It returns the error of a checkpoint that failed
// meanwhile, when the store may lack some.
func (c *committer) barrier() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	target := c.queued
	c.want = max(c.want, target)
	c.cond.Signal()
	for c.applied < target && !c.closing {
		if c.applyErr != nil {
			return fmt.Errorf("job queue: the store lacks the latest changes (they are in its log): %w", c.applyErr)
		}
		c.flushed.Wait()
	}
	return nil
}

// run writes the commits queued and starts the checkpoints due, until
// the committer closes with every commit written and none unapplied.
func (c *committer) run() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		switch {
		case len(c.pending) > 0 && (c.holds == 0 || c.closing || c.want > c.applied) && !c.behind():
			batch := c.pending
			c.pending = nil
			c.mu.Unlock()
			c.write(batch)
			c.mu.Lock()
		case c.checkpointDue():
			c.startCheckpoint()
		case c.closing && !c.applying:
			return
		default:
			c.cond.Wait()
		}
	}
}

// behind reports whether the log's current file holds a checkpoint's
// worth while a checkpoint is under way: the next write waits for it, so
// that changes written faster than bbolt takes them (a million jobs
// removed, in batches) hold no more memory than two checkpoints. A
// checkpoint that failed holds nothing back: the write then tries the
// disk itself. c.mu is held.
func (c *committer) behind() bool {
	return c.applying && c.applyErr == nil && c.log.Pending() >= c.checkpointBytes
}

// write appends a batch of commits to the log as one record, or puts a
// batch of storeBytes or more into bbolt directly, and acknowledges them.
func (c *committer) write(batch []*commit) {
	var err error
	if c.fault != nil {
		err = c.fault()
	}
	var size int64
	for _, cm := range batch {
		for _, w := range cm.writes {
			size += int64(len(w.key) + len(w.val) + 4)
		}
	}
	logged := size > 0 && size < min(storeBytes, c.checkpointBytes) // commits of hooks alone write nothing
	switch {
	case err != nil:
	case logged:
		_, err = c.log.Append(func(w io.Writer) error {
			for _, cm := range batch {
				if err := writeWrites(w, cm.writes); err != nil {
					return err
				}
			}
			return nil
		})
	case size > 0:
		err = c.writeStore(batch)
	}
	c.txs.Add(1)
	c.changes.Add(int64(len(batch)))
	if err != nil {
		err = fmt.Errorf("job queue: commit failed: %w", err)
		batch = c.fail(batch)
		c.failures.Add(1) // after: whoever sees it sees the queue undone
	}
	c.mu.Lock()
	c.failed = err
	if err == nil && logged {
		if len(c.unapplied) == 0 {
			c.age.Reset(checkpointAge)
		}
		for _, cm := range batch {
			c.unapplied = append(c.unapplied, cm.writes)
		}
	}
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
	c.settle()
	c.mu.Unlock()
	c.flushed.Broadcast()
}

// writeStore puts a large batch into bbolt in one transaction of its own
// once every change before it is there: written once rather than to the
// log and again at a checkpoint, and held in memory no longer.
func (c *committer) writeStore(batch []*commit) error {
	c.mu.Lock()
	for c.applying || len(c.unapplied) > 0 {
		if c.applyErr != nil {
			err := c.applyErr
			c.mu.Unlock()
			return fmt.Errorf("a checkpoint before it: %w", err)
		}
		if !c.applying {
			c.startCheckpoint()
		}
		c.flushed.Wait()
	}
	c.mu.Unlock()
	return c.db.Update(func(tx *bolt.Tx) error {
		writes := make([][]write, len(batch))
		for i, cm := range batch {
			writes[i] = cm.writes
		}
		return apply(tx, writes, c.retain, 0)
	})
}

// settle counts every written commit applied when none is waiting for a
// checkpoint; c.mu is held.
func (c *committer) settle() {
	if len(c.unapplied) == 0 && !c.applying {
		c.applied = c.written
	}
}

// checkpointDue reports whether a checkpoint is to start now; c.mu is
// held.
func (c *committer) checkpointDue() bool {
	if c.applying || c.gaveUp || len(c.unapplied) == 0 {
		return false
	}
	return c.closing || c.aged || c.want > c.applied || c.log.Pending() >= c.checkpointBytes
}

// startCheckpoint hands the writes of the log's current file to the
// checkpoint's goroutine and goes on in the other file, which the last
// checkpoint emptied; c.mu is held.
func (c *committer) startCheckpoint() {
	last := c.log.Rotate()
	c.checkpoints <- checkpoint{writes: c.unapplied, last: last, through: c.written}
	c.unapplied, c.aged, c.applying = nil, false, true
}

// aging marks the oldest unapplied write as having waited long enough.
func (c *committer) aging() {
	c.mu.Lock()
	c.aged = true
	c.mu.Unlock()
	c.cond.Signal()
}

// applier puts each checkpoint into bbolt, trying again every second
// while it fails (a full disk). On closing it gives a failing one up, and
// no checkpoint follows it: the log keeps its writes and those after it
// for the next Open.
func (c *committer) applier() {
	for ck := range c.checkpoints {
		for {
			err := c.db.Update(func(tx *bolt.Tx) error {
				if c.checkpointFault != nil {
					if err := c.checkpointFault(); err != nil {
						return err
					}
				}
				return apply(tx, ck.writes, c.retain, ck.last)
			})
			if err == nil {
				c.checkpointsDone.Add(1)
			} else {
				c.checkpointsFailed.Add(1)
			}
			c.mu.Lock()
			c.applyErr = err
			switch {
			case err == nil:
				c.applying, c.applied = false, ck.through
				c.settle()
			case c.closing:
				c.applying, c.gaveUp = false, true
			}
			done := !c.applying
			c.mu.Unlock()
			c.flushed.Broadcast()
			c.cond.Signal()
			if done {
				break
			}
			select {
			case <-time.After(time.Second):
			case <-c.quit:
			}
		}
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

// close writes what is queued, puts it into bbolt, and stops.
func (c *committer) close() {
	c.mu.Lock()
	if !c.closing {
		c.closing = true
		close(c.quit)
	}
	c.mu.Unlock()
	c.cond.Signal()
	c.flushed.Broadcast()
	<-c.stopped
	c.age.Stop()
}
