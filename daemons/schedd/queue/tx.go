package queue

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// Update runs fn with the queue locked and commits what it changed: the
// changes are visible in memory when Update's lock is released, and
// Update returns once they are durable. When fn returns an error nothing
// changes. Concurrent Updates share commits (one fsync for many).
func (q *Queue) Update(fn func(tx *Tx) error) error {
	wait, err := q.Stage(fn)
	if err != nil {
		return err
	}
	return wait()
}

// Tx stages the changes of one Update.
type Tx struct {
	q       *Queue
	own     map[*Job]*classad.Ad // staged own ads of changed jobs
	touched []*Job
	leaving map[*Job]bool
	added   []*Cluster
	raws    map[*Cluster][][]byte
	writes  []write
	after   []func()
	undo    []func() // reverse the changes to memory, last first
	grown   []growth // procs added to existing clusters (grow.go)
	opens   []openChange
	signal  bool
	// histMeta is the index in writes of the history's next key, written
	// once per transaction however many jobs leave (0: none yet; the
	// first write of a transaction is never it).
	histMeta int
	// lits are literals allocated for the transaction's sets, not handed
	// out yet; litBlock is the size of the last block (literal).
	lits     []ast.Literal
	litBlock int
}

// Job returns the job with the id, or nil.
func (tx *Tx) Job(id JobID) *Job {
	j := tx.q.job(id)
	if j != nil && tx.leaving[j] {
		return nil
	}
	return j
}

// Cluster returns the cluster with the id, or nil.
func (tx *Tx) Cluster(id int64) *Cluster { return tx.q.clusters[id] }

// Reader reads the rest of the queue.
func (tx *Tx) Reader() *Reader { return &Reader{q: tx.q} }

// View returns the job as staged so far.
func (tx *Tx) View(j *Job) View {
	v := j.View()
	if own, ok := tx.own[j]; ok {
		v.Own = own
		v.Status = statusOf(v.Cluster, own)
	}
	return v
}

// Get returns the staged value of a job's attribute.
func (tx *Tx) Get(j *Job, name string) (ast.Expr, bool) {
	v := tx.View(j)
	return v.Lookup(name)
}

// Status returns the job's staged JobStatus.
func (tx *Tx) Status(j *Job) int64 {
	v := tx.View(j)
	return v.Status
}

// Ad returns the job's staged whole ad, fresh, for evaluation.
func (tx *Tx) Ad(j *Job) *classad.Ad {
	v := tx.View(j)
	return v.Ad()
}

func (tx *Tx) ownOf(j *Job) *classad.Ad {
	if own, ok := tx.own[j]; ok {
		return own
	}
	if tx.own == nil {
		tx.own = map[*Job]*classad.Ad{}
	}
	own := j.own.Clone()
	tx.own[j] = own
	tx.touched = append(tx.touched, j)
	return own
}

// Set sets a job's attribute.
func (tx *Tx) Set(j *Job, name string, e ast.Expr) { tx.ownOf(j).Set(name, e) }

// SetInt, SetString, SetBool and SetReal set literal attributes.
func (tx *Tx) SetInt(j *Job, name string, n int64) {
	tx.Set(j, name, tx.literal(ast.Literal{At: ast.NoPos, Kind: ast.IntLit, Int: n}))
}
func (tx *Tx) SetString(j *Job, name string, s string) {
	tx.Set(j, name, tx.literal(ast.Literal{At: ast.NoPos, Kind: ast.StringLit, Str: s}))
}
func (tx *Tx) SetBool(j *Job, name string, b bool) {
	tx.Set(j, name, tx.literal(ast.Literal{At: ast.NoPos, Kind: ast.BoolLit, Bool: b}))
}
func (tx *Tx) SetReal(j *Job, name string, f float64) {
	tx.Set(j, name, tx.literal(ast.Literal{At: ast.NoPos, Kind: ast.RealLit, Real: f}))
}

// maxLiteralBlock bounds the literals a transaction allocates at once.
const maxLiteralBlock = 32

// literal returns a copy of l allocated with the transaction's other
// literals: in blocks of 1, 2, 4, ... maxLiteralBlock, so that a job's
// end, which sets some forty, allocates six times rather than forty; what
// goes unused is part of the last block, at most about half the whole.
func (tx *Tx) literal(l ast.Literal) *ast.Literal {
	if len(tx.lits) == 0 {
		tx.litBlock = min(max(2*tx.litBlock, 1), maxLiteralBlock)
		tx.lits = make([]ast.Literal, tx.litBlock)
	}
	p := &tx.lits[0]
	*p = l
	tx.lits = tx.lits[1:]
	return p
}

// Delete removes a job's attribute.
func (tx *Tx) Delete(j *Job, name string) {
	own := tx.ownOf(j)
	if j.Cluster.ad.Index(name) >= 0 {
		own.Set(name, ast.Undefined())
		return
	}
	own.Delete(name)
}

// Leave takes the job out of the queue into the history, with its staged
// ad as it stands at the end of the transaction.
func (tx *Tx) Leave(j *Job) {
	if tx.leaving == nil {
		tx.leaving = map[*Job]bool{}
	}
	tx.ownOf(j)
	tx.leaving[j] = true
}

// AfterCommit runs f once the transaction is durable, in commit order,
// before Update returns (on the queue's commit goroutine: f must be quick
// and must not call Update).
func (tx *Tx) AfterCommit(f func()) { tx.after = append(tx.after, f) }

// OnRollback runs f, with the queue locked, if the transaction's commit
// fails: f undoes what the transaction's function changed in memory beside
// the queue, so that memory again shows only what is durable. Rollbacks
// run in the reverse order of the changes.
func (tx *Tx) OnRollback(f func()) { tx.undo = append(tx.undo, f) }

