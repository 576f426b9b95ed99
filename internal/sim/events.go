package sim

// Event kinds, in the order events of the same instant are handled: what
// changes the pool first, then arrivals, then samples, and the cycle
// last, so that one cycle sees everything that happened at its instant.
const (
	evFinish      uint8 = iota // a job's run ends (a: job, gen: job.gen)
	evReplicaEnd               // a replica run ends (a: run, gen: its gen)
	evFail                     // a machine fails (a: machine, gen: failGen)
	evRepair                   // a failed machine is back
	evCrash                    // a machine crashes once
	evCrashRepair              // a crashed machine is back
	evOff                      // a machine switches off (schedule)
	evOn                       // a machine switches on (schedule)
	evDown                     // an explicit down interval begins
	evDownEnd                  // it ends
	evSpeed                    // a machine's load state changes (gen: loadGen)
	evRequeue                  // a lost job is idle again (a: job, gen: job.gen)
	evArrival                  // the next job arrives
	evSample                   // record the running-jobs series
	evCycle                    // a negotiation cycle
)

// event is one thing due at a virtual time.
type event struct {
	t    float64
	seq  uint64
	a    int32
	gen  uint32
	kind uint8
}

// eventHeap is a binary min-heap of events by time, kind, then the order
// they were scheduled in: the order is total, so runs repeat exactly.
type eventHeap struct {
	h   []event
	seq uint64
}

func (q *eventHeap) less(i, j int) bool {
	a, b := &q.h[i], &q.h[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

func (q *eventHeap) push(e event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	for i := len(q.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *eventHeap) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}

func (q *eventHeap) len() int { return len(q.h) }
