// Package jobtypes keeps the schedd's job type statistics (JoSchKa's,
// internal/reliability): jobs are of one type when
// they share a KiteJobType, else a JobBatchName, else an Owner. The
// schedd keeps, for each type, the runtimes of its last completed jobs
// and how many completed, in its queue's store (the aux bucket), written
// in the transaction that moves the job to the history; a queue without
// them (an older schedd's) has them rebuilt from the history once.
//
// Resource requests and job ads in queries carry the type's statistics:
// KiteTypeJobs (in the queue, or completed), KiteTypeDone, KiteTypeRunning,
// and once a job of the type completed KiteTypeRuntime (avT, seconds) and
// KiteTypeRuntimeIndex (avTI) — what JoSchKa's strategies read, and what
// Rank expressions may use.
package jobtypes

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/reliability"
	"github.com/kite-sched/kite/internal/wire"
)

// The queue's aux keys of the records: KeyPrefix and the type's name for
// each, and Marker once they exist (rebuilt or kept). A store without
// them is an older schedd's.
const (
	KeyPrefix = "jobtype/"
	Marker    = "jobtypes"
)

// typeCountsEvery bounds how often the per-type counts walk the queue: a
// negotiation cycle asks every submitter in turn, and one walk serves
// them all.
const typeCountsEvery = time.Second

// typeRecord is what the schedd keeps of one job type.
type typeRecord struct {
	reliability.JobType
	// Done counts the type's jobs that completed.
	Done int `json:"done"`
}

// typeCount counts a type's jobs in the queue.
type typeCount struct{ jobs, running int }

// Stats is the schedd's job type statistics, over its queue.
type Stats struct {
	q   *queue.Queue
	now func() time.Time

	mu        sync.Mutex
	recs      map[string]*typeRecord
	counts    map[string]typeCount
	countedAt time.Time
	changes   int64 // the queue's change count when counted
	counting  bool  // a walk of the queue is under way
}

// Open reads the records from the queue's store, or rebuilds them from
// the history when the store has none.
func Open(q *queue.Queue, now func() time.Time) (*Stats, error) {
	t := &Stats{q: q, now: now, recs: map[string]*typeRecord{}}
	return t, t.open()
}

