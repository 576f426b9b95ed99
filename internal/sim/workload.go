package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// fileJob is one job read from a file of job ads.
type fileJob struct {
	ad      *classad.Ad
	arrival float64 // seconds from the first job's arrival
	work    float64
	typ     string
	owner   string
}

// readJobFile reads job ads (a JSON array, or JSON objects one after the
// other) with their arrival and work:
//
//   - arrival: KiteArrival (seconds from the start), else QDate (seconds
//     since the epoch, made relative to the file's earliest QDate);
//   - work: KiteWork, else RemoteWallClockTime (seconds as measured: a
//     speed-1 machine runs the job as long as it ran);
//   - type: typeAttr if given, else KiteJobType, else Owner;
//   - owner: Owner (else "sim").
//
// A history's removed jobs that never ran (JobStatus 3 without work) are
// left out; any other job without an arrival or work is an error naming
// the job.
func readJobFile(path, typeAttr, sizeAttr string) ([]fileJob, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := classad.NewJSONDecoder(bytes.NewReader(data))
	var out []fileJob
	var qdates []bool
	minQ := math.Inf(1)
	for n := 1; ; n++ {
		ad, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: job ad %d: %w", path, n, err)
		}
		j := fileJob{ad: ad, owner: classad.EvalStringOr(ad, attr.Owner, "sim")}
		where := func() string {
			c, p := classad.EvalNumberOr(ad, attr.ClusterID, -1), classad.EvalNumberOr(ad, attr.ProcID, -1)
			if c >= 0 && p >= 0 {
				return fmt.Sprintf("%s: job %g.%g (ad %d)", path, c, p, n)
			}
			return fmt.Sprintf("%s: job ad %d", path, n)
		}
		j.work = classad.EvalNumberOr(ad, attr.KiteWork, math.NaN())
		if math.IsNaN(j.work) {
			j.work = classad.EvalNumberOr(ad, attr.RemoteWallClockTime, math.NaN())
		}
		if !(j.work > 0) || math.IsInf(j.work, 0) {
			if classad.EvalNumberOr(ad, attr.JobStatus, 0) == attr.Removed {
				continue
			}
			return nil, fmt.Errorf("%s: no work: want %s or %s, a positive number", where(), attr.KiteWork, attr.RemoteWallClockTime)
		}
		usesQDate := false
		j.arrival = classad.EvalNumberOr(ad, attr.KiteArrival, math.NaN())
		if math.IsNaN(j.arrival) {
			j.arrival = classad.EvalNumberOr(ad, attr.QDate, math.NaN())
			usesQDate = true
			minQ = math.Min(minQ, j.arrival)
		}
		if math.IsNaN(j.arrival) || j.arrival < 0 || math.IsInf(j.arrival, 0) {
			return nil, fmt.Errorf("%s: no arrival: want %s (seconds from the start) or %s", where(), attr.KiteArrival, attr.QDate)
		}
		j.typ = classad.EvalStringOr(ad, attr.KiteJobType, j.owner)
		if typeAttr != "" {
			j.typ = classad.EvalStringOr(ad, typeAttr, "")
		}
		if sizeAttr != "" && ad.Index(sizeAttr) < 0 {
			return nil, fmt.Errorf("%s: no %s (the workload's size_attr)", where(), sizeAttr)
		}
		out = append(out, j)
		qdates = append(qdates, usesQDate)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no jobs", path)
	}
	for i := range out {
		if qdates[i] {
			out[i].arrival -= minQ
		}
	}
	return out, nil
}

// job is one simulated job.
type job struct {
	arrival, work float64
	// The current (or last) run: when it started, and how much work was
	// left at lastUpdate.
	start, remaining, lastUpdate float64
	firstStart, finish           float64
	machine                      int32
	slot                         int32
	ac                           int32
	group                        int32
	typ                          int32
	batch                        int32 // -1: none
	index                        int32 // within its group (ProcId)
	gen                          uint32
	aborts                       int32
	reps                         int32 // replica runs started
	state                        uint8
}

