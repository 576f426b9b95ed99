package startd

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kite-sched/kite/internal/wire"
)

// A job's last event is sent to its schedd at once when no other is on
// its way there; the ends that come while one is (other slots' short
// jobs) wait for its answer and then go together, in one request
// (wire.PathJobUpdates) that the schedd takes in one commit. A startd
// whose slots run short jobs thus costs its schedd one exchange and one
// commit for several ends rather than one each. On 8 slots of /bin/true
// jobs that is 3 ends a commit rather than 2.3 to 2.7, with a tenth more
// jobs a second for a tenth less CPU each; letting two requests be in
// flight made them smaller (2 ends) and gained nothing (docs/scale.md,
// "Job ends together"). An end that a request did not deliver (the schedd
// could not be reached, or was busy) is sent again alone, with the
// patience of any job event (scheddClient.report).

// endBatches are the ends on their way to each schedd: a schedd is in
// to while a request to it is in flight, with the ends that wait for it.
type endBatches struct {
	mu sync.Mutex
	to map[endTarget][]*pendingEnd
}

// endTarget is a schedd, in its pool.
type endTarget struct{ pool, addr string }

// pendingEnd is a job's last event on its way.
type pendingEnd struct {
	u   wire.JobUpdate
	res *wire.JobUpdateResult
	// done is signalled when the end's outcome is known, or when it is to
	// send the next request (lead, with the ends in batch, itself first).
	done  chan struct{}
	lead  bool
	batch []*pendingEnd
	err   error
	again bool // not delivered: to be sent alone
}

// reportEnd sends a job's last event, together with the others for the
// same schedd that come while a request to it is in flight; the answer
// goes to res.
func (c *scheddClient) reportEnd(ctx context.Context, u wire.JobUpdate, res *wire.JobUpdateResult) error {
	e := &c.s.ends
	key := endTarget{pool: c.pool, addr: c.addr}
	p := &pendingEnd{u: u, res: res}
	e.mu.Lock()
	if waiting, busy := e.to[key]; busy {
		p.done = make(chan struct{}, 1)
		e.to[key] = append(waiting, p)
		e.mu.Unlock()
		<-p.done
	} else {
		if e.to == nil {
			e.to = map[endTarget][]*pendingEnd{}
		}
		e.to[key] = nil
		p.lead, p.batch = true, []*pendingEnd{p}
		e.mu.Unlock()
	}
	if p.lead {
		c.deliver(ctx, p.batch)
		e.handOn(key, p)
	}
	if p.again {
		return c.report(ctx, u, res)
	}
	return p.err
}

// handOn ends lead's request: the ends that came meanwhile (as many as a
// request takes) go to the first of them to send, and every other end of
// lead's batch learns its outcome.
func (e *endBatches) handOn(key endTarget, lead *pendingEnd) {
	e.mu.Lock()
	waiting := e.to[key]
	next := waiting[:min(len(waiting), wire.MaxJobUpdates)]
	if len(next) == 0 {
		delete(e.to, key)
	} else {
		e.to[key] = waiting[len(next):]
	}
	e.mu.Unlock()
	if len(next) > 0 {
		next[0].lead, next[0].batch = true, next
		next[0].done <- struct{}{}
	}
	for _, p := range lead.batch[1:] {
		p.done <- struct{}{}
	}
}

// deliver sends ends in one request, alone when there is one, once, and
// sets each one's outcome: its answer, its error, or again.
func (c *scheddClient) deliver(ctx context.Context, batch []*pendingEnd) {
	if c.s.crashed.Load() {
		for _, p := range batch {
			p.err = errKilled // nothing leaves a dead machine
		}
		return
	}
	if len(batch) == 1 {
		p := batch[0]
		p.err = c.try(ctx, wire.PathJobUpdate, p.u, p.res)
		p.again = p.err != nil && !final(p.err)
		return
	}
	req := wire.JobUpdates{Updates: make([]wire.JobUpdate, len(batch))}
	for i, p := range batch {
		req.Updates[i] = p.u
	}
	var out wire.JobUpdatesResult
	err := c.try(ctx, wire.PathJobUpdates, req, &out)
	if err == nil && len(out.Results) != len(batch) {
		err = fmt.Errorf("%d outcomes for %d job ends", len(out.Results), len(batch))
	}
	if err != nil {
		c.s.log.Info("sending job ends one by one", "schedd", c.addr, "ends", len(batch), "err", err)
	}
	for i, p := range batch {
		if err != nil {
			p.again = true // the schedd away, or one without PathJobUpdates
			continue
		}
		o := &out.Results[i]
		p.res.Next = o.Next
		p.err = o.Err()
		p.again = p.err != nil && !final(p.err)
	}
}

// final reports whether a job event's error is the schedd's last word: it
// refused the event (it no longer knows the claim, or the event is wrong)
// rather than being away or busy.
func final(err error) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Status < 500
}
