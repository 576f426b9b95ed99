package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// queueWatch follows the jobs a selection picks from the queue into the
// history, for kite q -watch and kite submit --wait. Each poll asks the
// schedd for the selected jobs (a few attributes each); jobs that are no
// longer queued are looked up in the history, newest first, to tell the
// completed from the removed, with their completion times for the rate.
// Jobs of a cluster that left before the watch began count too, when the
// selection takes whole clusters: a cluster's TotalSubmitProcs says how
// many there were.
type queueWatch struct {
	client *wire.Client
	query  wire.JobQuery
	// named are the job ids the command line names; those not in the
	// queue at the first poll are looked for in the history.
	named []string
	// whole is set when the selection takes whole clusters (no
	// constraint, no cluster.proc): the jobs of a cluster missing from the
	// queue have left it.
	whole bool

	jobs     map[jobKey]*watchedJob
	batches  []*watchBatch
	byKey    map[string]*watchBatch
	clusters map[int64]*clusterSeen
	all      throughput
	gen      int
	counts   []jobCounts // per batch, as of the last poll
	total    jobCounts
}

type jobKey struct{ cluster, proc int64 }

func (k jobKey) String() string { return fmt.Sprintf("%d.%d", k.cluster, k.proc) }

// watchedJob is what the watch knows of one job.
type watchedJob struct {
	batch *watchBatch
	state jobState
	gen   int    // the poll that last saw it queued
	fail  string // how a completed job failed: "exit code 3", "signal 9"
	hold  string // why a held job is held
}

// watchBatch is a batch as condor_q groups jobs: an owner's jobs with
// one batch name, or one cluster's jobs.
type watchBatch struct {
	owner, name string
	cluster     int64 // the first cluster seen
	rate        throughput
}

// clusterSeen is a cluster's batch and size, from its first queued job.
type clusterSeen struct {
	batch *watchBatch
	procs int64 // TotalSubmitProcs
}

// watchAttrs are what a poll needs of each queued job; clusterAttrs
// what it needs once of a new cluster (of one of its jobs). Polls stay
// lean: a job's owner and batch are asked for once, not every poll.
var (
	watchAttrs   = []string{attr.ClusterID, attr.ProcID, attr.JobStatus, attr.HoldReason}
	clusterAttrs = []string{attr.ClusterID, attr.ProcID, attr.Owner, attr.JobBatchName, attr.QDate, attr.TotalSubmitProcs}
)

// historyAttrs are what the watch needs of a job that left the queue.
var historyAttrs = []string{attr.ClusterID, attr.ProcID, attr.JobStatus, attr.Owner, attr.JobBatchName,
	attr.QDate, attr.EnteredCurrentStatus, attr.CompletionDate, attr.ExitCode, attr.ExitBySignal, attr.ExitSignal}

// newQueueWatch watches the jobs q selects; named are the ids the user
// gave (cluster or cluster.proc).
func newQueueWatch(c *wire.Client, q wire.JobQuery) *queueWatch {
	w := &queueWatch{client: c, query: q, named: q.IDs, jobs: map[jobKey]*watchedJob{},
		byKey: map[string]*watchBatch{}, clusters: map[int64]*clusterSeen{}}
	w.query.Projection, w.query.Batches, w.query.Limit = watchAttrs, false, 0
	w.whole = q.Constraint == ""
	for _, id := range q.IDs {
		w.whole = w.whole && !containsDot(id)
	}
	return w
}

func containsDot(s string) bool { return slices.Contains([]byte(s), '.') }

// poll brings the watch up to date: the queue, then the history for the
// jobs that left it.
func (w *queueWatch) poll(ctx context.Context, now time.Time) error {
	w.gen++
	first := w.gen == 1
	var news []jobRow
	err := streamRows(ctx, w.client, wire.PathQueue, w.query, func(r *row) error {
		k := jobKey{r.int(attr.ClusterID), r.int(attr.ProcID)}
		if w.clusters[k.cluster] == nil {
			news = append(news, jobRow{k, r})
			return nil
		}
		w.observe(k, r)
		return nil
	})
	if err != nil {
		return err
	}
	fresh, err := w.newClusters(ctx, news)
	if err != nil {
		return err
	}
	for _, n := range news {
		if w.clusters[n.k.cluster] != nil {
			w.observe(n.k, n.r)
		}
	}
	want := map[jobKey]bool{}
	for k, j := range w.jobs {
		if !j.state.left() && j.gen != w.gen {
			want[k] = true
		}
	}
	w.missing(fresh, want)
	if err := w.stillQueued(ctx, want); err != nil {
		return err
	}
	if err := w.lookUp(ctx, want, now); err != nil {
		return err
	}
	if first {
		if err := w.lookUpNamed(ctx); err != nil {
			return err
		}
	}
	w.recount()
	return nil
}

// jobRow is a queued job's row, kept while its cluster is looked up.
type jobRow struct {
	k jobKey
	r *row
}