// Job states.
const (
	jobWaiting uint8 = iota // not arrived yet
	jobIdle
	jobQueued // on a host's queue (queue mode), not running
	jobRunning
	jobAway // lost with its machine, not idle again yet
	jobDone
)

// workload is a run's jobs, in order of arrival.
type workload struct {
	jobs    []job
	types   []string
	batches []batchInfo
}

type batchInfo struct {
	name  string
	group int32
}

// buildWorkload draws the jobs of every group. speed is the pool's total
// speed (for Poisson arrivals given as a load).
func buildWorkload(st *Setup, seed uint64, speed float64) (*workload, error) {
	w := &workload{}
	total := 0
	for g := range st.Workload {
		total += st.Workload[g].Count
	}
	w.jobs = make([]job, 0, total)
	typeIndex := map[string]int32{}
	typeOf := func(name string) int32 {
		if k, ok := typeIndex[name]; ok {
			return k
		}
		typeIndex[name] = int32(len(w.types))
		w.types = append(w.types, name)
		return typeIndex[name]
	}
	for g := range st.Workload {
		wg := &st.Workload[g]
		r := stream(seed, "workload", g)
		if wg.File != "" {
			for i, f := range wg.ads {
				w.jobs = append(w.jobs, job{arrival: f.arrival, work: f.work, group: int32(g), index: int32(i),
					typ: typeOf(f.typ), batch: -1})
			}
			continue
		}
		name := wg.Type
		if name == "" {
			name = fmt.Sprintf("group%d", g+1)
		}
		typ := typeOf(name)
		sizes := groupSizes(wg, r)
		arrivals, err := groupArrivals(wg, r, speed)
		if err != nil {
			return nil, fmt.Errorf("workload[%d]: %w", g, err)
		}
		firstBatch := int32(len(w.batches))
		if wg.Arrival.Process == Batches {
			for b := range wg.Count / wg.Arrival.Batch {
				w.batches = append(w.batches, batchInfo{name: fmt.Sprintf("%s.%d", name, b+1), group: int32(g)})
			}
		}
		for i := range wg.Count {
			j := job{arrival: arrivals[i], work: sizes[i], group: int32(g), index: int32(i), typ: typ, batch: -1}
			if wg.Arrival.Process == Batches {
				j.batch = firstBatch + int32(i/wg.Arrival.Batch)
			}
			w.jobs = append(w.jobs, j)
		}
	}
	byArrival := func(a, b job) int {
		switch {
		case a.arrival < b.arrival:
			return -1
		case a.arrival > b.arrival:
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(w.jobs, byArrival) {
		slices.SortStableFunc(w.jobs, byArrival)
	}
	return w, nil
}

// groupSizes draws a group's sizes.
func groupSizes(wg *WorkloadGroup, r *rand.Rand) []float64 {
	if !wg.SameTasks {
		return wg.Size.Sequence(r, wg.Count)
	}
	one := wg.Size.Sequence(r, wg.Arrival.Batch)
	out := make([]float64, 0, wg.Count)
	for len(out) < wg.Count {
		out = append(out, one...)
	}
	return out
}

// groupArrivals draws a group's arrival times, in order.
func groupArrivals(wg *WorkloadGroup, r *rand.Rand, speed float64) ([]float64, error) {
	a := wg.Arrival
	out := make([]float64, wg.Count)
	switch a.Process {
	case Once:
		for i := range out {
			out[i] = a.At
		}
	case Interval:
		for i := range out {
			out[i] = a.At + float64(i)*a.Every
		}
	case Batches:
		for i := range out {
			out[i] = a.At + float64(i/a.Batch)*a.Every
		}
	case Poisson:
		rate := a.Rate
		if a.Load > 0 {
			mean := wg.Size.MeanValue()
			if !(speed > 0) || !(mean > 0) {
				return nil, fmt.Errorf("arrival load %g: the pool has no speed to load", a.Load)
			}
			rate = a.Load * speed / mean
		}
		t := a.At
		for i := range out {
			t += r.ExpFloat64() / rate
			out[i] = t
		}
	}
	return out, nil
}
