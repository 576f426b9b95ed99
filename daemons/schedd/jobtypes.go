package schedd

import (
	"encoding/json"
	"fmt"
	"slices"
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

// Job types (JoSchKa's, internal/reliability): jobs are of one type when
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

// Aux keys of the job type records.
const (
	typeKeyPrefix = "jobtype/"
	typesMarker   = "jobtypes" // the records exist (rebuilt or kept)
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

// jobTypes is the schedd's job type statistics.
type jobTypes struct {
	mu        sync.Mutex
	recs      map[string]*typeRecord
	counts    map[string]typeCount
	countedAt time.Time
	changes   int64 // the queue's change count when counted
}

func newJobTypes() *jobTypes { return &jobTypes{recs: map[string]*typeRecord{}} }

// open reads the records from the queue's store, or rebuilds them from
// the history when the store has none.
func (t *jobTypes) open(q *queue.Queue) error {
	marked := false
	err := q.Aux(typesMarker, func(key string, _ []byte) error {
		marked = marked || key == typesMarker
		return nil
	})
	if err != nil {
		return err
	}
	if !marked {
		return t.rebuild(q)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return q.Aux(typeKeyPrefix, func(key string, val []byte) error {
		rec := &typeRecord{}
		if err := json.Unmarshal(val, rec); err != nil {
			return fmt.Errorf("job type record %q: %w", key, err)
		}
		t.recs[strings.TrimPrefix(key, typeKeyPrefix)] = rec
		return nil
	})
}

// rebuild makes the records from the completed jobs of the history, and
// stores them with the marker.
func (t *jobTypes) rebuild(q *queue.Queue) error {
	newest := map[string][]float64{} // newest first
	done := map[string]int{}
	err := q.History(func(raw []byte) bool {
		ad, err := classad.ParseJSON(raw)
		if err != nil || intOrZero(ad, attr.JobStatus) != attr.Completed {
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
		tx.PutAux(typesMarker, []byte("1"))
		return nil
	})
}

// store stages a type's record.
func (t *jobTypes) store(tx *queue.Tx, name string, rec *typeRecord) {
	data, _ := json.Marshal(rec)
	tx.PutAux(typeKeyPrefix+name, data)
}

// completed records, in the transaction that moves it to the history, a
// job that completed.
func (t *jobTypes) completed(tx *queue.Tx, j *queue.Job) {
	v := tx.View(j)
	ad := v.Ad()
	name := reliability.TypeOf(ad)
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
	rec.JobType.Done(lastRuntime(ad))
	rec.Done++
	t.store(tx, name, rec)
}

// lastRuntime is how long a finished job's last run took: from its last
// start to its completion, else its total wall clock time.
func lastRuntime(ad *classad.Ad) float64 {
	start, end := intOrZero(ad, attr.JobCurrentStartDate), intOrZero(ad, attr.CompletionDate)
	if start > 0 && end >= start {
		return float64(end - start)
	}
	v, _ := classad.EvalAttr(ad, attr.RemoteWallClockTime, nil)
	if f, ok := v.NumberValue(); ok && f > 0 {
		return f
	}
	return 0
}

func intOrZero(ad *classad.Ad, name string) int64 {
	v, _ := classad.EvalAttr(ad, name, nil)
	if f, ok := v.NumberValue(); ok {
		return int64(f)
	}
	return 0
}

// stats returns a type's record and counts (the lock is held).
func (t *jobTypes) stats(name string) (reliability.JobType, typeCount, int) {
	c := t.counts[name]
	rec := t.recs[name]
	if rec == nil {
		return reliability.JobType{}, c, 0
	}
	return rec.JobType, c, rec.Done
}

// publish writes a type's statistics into an ad (the lock is held).
func (t *jobTypes) publish(ad *classad.Ad, name string) {
	rec, c, done := t.stats(name)
	reliability.PublishType(ad, &rec, c.jobs+done, done, c.running)
}

// refresh counts the jobs of each type in the queue, unless the counts
// are recent or the queue did not change since. It takes t.mu itself and
// reads the queue without it: a transaction that completes a job holds the
// queue's lock while it takes t.mu, so the order is queue, then t.mu.
func (t *jobTypes) refresh(q *queue.Queue, now time.Time) {
	_, changes := q.Stats()
	t.mu.Lock()
	fresh := t.counts != nil && (changes == t.changes || now.Sub(t.countedAt) < typeCountsEvery)
	t.mu.Unlock()
	if fresh {
		return
	}
	counts := map[string]typeCount{}
	q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			base := typeOfAd(c.Ad())
			for j := range c.Jobs {
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
	})
	t.mu.Lock()
	t.counts, t.countedAt, t.changes = counts, now, changes
	t.mu.Unlock()
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

// typedRequests adds each request's job type statistics to its ad.
func (s *Server) typedRequests(ads []*classad.Ad) {
	t := s.types
	t.refresh(s.q, s.now())
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ad := range ads {
		t.publish(ad, reliability.TypeOf(ad))
	}
}

// typedJob adds a job's type statistics to its ad as its request carried
// them, so that the startd's START sees at the claim what the negotiator
// saw.
func (s *Server) typedJob(ad *classad.Ad) { s.typedRequests([]*classad.Ad{ad}) }

// withTypes makes the views' ads carry their job type's statistics. Jobs
// of a cluster share one copy of its ad with them; a job that names its
// own type gets its own ad copied.
func (s *Server) withTypes(views []queue.View) {
	t := s.types
	t.refresh(s.q, s.now())
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

// wantsTypes reports whether a query's answer shows job type statistics:
// whole ads, a projection naming one, or a constraint that may read one.
func wantsTypes(q *wire.JobQuery) bool {
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

// requestAds are the requests' ads.
func requestAds(reqs []wire.ResourceRequest) []*classad.Ad {
	out := make([]*classad.Ad, len(reqs))
	for i := range reqs {
		out[i] = reqs[i].Ad
	}
	return out
}
