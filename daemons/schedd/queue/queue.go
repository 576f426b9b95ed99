package queue

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kite-sched/kite/internal/attr"
)

// Options configure a queue.
type Options struct {
	// HistoryRetain bounds the number of finished jobs kept in the
	// history; the oldest go first. 0 keeps them all.
	HistoryRetain int
	// NoSync skips fsync on commit: for benchmarks of everything else.
	NoSync bool
	// LockTimeout is how long Open waits for another process holding the
	// store to let go (default 2s).
	LockTimeout time.Duration
	// Fault, when set, is asked before each commit's writes: an error
	// fails the commit as a write error would (tests of a full disk).
	Fault func() error
}

// Queue is the job queue: in memory for queries, in bbolt for durability.
type Queue struct {
	mu       sync.RWMutex
	stager   stager    // writers waiting for mu, staged in groups (stage.go)
	locks    lockCheck // who holds mu, in race builds (lockcheck_race.go)
	db       *bolt.DB
	cm       *committer
	clusters map[int64]*Cluster
	order    []*Cluster // ascending ids; may hold clusters that emptied
	dead     int        // emptied clusters still in order
	next     int64      // the next cluster id to hand out
	reserved map[int64]string
	owners   map[string]*Counts // by Owner
	subs     map[string]*Counts // by Submitter
	// idle holds, by Submitter, the clusters that have idle jobs in the
	// order a claim's next job is looked for: the walk visits them, not
	// the whole queue, and mostly only the first.
	idle     map[string][]*Cluster
	histNext uint64
	changed  chan struct{}
	hook     func(tx *Tx) error // SetHook
}

// Counts are numbers of jobs by status.
type Counts struct {
	Idle, Running, Held, Removed, Completed, Suspended, Other int
}

// Total is the number of jobs counted.
func (c Counts) Total() int {
	return c.Idle + c.Running + c.Held + c.Removed + c.Completed + c.Suspended + c.Other
}

func (c *Counts) add(status int64, n int) {
	switch status {
	case attr.Idle:
		c.Idle += n
	case attr.Running:
		c.Running += n
	case attr.Held:
		c.Held += n
	case attr.Removed:
		c.Removed += n
	case attr.Completed:
		c.Completed += n
	case attr.Suspended:
		c.Suspended += n
	default:
		c.Other += n
	}
}

// Open opens (or creates) the queue stored at path and loads it.
func Open(path string, o Options) (*Queue, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout: cmp.Or(o.LockTimeout, 2*time.Second),
		// Room to grow without remapping, which waits for readers.
		InitialMmapSize: 1 << 30,
		NoFreelistSync:  true,
		FreelistType:    bolt.FreelistMapType,
	})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("job queue %s: in use by another schedd", path)
		}
		return nil, fmt.Errorf("job queue %s: %w", path, err)
	}
	db.NoSync = o.NoSync
	retain := uint64(max(o.HistoryRetain, 0))
	log, err := openLog(db, path, retain, o.NoSync)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("job queue %s: %w", path, err)
	}
	q := &Queue{
		db: db, clusters: map[int64]*Cluster{}, reserved: map[int64]string{},
		owners: map[string]*Counts{}, subs: map[string]*Counts{}, idle: map[string][]*Cluster{}, next: 1, changed: make(chan struct{}, 1),
	}
	if err := q.load(); err != nil {
		log.Close()
		db.Close()
		return nil, fmt.Errorf("job queue %s: %w", path, err)
	}
	q.cm = newCommitter(db, log, retain, q.rollback)
	q.cm.fault = o.Fault
	return q, nil
}

// Close writes what is pending and closes the store.
func (q *Queue) Close() error {
	q.cm.close()
	return errors.Join(q.cm.log.Close(), q.db.Close())
}

// Changed is signalled (coalesced) after changes that alter job counts or
// jobs' states.
func (q *Queue) Changed() <-chan struct{} { return q.changed }

func (q *Queue) signal() {
	select {
	case q.changed <- struct{}{}:
	default:
	}
}

// Read calls fn with the queue locked for reading.
func (q *Queue) Read(fn func(r *Reader)) {
	q.locks.enter("Read") // (before the lock: a misuse leaves it as it was)
	defer q.locks.exit()
	q.mu.RLock()
	defer q.mu.RUnlock()
	fn(&Reader{q: q})
}

// Reader reads the queue under its lock.
type Reader struct{ q *Queue }

// Job returns the job with the id, or nil.
func (r *Reader) Job(id JobID) *Job { return r.q.job(id) }

