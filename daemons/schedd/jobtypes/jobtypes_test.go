package jobtypes

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/reliability"
)

// The per-type counts are one walk of the queue at a time: while a walk
// is under way, other callers (thousands of claims made at once, each
// publishing its job's type) take the counts at hand instead of walking
// the whole queue again each; the next caller after it counts anew.
func TestOneWalkServesConcurrentCallers(t *testing.T) {
	q, err := queue.Open(filepath.Join(t.TempDir(), "q.db"), queue.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	now := time.Unix(1_790_000_000, 0)
	st, err := Open(q, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	submit(t, q, 3)
	if got := jobsOfType(t, st); got != 3 {
		t.Fatalf("KiteTypeJobs = %d, want 3", got)
	}
	submit(t, q, 2)
	now = now.Add(2 * typeCountsEvery)
	st.mu.Lock()
	st.counting = true // another caller walks the queue
	st.mu.Unlock()
	if got := jobsOfType(t, st); got != 3 {
		t.Errorf("during another walk: KiteTypeJobs = %d, want the counts at hand, 3", got)
	}
	st.mu.Lock()
	st.counting = false
	st.mu.Unlock()
	if got := jobsOfType(t, st); got != 5 {
		t.Errorf("after the walk: KiteTypeJobs = %d, want 5", got)
	}
}

// submit queues a cluster of n jobs of alice's.
func submit(t *testing.T, q *queue.Queue, n int) {
	t.Helper()
	id, err := q.NewCluster("alice")
	if err != nil {
		t.Fatal(err)
	}
	ad := parse(t, `[Owner = "alice"; JobStatus = 1; MyType = "Job"]`)
	procs, raws := make([]*classad.Ad, n), make([][]byte, n)
	for p := range n {
		procs[p] = parse(t, "[ProcId = "+strconv.Itoa(p)+"]")
		raws[p] = classad.AppendJSON(nil, procs[p], false)
	}
	if err := q.Update(func(tx *queue.Tx) error { _, err := tx.Submit(id, "alice", ad, procs, raws); return err }); err != nil {
		t.Fatal(err)
	}
}

// jobsOfType publishes alice's type into an ad and reads KiteTypeJobs.
func jobsOfType(t *testing.T, st *Stats) int64 {
	t.Helper()
	ad := parse(t, `[Owner = "alice"]`)
	st.Publish(ad)
	return classad.EvalIntOr(ad, attr.KiteTypeJobs, -1)
}

func parse(t *testing.T, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

// The count walks the queue in chunks, each under its own read lock, so
// that the queue's writers wait for a chunk, not for the whole queue; it
// counts every job once, of its own type when it names one, and leaves
// out the completed ones.
func TestCountInChunks(t *testing.T) {
	q, err := queue.Open(filepath.Join(t.TempDir(), "q.db"), queue.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	submit(t, q, countChunk+5) // cluster 1
	submit(t, q, 3)            // cluster 2
	err = q.Update(func(tx *queue.Tx) error {
		tx.SetInt(tx.Job(queue.JobID{Cluster: 1, Proc: 0}), attr.JobStatus, attr.Running)
		tx.SetInt(tx.Job(queue.JobID{Cluster: 1, Proc: 1}), attr.JobStatus, attr.Completed)
		sim := tx.Job(queue.JobID{Cluster: 2, Proc: 1})
		tx.SetString(sim, attr.KiteJobType, "sim")
		tx.SetInt(sim, attr.JobStatus, attr.Running)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stops []queue.JobID
	counts := map[string]typeCount{}
	at, more := queue.JobID{}, true
	for more {
		q.Read(func(r *queue.Reader) { at, more = countFrom(r, at, counts) })
		stops = append(stops, at)
	}
	if want := []queue.JobID{{Cluster: 1, Proc: countChunk}, {}}; len(stops) != 2 || stops[0] != want[0] || stops[1] != want[1] {
		t.Errorf("chunks stopped at %v, want %v", stops, want)
	}
	want := map[string]typeCount{"alice": {jobs: countChunk + 5 - 1 + 2, running: 1}, "sim": {jobs: 1, running: 1}}
	if len(counts) != len(want) || counts["alice"] != want["alice"] || counts["sim"] != want["sim"] {
		t.Errorf("counts %+v, want %+v", counts, want)
	}
	if all := countTypes(q); len(all) != len(want) || all["alice"] != want["alice"] || all["sim"] != want["sim"] {
		t.Errorf("countTypes %+v, want %+v", all, want)
	}
}

// A job's last runtime read from its literal values is the one its whole
// ad evaluates to, whatever its attributes hold.
func TestLastRuntimeOf(t *testing.T) {
	tests := []struct{ cluster, own string }{
		{`[]`, `[ProcId = 0]`},
		{`[]`, `[JobCurrentStartDate = 100; CompletionDate = 160]`},
		{`[JobCurrentStartDate = 100]`, `[CompletionDate = 160]`},
		{`[]`, `[JobCurrentStartDate = 100; CompletionDate = 90; RemoteWallClockTime = 7.5]`},
		{`[]`, `[CompletionDate = 90; RemoteWallClockTime = 7]`},
		{`[]`, `[RemoteWallClockTime = -3.0]`},
		{`[RemoteWallClockTime = 4.0]`, `[RemoteWallClockTime = undefined]`},
		{`[]`, `[JobCurrentStartDate = 100.0; CompletionDate = 160]`},
		{`[]`, `[JobCurrentStartDate = 50 + 50; CompletionDate = 160]`},
		{`[]`, `[RemoteWallClockTime = 2 * 3.5]`},
		{`[]`, `[RemoteWallClockTime = "7"]`},
		{`[]`, `[JobCurrentStartDate = 0; CompletionDate = 0; RemoteWallClockTime = 0]`},
	}
	for _, tt := range tests {
		t.Run(tt.cluster+tt.own, func(t *testing.T) {
			v := queue.View{Cluster: mustParse(t, tt.cluster), Own: mustParse(t, tt.own)}
			if got, want := lastRuntimeOf(&v), lastRuntime(v.Ad()); got != want {
				t.Errorf("lastRuntimeOf = %v, lastRuntime of the whole ad = %v", got, want)
			}
		})
	}
}

func mustParse(t *testing.T, s string) *classad.Ad {
	t.Helper()
	ad, err := classad.ParseNew(s)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

// A job's type named from its view is the one reliability.TypeOf names
// from its whole ad.
func TestTypeOfView(t *testing.T) {
	tests := []struct{ cluster, own string }{
		{`[Owner = "alice"]`, `[ProcId = 0]`},
		{`[Owner = "alice"; JobBatchName = "b"]`, `[ProcId = 0]`},
		{`[Owner = "alice"; JobBatchName = "b"]`, `[KiteJobType = "k"]`},
		{`[Owner = "alice"; JobBatchName = "b"]`, `[JobBatchName = undefined]`},
		{`[Owner = "alice"]`, `[JobBatchName = strcat("x", "y")]`},
		{`[Owner = "alice"]`, `[KiteJobType = 3]`},
		{`[]`, `[ProcId = 0]`},
	}
	for _, tt := range tests {
		t.Run(tt.cluster+tt.own, func(t *testing.T) {
			v := queue.View{Cluster: mustParse(t, tt.cluster), Own: mustParse(t, tt.own)}
			if got, want := typeOfView(&v), reliability.TypeOf(v.Ad()); got != want {
				t.Errorf("typeOfView = %q, TypeOf the whole ad = %q", got, want)
			}
		})
	}
}

// A record is stored as json.Marshal writes it, whatever its runtimes.
func TestRecordJSON(t *testing.T) {
	values := []float64{0, 1, -1, 0.5, 1e-7, -1e-7, 1e-6, 123456789, 1e20, 1e21, 1.5e300, 5e-324,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 3.141592653589793, 1e-10, 2e-9}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		values = append(values, math.Float64frombits(rng.Uint64()))
	}
	recs := []*typeRecord{{}, {Done: 3}, {JobType: reliability.JobType{Runtimes: []float64{}}, Done: -2}}
	for i := 0; i < len(values); i += 3 {
		recs = append(recs, &typeRecord{JobType: reliability.JobType{Runtimes: values[i:min(i+3, len(values))]}, Done: i})
	}
	recs = append(recs, &typeRecord{JobType: reliability.JobType{Runtimes: []float64{1, math.NaN()}}},
		&typeRecord{JobType: reliability.JobType{Runtimes: []float64{math.Inf(-1)}}})
	for _, rec := range recs {
		want, _ := json.Marshal(rec)
		if got := rec.json(); !bytes.Equal(got, want) {
			t.Errorf("%v: stored %s, json.Marshal writes %s", rec.Runtimes, got, want)
		}
	}
}
