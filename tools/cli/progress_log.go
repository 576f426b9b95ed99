package cli

import (
	"slices"
	"strconv"
	"time"

	"github.com/kite-sched/kite/internal/userlog"
)

// logProgress follows the jobs of a job event log for kite wait
// -progress: each event moves its job to a state, batches are clusters
// (the log has no batch names), and the termination events' own times
// give the rate, so a log read late still tells an ETA.
type logProgress struct {
	jobs     map[jobKey]jobState
	failed   map[jobKey]bool
	rates    map[int64]*throughput
	clusters []int64
	all      throughput
}

func newLogProgress() *logProgress {
	return &logProgress{jobs: map[jobKey]jobState{}, failed: map[jobKey]bool{}, rates: map[int64]*throughput{}}
}

// eventStates are the states events move a job to.
var eventStates = map[userlog.Code]jobState{
	userlog.Submit: stateIdle, userlog.Execute: stateRunning, userlog.Evicted: stateIdle,
	userlog.Held: stateHeld, userlog.Released: stateIdle, userlog.Suspended: stateSuspended,
	userlog.Unsuspended: stateRunning, userlog.Terminated: stateCompleted, userlog.Aborted: stateRemoved,
}

// event applies one event.
func (p *logProgress) event(ev *userlog.Event) {
	st, ok := eventStates[ev.Code]
	if !ok {
		return
	}
	k := jobKey{ev.Job.Cluster, ev.Job.Proc}
	r := p.rates[k.cluster]
	if r == nil {
		r = &throughput{}
		p.rates[k.cluster] = r
		p.clusters = append(p.clusters, k.cluster)
		slices.Sort(p.clusters)
	}
	if old, seen := p.jobs[k]; seen && old.left() {
		return // nothing follows the end of a job
	}
	p.jobs[k] = st
	switch ev.Code {
	case userlog.Submit:
		r.since(ev.Time)
		p.all.since(ev.Time)
	case userlog.Terminated:
		p.failed[k] = !ev.Normal || ev.ReturnCode != 0
		r.add(ev.Time)
		p.all.add(ev.Time)
	}
}

// counts returns the counts by cluster, in cluster order, and in all.
func (p *logProgress) counts() ([]jobCounts, jobCounts) {
	index := make(map[int64]int, len(p.clusters))
	for i, c := range p.clusters {
		index[c] = i
	}
	by := make([]jobCounts, len(p.clusters))
	for k, st := range p.jobs {
		c := &by[index[k.cluster]]
		c.count(st)
		if p.failed[k] {
			c.Failed++
		}
	}
	var total jobCounts
	for _, c := range by {
		total.add(c)
	}
	return by, total
}

// rows is the view at now: a row per cluster, and a total when there
// are several.
func (p *logProgress) rows(now time.Time) []progressRow {
	by, total := p.counts()
	rows := make([]progressRow, 0, len(by)+1)
	for i, c := range by {
		id := p.clusters[i]
		rows = append(rows, progressRow{Name: "ID: " + strconv.FormatInt(id, 10), Counts: c, ETA: etaText(c, p.rates[id], now)})
	}
	if len(rows) > 1 {
		rows = append(rows, progressRow{Name: "Total", Counts: total, ETA: etaText(total, &p.all, now)})
	}
	return rows
}