// newClusters asks for the owner, batch, submission time and size of
// the clusters first seen in this poll, from one job of each.
func (w *queueWatch) newClusters(ctx context.Context, news []jobRow) (map[int64]bool, error) {
	fresh := map[int64]bool{}
	var ids []string
	for _, n := range news {
		if !fresh[n.k.cluster] {
			fresh[n.k.cluster] = true
			ids = append(ids, n.k.String())
		}
	}
	if len(ids) == 0 {
		return fresh, nil
	}
	q := wire.JobQuery{JobSelection: wire.JobSelection{IDs: ids}, Projection: clusterAttrs}
	err := streamRows(ctx, w.client, wire.PathQueue, q, func(r *row) error {
		c := r.int(attr.ClusterID)
		if w.clusters[c] == nil {
			w.clusters[c] = &clusterSeen{batch: w.batchOf(r), procs: r.int(attr.TotalSubmitProcs)}
			w.clusters[c].batch.rate.since(time.Unix(r.int(attr.QDate), 0))
			w.all.since(time.Unix(r.int(attr.QDate), 0))
		}
		return nil
	})
	return fresh, err
}

// observe records a queued job of a known cluster.
func (w *queueWatch) observe(k jobKey, r *row) {
	j := w.jobs[k]
	if j == nil {
		j = &watchedJob{batch: w.clusters[k.cluster].batch}
		w.jobs[k] = j
	}
	j.gen = w.gen
	j.state = stateOf(r.int(attr.JobStatus))
	j.hold = ""
	if j.state == stateHeld {
		j.hold = r.str(attr.HoldReason)
	}
}

// batchOf returns the batch of a job's ad, made if new.
func (w *queueWatch) batchOf(r *row) *watchBatch {
	owner, name, cluster := r.str(attr.Owner), r.str(attr.JobBatchName), r.int(attr.ClusterID)
	key := owner + "\x00" + name
	if name == "" {
		key += "\x00" + strconv.FormatInt(cluster, 10)
	}
	b := w.byKey[key]
	if b == nil {
		b = &watchBatch{owner: owner, name: name, cluster: cluster}
		w.byKey[key] = b
		w.batches = append(w.batches, b)
	}
	return b
}

// stateOf maps a JobStatus to a watch state.
func stateOf(status int64) jobState {
	switch status {
	case attr.Running, attr.TransferringOutput:
		return stateRunning
	case attr.Held:
		return stateHeld
	case attr.Suspended:
		return stateSuspended
	case attr.Completed:
		return stateCompleted
	case attr.Removed:
		return stateRemoved
	}
	return stateIdle
}

// missing adds to want the jobs of clusters first seen in this poll that
// were not queued: they left before the watch saw them.
func (w *queueWatch) missing(fresh map[int64]bool, want map[jobKey]bool) {
	if !w.whole {
		return
	}
	for c := range fresh {
		cs := w.clusters[c]
		if cs == nil { // it left the queue between the two queries
			continue
		}
		for p := range cs.procs {
			k := jobKey{c, p}
			if w.jobs[k] == nil {
				w.jobs[k] = &watchedJob{batch: cs.batch, state: stateIdle}
				want[k] = true
			}
		}
	}
}

// stillQueued takes out of want the jobs that no longer meet the
// selection's constraint but are still queued (a watch of -constraint
// 'JobStatus == 1' follows its jobs as they run): they are watched on.
func (w *queueWatch) stillQueued(ctx context.Context, want map[jobKey]bool) error {
	if w.query.Constraint == "" || len(want) == 0 {
		return nil
	}
	q := wire.JobQuery{JobSelection: wire.JobSelection{IDs: clusterIDs(want)}, Projection: watchAttrs}
	return streamRows(ctx, w.client, wire.PathQueue, q, func(r *row) error {
		k := jobKey{r.int(attr.ClusterID), r.int(attr.ProcID)}
		if want[k] {
			delete(want, k)
			w.observe(k, r)
		}
		return nil
	})
}

// clusterIDs are the clusters of the jobs, in order.
func clusterIDs(jobs map[jobKey]bool) []string {
	var ids []string
	seen := map[int64]bool{}
	for k := range jobs {
		if !seen[k.cluster] {
			seen[k.cluster] = true
			ids = append(ids, strconv.FormatInt(k.cluster, 10))
		}
	}
	slices.Sort(ids)
	return ids
}

// errFoundAll stops a history stream once every job sought is found.
var errFoundAll = errors.New("found all")

