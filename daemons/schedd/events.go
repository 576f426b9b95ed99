package schedd

import (
	"time"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/transfer"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/userlog"
)

// eventBatch gathers the user log events of one queue transaction,
// formatted as they are added and written once the transaction commits, in
// commit order, one write per log file and owner. Each log is written as
// its job's owner: a log the owner could not write is not written.
type eventBatch struct {
	s     *Server
	f     userlog.Formatter
	bufs  map[logKey][]byte
	order []logKey
	hint  int
}

// logKey is one log file as one account writes it.
type logKey struct{ account, path string }

func (s *Server) newEvents() *eventBatch {
	return &eventBatch{s: s, f: userlog.Formatter{Options: s.events.Options}}
}

// sized expects n events (to size the buffer).
func (b *eventBatch) sized(n int) *eventBatch {
	b.hint = n
	return b
}

// add formats ev for the job's log, if it has one (UserLog), and for
// its DAG's node log, if it is a DAG's node job (DAGManNodesLog: as
// DAGMan's FILE.dag.nodes.log, every node job's events in one log).
func (b *eventBatch) add(v *queue.View, ev userlog.Event) {
	path := v.String(attr.UserLog)
	if path != "" {
		b.addTo(v, path, ev)
	}
	if nodes := v.String(attr.DAGManNodesLog); nodes != "" && nodes != path {
		b.addTo(v, nodes, ev)
	}
}

// addTo formats ev for one log.
func (b *eventBatch) addTo(v *queue.View, path string, ev userlog.Event) {
	key := logKey{transfer.Account(v), path}
	ev.Job = userlog.JobID{Cluster: v.ID.Cluster, Proc: v.ID.Proc}
	if ev.Time.IsZero() {
		ev.Time = b.s.now().Truncate(time.Second)
	}
	if b.bufs == nil {
		b.bufs = map[logKey][]byte{}
	}
	buf, ok := b.bufs[key]
	if !ok {
		b.order = append(b.order, key)
		buf = make([]byte, 0, max(b.hint*128, 1024)) // a terminated event is some 900 bytes
	}
	b.bufs[key] = b.f.Append(buf, &ev)
}

// after writes the events once tx commits. A log that cannot be written
// is the user's problem, not the queue's: it is logged, not fatal.
func (b *eventBatch) after(tx *queue.Tx) {
	if len(b.order) == 0 {
		return
	}
	tx.AfterCommit(b.write)
}

// write writes the events, one write per log, each as its owner.
func (b *eventBatch) write() {
	for _, k := range b.order {
		err := b.s.ids.Do(k.account, func() error { return b.s.events.Write(k.path, b.bufs[k]) })
		if err != nil {
			b.s.log.Warn("job event log not written", "log", k.path, "as", k.account, "err", err)
		}
	}
}

// setStatus moves a job to a new JobStatus with the attributes HTCondor
// keeps about it.
func setStatus(tx *queue.Tx, j *queue.Job, status int64, now time.Time) {
	tx.SetInt(j, attr.LastJobStatus, tx.Status(j))
	tx.SetInt(j, attr.JobStatus, status)
	tx.SetInt(j, attr.EnteredCurrentStatus, now.Unix())
}