// Submit adds a cluster whose id was handed out by NewCluster. ad holds
// the shared attributes (Owner among them), procs each proc's own (ProcId
// among them, 0 to n-1). raws, when not nil, are procs as JSON, stored as
// they are. The caller has checked the ads. It returns the new cluster,
// whose jobs the rest of the transaction may read.
func (tx *Tx) Submit(id int64, owner string, ad *classad.Ad, procs []*classad.Ad, raws [][]byte) (*Cluster, error) {
	q := tx.q
	if _, ok := q.reservation(id); !ok {
		return nil, fmt.Errorf("cluster %d was not handed out by this schedd, or was used already", id)
	}
	for _, c := range tx.added {
		if c.ID == id {
			return nil, fmt.Errorf("cluster %d submitted twice", id)
		}
	}
	if len(procs) == 0 {
		return nil, errors.New("a cluster needs at least one job")
	}
	c := newCluster(id, owner, ad)
	c.procs, c.live = make([]*Job, len(procs)), len(procs)
	for i, own := range procs {
		c.procs[i] = &Job{ID: JobID{id, int64(i)}, Cluster: c, own: own, status: statusOf(ad, own)}
	}
	tx.added = append(tx.added, c)
	if raws != nil {
		if tx.raws == nil {
			tx.raws = map[*Cluster][][]byte{}
		}
		tx.raws[c] = raws
	}
	return c, nil
}

// install applies the staged changes to memory and returns their writes.
func (tx *Tx) install() *commit {
	q := tx.q
	for _, c := range tx.added {
		tx.installCluster(c)
	}
	tx.installGrowth()
	var over []int
	for _, j := range tx.touched {
		own := tx.own[j]
		old, oldOwn := j.status, j.own
		j.own, j.status = own, statusOf(j.Cluster.ad, own)
		if tx.leaving[j] {
			tx.leave(j, old, &over)
			tx.undo = append(tx.undo, func() { j.own, j.status = oldOwn, old })
			continue
		}
		tx.undo = append(tx.undo, func() { tx.unchange(j, oldOwn, old) })
		if old != j.status {
			q.count(j.Cluster, old, -1)
			q.count(j.Cluster, j.status, 1)
			tx.signal = true
		}
		// Into room enough for most ads (the store copies it at the commit).
		val := classad.AppendJSON(make([]byte, 0, 16+64*own.Len()), own, false)
		tx.writes = append(tx.writes, write{bucketProcs, procKey(j.ID), val})
	}
	tx.installClosed()
	if len(tx.writes) == 0 && len(tx.after) == 0 {
		return nil
	}
	return &commit{writes: tx.writes, after: tx.after, undo: tx.rollback, done: make(chan error, 1)}
}

// rollback undoes install's changes to memory (and those the
// transaction's function asked for), last first: the commit failed.
func (tx *Tx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		tx.undo[i]()
	}
}

// unchange puts back a job's ad and status from before a failed commit.
func (tx *Tx) unchange(j *Job, own *classad.Ad, status int64) {
	if status != j.status {
		tx.q.count(j.Cluster, j.status, -1)
		tx.q.count(j.Cluster, status, 1)
	}
	j.own, j.status = own, status
}

func (tx *Tx) installCluster(c *Cluster) {
	q := tx.q
	reservedBy := q.reserved[c.ID]
	q.addCluster(c)
	tx.undo = append(tx.undo, func() {
		for _, j := range c.procs {
			q.count(c, j.status, -1)
		}
		q.removeCluster(c)
		q.reserved[c.ID] = reservedBy
	})
	tx.writes = slices.Grow(tx.writes, len(c.procs)+1)
	tx.writes = append(tx.writes, write{bucketClusters, clusterKey(c.ID), classad.AppendJSON(nil, c.ad, false)})
	raws := tx.raws[c]
	keys := make([]byte, 16*len(c.procs)) // one allocation for every key
	for i, j := range c.procs {
		q.count(c, j.status, 1)
		var val []byte
		if raws != nil {
			val = raws[i]
		} else {
			val = classad.AppendJSON(nil, j.own, false)
		}
		key := keys[16*i : 16*i+16 : 16*i+16]
		putProcKey(key, j.ID)
		tx.writes = append(tx.writes, write{bucketProcs, key, val})
	}
	tx.signal = true
}

// leave moves a job to the history.
func (tx *Tx) leave(j *Job, counted int64, over *[]int) {
	q := tx.q
	c := j.Cluster
	seq := q.histNext
	q.histNext++
	hist := appendHistoryJSON(nil, c, j.own, over)
	tx.writes = append(tx.writes,
		write{bucketProcs, procKey(j.ID), nil},
		write{bucketHistory, u64(seq), hist})
	if tx.histMeta == 0 {
		tx.histMeta = len(tx.writes)
		tx.writes = append(tx.writes, write{bucketMeta, keyHistoryNext, nil})
	}
	tx.writes[tx.histMeta].val = u64(q.histNext)
	c.procs[j.ID.Proc] = nil
	c.live--
	first := c.first
	for c.first < len(c.procs) && c.procs[c.first] == nil {
		c.first++ // jobs leave roughly in order: iteration skips them
	}
	q.count(c, counted, -1)
	dropped := c.live == 0 && !c.open
	if dropped {
		tx.writes = append(tx.writes, write{bucketClusters, clusterKey(c.ID), nil})
		q.dropCluster(c)
	}
	tx.undo = append(tx.undo, func() {
		if dropped {
			q.undropCluster(c)
		}
		c.procs[j.ID.Proc] = j
		c.live++
		c.first = first
		q.count(c, counted, 1)
		q.histNext--
	})
	tx.signal = true
}
