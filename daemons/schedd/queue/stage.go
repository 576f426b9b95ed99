package queue

import "sync"

// Writers take the queue's lock in groups. The Stage calls that find
// another under way wait in line, and whoever stages next stages every
// call waiting then (up to maxGroup), in the order they came, in one turn
// of the lock, and wakes them with their results: one lock handoff for a
// group instead of one per writer (flat combining).
//
// A handoff is not free: the next writer must be scheduled before the
// lock does any work again, and a holder that the scheduler or the
// garbage collector sets aside holds up every writer behind it. At
// 10 000 hosts in one process (docs/scale.md) the schedd's job updates
// (a job's start, its end with the next job on its claim) waited about
// 2 s each for the lock, hundreds at a time, while its holders used
// about 40 microseconds of CPU a turn. Grouped, the writers waiting at
// once cost one handoff and one holder, and they run again together.
//
// Each call's function still runs alone with the queue locked, in its own
// transaction, exactly as if the calls had come one after the other: a
// function that fails changes nothing and leaves the others in its group
// alone, the commits follow the order of the changes, and each caller's
// wait returns once its own change is durable. A function's panic is
// raised again in its own caller.

// maxGroup bounds the calls one turn of the lock stages, so that readers
// (the walk for a claim's next job, queries) wait for at most a group.
const maxGroup = 128

// stager lines up the Stage calls that wait for the queue's lock.
type stager struct {
	mu      sync.Mutex
	waiting []*staging
	leading bool // a call stages a group now; the waiting wait for it
	groups  int64
}

// staging is one Stage call: its function, and once staged its result.
type staging struct {
	fn       func(tx *Tx) error
	wait     func() error
	err      error
	panicked any
	// turn tells a waiting call that it was staged (true) or that it
	// leads the next group (false).
	turn chan bool
}

// Stage is Update without the wait: it runs fn and queues its changes,
// and wait returns once they are durable (or their commit failed, undoing
// them and every change queued behind them). A caller that changes a
// large set in batches stages the next batch while the last one commits.
func (q *Queue) Stage(fn func(tx *Tx) error) (wait func() error, err error) {
	q.locks.waits("Update or Stage (which wait for the lock)")
	st := &staging{fn: fn, turn: make(chan bool, 1)}
	g := &q.stager
	g.mu.Lock()
	g.waiting = append(g.waiting, st)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if lead || !<-st.turn {
		q.stageGroup(st)
	}
	if st.panicked != nil {
		panic(st.panicked)
	}
	return st.wait, st.err
}

// stageGroup stages the calls waiting, the leader's own (first in line)
// among them, in one turn of the lock; then it wakes its group and
// hands the lead to the first call that came meanwhile.
func (q *Queue) stageGroup(leader *staging) {
	g := &q.stager
	g.mu.Lock()
	n := min(len(g.waiting), maxGroup)
	group := make([]*staging, n)
	copy(group, g.waiting)
	g.waiting = append(g.waiting[:0], g.waiting[n:]...)
	g.groups++
	g.mu.Unlock()

	q.locks.enter("an Update")
	q.mu.Lock()
	for _, st := range group {
		q.stageOne(st)
	}
	q.mu.Unlock()
	q.locks.exit()

	g.mu.Lock()
	var next *staging
	if len(g.waiting) > 0 {
		next = g.waiting[0]
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	for _, st := range group {
		if st != leader {
			st.turn <- true
		}
	}
	if next != nil {
		// Last, so that it runs next: each goroutine woken goes ahead
		// of those woken before it.
		next.turn <- false
	}
}

// stageOne runs one call's function, with the queue locked; a panic is
// kept for its caller.
func (q *Queue) stageOne(st *staging) {
	defer func() {
		if p := recover(); p != nil {
			st.wait, st.err, st.panicked = nil, nil, p
		}
	}()
	st.wait, st.err = q.stageLocked(st.fn)
}

// stageLocked runs fn and queues its changes; the queue is locked.
func (q *Queue) stageLocked(fn func(tx *Tx) error) (wait func() error, err error) {
	tx := &Tx{q: q}
	if err := fn(tx); err != nil {
		return nil, err
	}
	if err := q.runHook(tx); err != nil {
		tx.rollback() // what fn and the hook changed beside the queue
		return nil, err
	}
	cm := tx.install()
	if cm == nil {
		return func() error { return nil }, nil
	}
	q.cm.enqueue(cm) // under the lock: commits follow the order of changes
	return func() error {
		q.locks.waits("an Update's wait for its commit")
		err := <-cm.done
		if tx.signal {
			q.signal()
		}
		return err
	}, nil
}

// Hold keeps the queue from starting its next commit until release is
// called, so that the changes staged meanwhile share one: a caller that
// stages several changes at once (a startd's batch of job ends) holds the
// queue while it stages them, then waits for them all. The commit under
// way goes on; a caller must not wait for a commit (Update, or a Stage's
// wait) while it holds the queue, and must release it at once after its
// stages.
func (q *Queue) Hold() (release func()) { return q.cm.hold() }

// Groups counts the turns of the lock that staged changes (each staged
// one or more Stage calls): fewer than the changes when writers wait at
// once.
func (q *Queue) Groups() int64 {
	q.stager.mu.Lock()
	defer q.stager.mu.Unlock()
	return q.stager.groups
}