// Cluster returns the cluster with the id, or nil.
func (r *Reader) Cluster(id int64) *Cluster { return r.q.clusters[id] }

// Clusters yields the clusters in id order.
func (r *Reader) Clusters(yield func(*Cluster) bool) {
	for _, c := range r.q.order {
		if c.live > 0 && !yield(c) {
			return
		}
	}
}

// Jobs yields the jobs of a cluster in proc order.
func (c *Cluster) Jobs(yield func(*Job) bool) {
	for _, j := range c.procs[c.first:] {
		if j != nil && !yield(j) {
			return
		}
	}
}

// JobsFrom yields the jobs of a cluster from proc id on, in proc order: a
// walk through a large cluster in several transactions resumes where it
// stopped.
func (c *Cluster) JobsFrom(proc int64) iter.Seq[*Job] {
	return func(yield func(*Job) bool) {
		start := max(int64(c.first), min(max(proc, 0), int64(len(c.procs))))
		for _, j := range c.procs[start:] {
			if j != nil && !yield(j) {
				return
			}
		}
	}
}

// Len returns the number of jobs in the cluster.
func (c *Cluster) Len() int { return c.live }

// Counts returns the numbers of jobs by status, per owner and in all.
func (r *Reader) Counts() (map[string]Counts, Counts) { return counts(r.q.owners) }

// SubmitterCounts returns the numbers of jobs by status, per submitter
// (accounting group or owner) and in all.
func (r *Reader) SubmitterCounts() (map[string]Counts, Counts) { return counts(r.q.subs) }

func counts(m map[string]*Counts) (map[string]Counts, Counts) {
	per := make(map[string]Counts, len(m))
	var all Counts
	for o, c := range m {
		per[o] = *c
		all.Idle += c.Idle
		all.Running += c.Running
		all.Held += c.Held
		all.Removed += c.Removed
		all.Completed += c.Completed
		all.Suspended += c.Suspended
		all.Other += c.Other
	}
	return per, all
}

func (q *Queue) job(id JobID) *Job {
	c := q.clusters[id.Cluster]
	if c == nil || id.Proc < 0 || id.Proc >= int64(len(c.procs)) {
		return nil
	}
	return c.procs[id.Proc]
}

// NewCluster hands out a cluster id for owner's next submit, durably: an
// id is never handed out twice.
func (q *Queue) NewCluster(owner string) (int64, error) {
	var id int64
	err := q.Update(func(tx *Tx) error {
		id = tx.NewCluster(owner)
		return nil
	})
	return id, err
}

// NewCluster hands out a cluster id for owner's next submit in a
// transaction (the id is durable with it): one that queues jobs later
// need not commit on its own.
func (tx *Tx) NewCluster(owner string) int64 {
	q := tx.q
	id := q.next
	q.next++
	q.reserved[id] = owner
	tx.OnRollback(func() { q.next--; delete(q.reserved, id) })
	tx.writes = append(tx.writes, write{bucketMeta, keyNextCluster, u64(uint64(q.next))})
	return id
}

// Reserved reports whether id was handed out and not yet used, and to
// whom ("" when it was handed out before a restart).
func (q *Queue) reservation(id int64) (string, bool) {
	if _, used := q.clusters[id]; used || id < 1 || id >= q.next {
		return "", false
	}
	return q.reserved[id], true
}

// addCluster puts a new cluster in memory.
func (q *Queue) addCluster(c *Cluster) {
	q.clusters[c.ID] = c
	delete(q.reserved, c.ID)
	n := len(q.order)
	if n == 0 || q.order[n-1].ID < c.ID {
		q.order = append(q.order, c)
		return
	}
	i := sort.Search(n, func(i int) bool { return q.order[i].ID > c.ID })
	q.order = append(q.order, nil)
	copy(q.order[i+1:], q.order[i:])
	q.order[i] = c
}

// dropCluster forgets an emptied cluster.
func (q *Queue) dropCluster(c *Cluster) {
	delete(q.clusters, c.ID)
	q.dead++
	if q.dead > 64 && q.dead > len(q.order)/2 {
		kept := q.order[:0]
		for _, o := range q.order {
			if o.live > 0 || o.open {
				kept = append(kept, o)
			}
		}
		clear(q.order[len(kept):])
		q.order, q.dead = kept, 0
	}
}

// orderIndex finds the cluster with the id in the order, or where it
// would go.
func (q *Queue) orderIndex(id int64) (int, bool) {
	i := sort.Search(len(q.order), func(i int) bool { return q.order[i].ID >= id })
	return i, i < len(q.order) && q.order[i].ID == id
}