func (t *Stats) open() error {
	q := t.q
	marked := false
	err := q.Aux(Marker, func(key string, _ []byte) error {
		marked = marked || key == Marker
		return nil
	})
	if err != nil {
		return err
	}
	if !marked {
		return t.rebuild()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return q.Aux(KeyPrefix, func(key string, val []byte) error {
		rec := &typeRecord{}
		if err := json.Unmarshal(val, rec); err != nil {
			return fmt.Errorf("job type record %q: %w", key, err)
		}
		t.recs[strings.TrimPrefix(key, KeyPrefix)] = rec
		return nil
	})
}

// rebuild makes the records from the completed jobs of the history, and
// stores them with the marker.
func (t *Stats) rebuild() error {
	q := t.q
	newest := map[string][]float64{} // newest first
	done := map[string]int{}
	err := q.History(func(raw []byte) bool {
		ad, err := classad.ParseJSON(raw)
		if err != nil || classad.EvalIntOr(ad, attr.JobStatus, 0) != attr.Completed {
			return true
		}
		name := reliability.TypeOf(ad)
		done[name]++
		if len(newest[name]) < reliability.RuntimeWindow {
			newest[name] = append(newest[name], lastRuntime(ad))
		}
		return true
	})
	if err != nil {
		return err
	}
	t.mu.Lock()
	for name, runtimes := range newest {
		rec := &typeRecord{Done: done[name]}
		for i := len(runtimes) - 1; i >= 0; i-- {
			rec.JobType.Done(runtimes[i])
		}
		t.recs[name] = rec
	}
	t.mu.Unlock()
	return q.Update(func(tx *queue.Tx) error {
		t.mu.Lock()
		defer t.mu.Unlock()
		for name, rec := range t.recs {
			t.store(tx, name, rec)
		}
		tx.PutAux(Marker, []byte("1"))
		return nil
	})
}

// store stages a type's record.
func (t *Stats) store(tx *queue.Tx, name string, rec *typeRecord) {
	tx.PutAux(KeyPrefix+name, rec.json())
}

// json is the record as json.Marshal writes it (nil when it cannot: a
// runtime that is not finite), without reflection: it is written at
// every job's completion.
func (rec *typeRecord) json() []byte {
	buf := make([]byte, 0, 32+24*len(rec.Runtimes))
	buf = append(buf, '{')
	if len(rec.Runtimes) > 0 {
		buf = append(buf, `"runtimes":[`...)
		for i, f := range rec.Runtimes {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = wire.AppendJSONFloat(buf, f); err != nil {
				return nil // as json.Marshal: a runtime that is not finite
			}
		}
		buf = append(buf, "],"...)
	}
	buf = append(buf, `"done":`...)
	buf = strconv.AppendInt(buf, int64(rec.Done), 10)
	return append(buf, '}')
}

// Completed records, in the transaction that moves it to the history, a
// job that completed.
func (t *Stats) Completed(tx *queue.Tx, j *queue.Job) {
	v := tx.View(j)
	name, runtime := typeOfView(&v), lastRuntimeOf(&v)
	t.mu.Lock()
	defer t.mu.Unlock()
	rec := t.recs[name]
	if rec == nil {
		rec = &typeRecord{}
		t.recs[name] = rec
	}
	before := typeRecord{JobType: reliability.JobType{Runtimes: slices.Clone(rec.Runtimes)}, Done: rec.Done}
	tx.OnRollback(func() { // the job did not complete after all
		t.mu.Lock()
		*rec = before
		t.mu.Unlock()
	})
	rec.JobType.Done(runtime)
	rec.Done++
	t.store(tx, name, rec)
}

// lastRuntimeOf is lastRuntime of a job, read from its literal values
// when its start, completion and wall clock time are numbers written out
// (as the schedd writes them), else evaluated in its whole ad.
func lastRuntimeOf(v *queue.View) float64 {
	start, ok1 := intLiteral(v, attr.JobCurrentStartDate)
	end, ok2 := intLiteral(v, attr.CompletionDate)
	if !ok1 || !ok2 {
		return lastRuntime(v.Ad())
	}
	if start > 0 && end >= start {
		return float64(end - start)
	}
	e, ok := v.Lookup(attr.RemoteWallClockTime)
	if !ok {
		return 0
	}
	l, isLit := e.(*ast.Literal)
	if !isLit || l.Kind != ast.RealLit && l.Kind != ast.IntLit {
		return lastRuntime(v.Ad())
	}
	if f := v.Real(attr.RemoteWallClockTime); f > 0 {
		return f
	}
	return 0
}

// intLiteral is a job's attribute when it is an integer literal (0 when
// absent); ok is false when it is anything else.
func intLiteral(v *queue.View, name string) (n int64, ok bool) {
	e, found := v.Lookup(name)
	if !found {
		return 0, true
	}
	if l, isLit := e.(*ast.Literal); isLit && l.Kind == ast.IntLit {
		return l.Int, true
	}
	return 0, false
}

// lastRuntime is how long a finished job's last run took: from its last
// start to its completion, else its total wall clock time.
func lastRuntime(ad *classad.Ad) float64 {
	start, end := classad.EvalIntOr(ad, attr.JobCurrentStartDate, 0), classad.EvalIntOr(ad, attr.CompletionDate, 0)
	if start > 0 && end >= start {
		return float64(end - start)
	}
	v, _ := classad.EvalAttr(ad, attr.RemoteWallClockTime, nil)
	if f, ok := v.NumberValue(); ok && f > 0 {
		return f
	}
	return 0
}

// Record returns what is kept of a job type: its runtimes and how many
// of its jobs completed.
func (t *Stats) Record(name string) (reliability.JobType, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rec, _, done := t.stats(name)
	return rec, done
}

// stats returns a type's record and counts (the lock is held).
func (t *Stats) stats(name string) (reliability.JobType, typeCount, int) {
	c := t.counts[name]
	rec := t.recs[name]
	if rec == nil {
		return reliability.JobType{}, c, 0
	}
	return rec.JobType, c, rec.Done
}

// publish writes a type's statistics into an ad (the lock is held).
func (t *Stats) publish(ad *classad.Ad, name string) {
	rec, c, done := t.stats(name)
	reliability.PublishType(ad, &rec, c.jobs+done, done, c.running)
}

// refresh counts the jobs of each type in the queue, unless the counts
// are recent, the queue did not change since, or another caller is
// counting already: one walk at a time serves every caller, however many
// claims are made at once (each claim publishes its job's type), and the
// others use the counts at hand. It takes t.mu itself and reads the queue
// without it: a transaction that completes a job holds the queue's lock
// while it takes t.mu, so the order is queue, then t.mu.
func (t *Stats) refresh() {
	q, now := t.q, t.now()
	_, changes := q.Stats()
	t.mu.Lock()
	fresh := t.counts != nil && (changes == t.changes || now.Sub(t.countedAt) < typeCountsEvery || t.counting)
	t.counting = t.counting || !fresh
	t.mu.Unlock()
	if fresh {
		return
	}
	counts := countTypes(q)
	t.mu.Lock()
	t.counts, t.countedAt, t.changes, t.counting = counts, now, changes, false
	t.mu.Unlock()
}

// countChunk bounds the jobs one read lock of the count passes: the
// queue's writers (a job's start, its end) wait for a part of the walk,
// not for all of a 100 000-job queue (docs/scale.md).
const countChunk = 2048

// countTypes counts the jobs of each type in the queue, in chunks of
// countChunk jobs, each under its own read lock. Each job is counted
// once, as it stands when its chunk passes it.
func countTypes(q *queue.Queue) map[string]typeCount {
	counts := map[string]typeCount{}
	var at queue.JobID
	for more := true; more; {
		q.Read(func(r *queue.Reader) { at, more = countFrom(r, at, counts) })
	}
	return counts
}

// countFrom counts up to countChunk jobs from at on, and returns where
// the next chunk starts, if any is left.
func countFrom(r *queue.Reader, at queue.JobID, counts map[string]typeCount) (queue.JobID, bool) {
	n := 0
	for c := range r.ClustersFrom(at.Cluster) {
		from := int64(0)
		if c.ID == at.Cluster {
			from = at.Proc
		}
		base := typeOfAd(c.Ad())
		for j := range c.JobsFrom(from) {
			if n == countChunk {
				return j.ID, true
			}
			n++
			st := j.Status()
			if st == attr.Removed || st == attr.Completed {
				continue
			}
			name := base
			if v := j.View(); setsType(v.Own) {
				name = typeOfView(&v)
			}
			tc := counts[name]
			tc.jobs++
			if st == attr.Running {
				tc.running++
			}
			counts[name] = tc
		}
	}
	return queue.JobID{}, false
}

// setsType reports whether a job's own ad names its type itself.
func setsType(own *classad.Ad) bool {
	for _, n := range reliability.TypeAttrs {
		if own.Index(n) >= 0 {
			return true
		}
	}
	return false
}

// typeOfAd names the type of the jobs of an ad whose literal values
// decide it (a cluster ad), as reliability.TypeOf does.
func typeOfAd(ad *classad.Ad) string { return reliability.TypeOf(ad) }

// typeOfView names a job's type.
func typeOfView(v *queue.View) string {
	for _, n := range reliability.TypeAttrs {
		e, ok := v.Lookup(n)
		if !ok {
			continue
		}
		if l, isLit := e.(*ast.Literal); isLit && l.Kind == ast.StringLit {
			return l.Str
		}
		return reliability.TypeOf(v.Ad())
	}
	return ""
}

// Publish adds to each ad (a resource request's, or a job's sent to a
// startd) its job type's statistics.
func (t *Stats) Publish(ads ...*classad.Ad) {
	t.refresh()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ad := range ads {
		t.publish(ad, reliability.TypeOf(ad))
	}
}

// PublishViews makes the views' ads carry their job type's statistics.
// Jobs of a cluster share one copy of its ad with them; a job that names
// its own type gets its own ad copied.
func (t *Stats) PublishViews(views []queue.View) {
	t.refresh()
	t.mu.Lock()
	defer t.mu.Unlock()
	typed := map[*classad.Ad]*classad.Ad{}
	for i := range views {
		v := &views[i]
		if setsType(v.Own) {
			own := v.Own.Clone()
			t.publish(own, typeOfView(v))
			v.Own = own
			continue
		}
		c, ok := typed[v.Cluster]
		if !ok {
			c = v.Cluster.Clone()
			t.publish(c, typeOfAd(v.Cluster))
			typed[v.Cluster] = c
		}
		v.Cluster = c
	}
}

// Wanted reports whether a query's answer shows job type statistics:
// whole ads, a projection naming one, or a constraint that may read one.
func Wanted(q *wire.JobQuery) bool {
	if len(q.Projection) == 0 || strings.Contains(strings.ToLower(q.Constraint), "kitetype") {
		return true
	}
	for _, n := range q.Projection {
		if strings.HasPrefix(strings.ToLower(n), "kitetype") {
			return true
		}
	}
	return false
}