// lookUp finds the jobs of want in the history; those it has no record
// of are gone, outcome unknown (the history keeps only so many).
func (w *queueWatch) lookUp(ctx context.Context, want map[jobKey]bool, now time.Time) error {
	if len(want) == 0 {
		return nil
	}
	q := wire.HistoryQuery{IDs: clusterIDs(want), Projection: historyAttrs}
	err := streamRows(ctx, w.client, wire.PathHistory, q, func(r *row) error {
		k := jobKey{r.int(attr.ClusterID), r.int(attr.ProcID)}
		if !want[k] {
			return nil
		}
		delete(want, k)
		w.left(w.jobs[k], r, now)
		if len(want) == 0 {
			return errFoundAll
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFoundAll) {
		return fmt.Errorf("looking up jobs that left the queue: %w", err)
	}
	for k := range want {
		w.jobs[k].state = stateGone
	}
	return nil
}

// lookUpNamed finds in the history the jobs the user named that were not
// queued at the first poll: kite q -watch 12 for a cluster that is done
// shows it done.
func (w *queueWatch) lookUpNamed(ctx context.Context) error {
	var ids []string
	for _, id := range w.named {
		var k jobKey
		n, _ := fmt.Sscanf(id, "%d.%d", &k.cluster, &k.proc)
		if n == 2 && w.jobs[k] == nil || n == 1 && w.clusters[k.cluster] == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	q := wire.HistoryQuery{IDs: ids, Projection: historyAttrs}
	err := streamRows(ctx, w.client, wire.PathHistory, q, func(r *row) error {
		k := jobKey{r.int(attr.ClusterID), r.int(attr.ProcID)}
		if w.jobs[k] != nil {
			return nil
		}
		cs := w.clusters[k.cluster]
		if cs == nil {
			cs = &clusterSeen{batch: w.batchOf(r)}
			w.clusters[k.cluster] = cs
		}
		j := &watchedJob{batch: cs.batch}
		w.jobs[k] = j
		w.left(j, r, time.Time{})
		return nil
	})
	if err != nil {
		return fmt.Errorf("looking up jobs in the history: %w", err)
	}
	return nil
}

// left records how a job left the queue, from its history ad. now is
// when it was found gone (the time of its completion if the ad has
// none; zero for none at all).
func (w *queueWatch) left(j *watchedJob, r *row, now time.Time) {
	j.hold = ""
	if stateOf(r.int(attr.JobStatus)) != stateCompleted {
		j.state = stateRemoved
		return
	}
	j.state = stateCompleted
	switch {
	case r.value(attr.ExitBySignal).String() == "true":
		j.fail = "signal " + strconv.FormatInt(r.int(attr.ExitSignal), 10)
	case r.int(attr.ExitCode) != 0:
		j.fail = "exit code " + strconv.FormatInt(r.int(attr.ExitCode), 10)
	}
	at := now
	for _, a := range []string{attr.CompletionDate, attr.EnteredCurrentStatus} {
		if t := r.int(a); t > 0 {
			at = time.Unix(t, 0)
			break
		}
	}
	if !at.IsZero() {
		j.batch.rate.add(at)
		w.all.add(at)
	}
}

// recount counts the jobs by batch and in all.
func (w *queueWatch) recount() {
	slices.SortStableFunc(w.batches, func(a, b *watchBatch) int { return cmp.Compare(a.cluster, b.cluster) })
	index := make(map[*watchBatch]int, len(w.batches))
	for i, b := range w.batches {
		index[b] = i
	}
	w.counts = make([]jobCounts, len(w.batches))
	for _, j := range w.jobs {
		c := &w.counts[index[j.batch]]
		c.count(j.state)
		if j.fail != "" {
			c.Failed++
		}
	}
	w.total = jobCounts{}
	for _, c := range w.counts {
		w.total.add(c)
	}
}

// rows is the view at now: one row per batch, and a total when there
// are several.
func (w *queueWatch) rows(now time.Time) []progressRow {
	owners := map[string]bool{}
	for _, b := range w.batches {
		owners[b.owner] = true
	}
	rows := make([]progressRow, 0, len(w.batches)+1)
	for i, b := range w.batches {
		name := b.name
		if name == "" {
			name = "ID: " + strconv.FormatInt(b.cluster, 10)
		}
		if len(owners) > 1 {
			name = b.owner + " " + name
		}
		rows = append(rows, progressRow{Name: name, Counts: w.counts[i], ETA: etaText(w.counts[i], &b.rate, now)})
	}
	if len(rows) > 1 {
		rows = append(rows, progressRow{Name: "Total", Counts: w.total, ETA: etaText(w.total, &w.all, now)})
	}
	return rows
}

// held lists the held jobs and why, in id order.
func (w *queueWatch) held() []string {
	return w.listJobs(func(j *watchedJob) string {
		switch {
		case j.state != stateHeld:
			return ""
		case j.hold == "":
			return "held (no reason given)"
		}
		return j.hold
	})
}

// failed lists the completed jobs that failed, in id order.
func (w *queueWatch) failed() []string {
	return w.listJobs(func(j *watchedJob) string { return j.fail })
}

// listJobs lists "id: text" for each job text says something of.
func (w *queueWatch) listJobs(text func(*watchedJob) string) []string {
	var keys []jobKey
	for k, j := range w.jobs {
		if text(j) != "" {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b jobKey) int {
		return cmp.Or(cmp.Compare(a.cluster, b.cluster), cmp.Compare(a.proc, b.proc))
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String() + ": " + text(w.jobs[k])
	}
	return out
}