// removeCluster takes back a cluster whose submit failed to commit.
func (q *Queue) removeCluster(c *Cluster) {
	delete(q.clusters, c.ID)
	if i, ok := q.orderIndex(c.ID); ok {
		q.order = slices.Delete(q.order, i, i+1)
	}
}

// undropCluster puts back a cluster whose emptying failed to commit: it
// may still be in the order, counted dead, or compacted away.
func (q *Queue) undropCluster(c *Cluster) {
	q.clusters[c.ID] = c
	i, ok := q.orderIndex(c.ID)
	if ok {
		q.dead--
		return
	}
	q.order = slices.Insert(q.order, i, c)
}

// count counts n jobs of a cluster with a status, by owner and by
// submitter.
func (q *Queue) count(cl *Cluster, status int64, n int) {
	cl.counts.add(status, n)
	if status == attr.Idle {
		q.countIdle(cl)
		if n > 0 {
			cl.idleFrom.Store(0) // a job became idle: IdleJobs looks again
		}
	}
	countIn(q.owners, cl.Owner, status, n)
	countIn(q.subs, cl.Submitter, status, n)
}

// countIdle keeps a cluster in its submitter's idle list while it has
// idle jobs. The list is sorted by JobPrio, highest first, then by id;
// both never change, so a binary search finds a cluster's place.
func (q *Queue) countIdle(cl *Cluster) {
	list := q.idle[cl.Submitter]
	i, found := slices.BinarySearchFunc(list, cl, idleOrder)
	switch {
	case cl.counts.Idle > 0 && !found:
		q.idle[cl.Submitter] = slices.Insert(list, i, cl)
	case cl.counts.Idle == 0 && found:
		list = slices.Delete(list, i, i+1)
		if len(list) == 0 {
			delete(q.idle, cl.Submitter)
		} else {
			q.idle[cl.Submitter] = list
		}
	}
}

// idleOrder orders clusters by JobPrio, highest first, then by id.
func idleOrder(a, b *Cluster) int {
	return cmp.Or(cmp.Compare(b.prio, a.prio), cmp.Compare(a.ID, b.ID))
}

// IdleClusters yields a submitter's clusters that have idle jobs by
// JobPrio (the submit file's priority), highest first, then by id: the
// order in which a claim takes its owner's next job.
func (r *Reader) IdleClusters(submitter string) iter.Seq[*Cluster] {
	return func(yield func(*Cluster) bool) {
		for _, c := range r.q.idle[submitter] {
			if !yield(c) {
				return
			}
		}
	}
}

func countIn(m map[string]*Counts, key string, status int64, n int) {
	c := m[key]
	if c == nil {
		c = &Counts{}
		m[key] = c
	}
	c.add(status, n)
	if c.Total() == 0 {
		delete(m, key)
	}
}

// Stats counts the queue's commits: writes to its log, and the changes
// (Updates) they carried. Many changes per write is group commit at
// work.
func (q *Queue) Stats() (transactions, changes int64) {
	return q.cm.txs.Load(), q.cm.changes.Load()
}

// Checkpoints counts the checkpoints done since the queue opened, and
// the tries that failed (a full disk: the log keeps the changes, and the
// checkpoint is tried again every second).
func (q *Queue) Checkpoints() (done, failed int64) {
	return q.cm.checkpointsDone.Load(), q.cm.checkpointsFailed.Load()
}

// Failures counts the writes that failed since the queue opened:
// whoever watches it learns that changes were refused (a full disk). A
// failure is counted once its changes are undone in memory, so that a
// reader that has seen the count sees the queue as the file holds it
// (the schedd's settling of orphaned jobs relies on it).
func (q *Queue) Failures() int64 { return q.cm.failures.Load() }

// Reservation reports whether cluster id was handed out and not yet used,
// and to whom ("" when it was handed out before a restart).
func (q *Queue) Reservation(id int64) (string, bool) { return q.reservation(id) }

// rollback undoes, with the queue locked, the commits a failed
// transaction took down (undo takes them): the queue shows again what the
// file holds, and goes on taking changes.
func (q *Queue) rollback(undo func() []*commit) {
	q.locks.enter("a rollback")
	q.mu.Lock()
	undo()
	q.mu.Unlock()
	q.locks.exit()
	q.signal()
}

// Err returns why the last commit failed (a full disk), or nil once one
// succeeded: the queue then refuses changes one by one, and reads go on.
func (q *Queue) Err() error {
	q.cm.mu.Lock()
	defer q.cm.mu.Unlock()
	return q.cm.failed
}
