package dashboard

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/sita"
)

// SitaLoads is the page of SITA-E: each size interval, the slots that
// serve it and the load of the queue's jobs whose sizes fall in it.
type SitaLoads struct {
	// Enabled says whether any slot serves an interval.
	Enabled   bool           `json:"enabled"`
	Attribute string         `json:"attribute"` // the jobs' size attribute
	Source    string         `json:"source"`    // where k, p and a come from: job or config
	Intervals []SitaInterval `json:"intervals"`
	// Unsized counts the idle and running jobs without a size (or, with
	// source = job, without their k, p and a): every slot admits them.
	Unsized int `json:"unsized"`
	// Unplaced counts jobs whose size no interval admits (invalid
	// parameters).
	Unplaced int `json:"unplaced"`
	// Imbalance is SITA-E's objective M over the intervals' loads (idle
	// and running), also as a percentage of the mean load.
	Imbalance        float64  `json:"imbalance"`
	ImbalancePercent float64  `json:"imbalance_percent"`
	MeanLoad         float64  `json:"mean_load"`
	Errors           []string `json:"errors"`
}

// SitaInterval is one size interval.
type SitaInterval struct {
	Interval int `json:"interval"`
	// Lower and Upper are the boundaries when they are numbers for every
	// job (source = config); with source = job they depend on each job's
	// parameters and LowerExpr and UpperExpr hold their expressions.
	Lower       *float64 `json:"lower,omitempty"`
	Upper       *float64 `json:"upper,omitempty"`
	LowerExpr   string   `json:"lower_expr,omitempty"`
	UpperExpr   string   `json:"upper_expr,omitempty"`
	Slots       int      `json:"slots"`
	Busy        int      `json:"busy_slots"`
	Machines    []string `json:"machines"`
	IdleJobs    int      `json:"idle_jobs"`
	RunningJobs int      `json:"running_jobs"`
	IdleLoad    float64  `json:"idle_load"`
	RunningLoad float64  `json:"running_load"`
	// MinSize and MaxSize are the smallest and largest sizes of its jobs.
	MinSize *float64 `json:"min_size,omitempty"`
	MaxSize *float64 `json:"max_size,omitempty"`
}

// Loads computes the SITA-E page from slot ads and the idle and running
// jobs of the queues. A job is placed as the slots place it: with the
// boundaries x(1) ... x(n-1) that the slots' SitaUpperBound (or the next
// interval's SitaLowerBound) give for it, in interval i when
// x(i-1) <= size < x(i).
func Loads(slots, jobs []*classad.Ad) SitaLoads {
	out := SitaLoads{Intervals: []SitaInterval{}, Errors: []string{}}
	reps, n := representatives(slots)
	if n == 0 {
		return out
	}
	out.Enabled = true
	out.Attribute = cmp.Or(str(reps[firstKey(reps)], sita.AttrSizeAttr), sita.DefaultSizeAttr)
	out.Source = str(reps[firstKey(reps)], sita.AttrSource)
	out.Intervals = make([]SitaInterval, n)
	for i := range out.Intervals {
		out.Intervals[i] = intervalRow(i+1, reps[i+1])
	}
	countSlots(out.Intervals, slots)
	for _, job := range jobs {
		out.place(job, reps, n)
	}
	loads := make([]float64, n)
	for i, iv := range out.Intervals {
		loads[i] = iv.IdleLoad + iv.RunningLoad
	}
	out.Imbalance, out.MeanLoad, out.ImbalancePercent = sita.Imbalance(loads)
	for i := 1; i <= n; i++ {
		if reps[i] == nil {
			out.Errors = append(out.Errors, fmt.Sprintf("no slot serves interval %d of %d", i, n))
		}
	}
	return out
}

// representatives picks, for each interval, the first slot (by name) that
// serves it, and returns the number of intervals.
func representatives(slots []*classad.Ad) (map[int]*classad.Ad, int) {
	sorted := slices.Clone(slots)
	slices.SortFunc(sorted, func(a, b *classad.Ad) int { return strings.Compare(str(a, "Name"), str(b, "Name")) })
	reps := map[int]*classad.Ad{}
	n := 0
	for _, ad := range sorted {
		i, total := int(num(ad, sita.AttrInterval)), int(num(ad, sita.AttrIntervals))
		if i < 1 || total < 1 || i > total || total > sita.MaxIntervals {
			continue
		}
		n = max(n, total)
		if reps[i] == nil {
			reps[i] = ad
		}
	}
	return reps, n
}

func firstKey(m map[int]*classad.Ad) int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return slices.Min(keys)
}

// intervalRow describes interval i from the slot that serves it.
func intervalRow(i int, slot *classad.Ad) SitaInterval {
	row := SitaInterval{Interval: i, Machines: []string{}}
	if slot == nil {
		return row
	}
	row.Lower, row.LowerExpr = bound(slot, sita.AttrLowerBound)
	row.Upper, row.UpperExpr = bound(slot, sita.AttrUpperBound)
	return row
}

// bound reads a boundary: a number when it is one without a job, else
// its expression.
func bound(slot *classad.Ad, name string) (*float64, string) {
	e, ok := slot.Lookup(name)
	if !ok {
		return nil, ""
	}
	if x, ok := numOK(slot, name); ok && !math.IsInf(x, 0) && !math.IsNaN(x) {
		return &x, ""
	}
	return nil, classad.String(e)
}

// countSlots adds each slot to its interval's row.
func countSlots(rows []SitaInterval, slots []*classad.Ad) {
	for _, ad := range slots {
		i := int(num(ad, sita.AttrInterval))
		if i < 1 || i > len(rows) {
			continue
		}
		r := &rows[i-1]
		r.Slots++
		if s := str(ad, "State"); s == "Claimed" || s == "Preempting" {
			r.Busy++
		}
		if m := MachineOf(ad); !slices.Contains(r.Machines, m) {
			r.Machines = append(r.Machines, m)
		}
	}
	for i := range rows {
		slices.Sort(rows[i].Machines)
	}
}

// place adds an idle or running job to the interval its size falls in.
func (s *SitaLoads) place(job *classad.Ad, reps map[int]*classad.Ad, n int) {
	status := int(num(job, attr.JobStatus))
	if status != attr.Idle && status != attr.Running {
		return
	}
	size, ok := numOK(job, s.Attribute)
	if !ok {
		s.Unsized++
		return
	}
	i, sized, ok := intervalOf(job, size, reps, n)
	switch {
	case !sized:
		s.Unsized++
		return
	case !ok:
		s.Unplaced++
		return
	}
	r := &s.Intervals[i-1]
	if status == attr.Running {
		r.RunningJobs++
		r.RunningLoad += size
	} else {
		r.IdleJobs++
		r.IdleLoad += size
	}
	if r.MinSize == nil || size < *r.MinSize {
		r.MinSize = &size
	}
	if r.MaxSize == nil || size > *r.MaxSize {
		r.MaxSize = &size
	}
}

// intervalOf finds a job's interval from the boundaries the slots compute
// for it. sized is false when a boundary is undefined for the job (it
// lacks its parameters); ok is false when one is not a number.
func intervalOf(job *classad.Ad, size float64, reps map[int]*classad.Ad, n int) (i int, sized, ok bool) {
	if sized, ok := jobParams(job, reps[firstKey(reps)]); !sized || !ok {
		return 0, sized, ok
	}
	i = 1
	for j := 1; j < n; j++ {
		x, kind := boundary(job, j, reps)
		switch kind {
		case undefinedBound:
			return 0, false, false
		case badBound:
			return 0, true, false
		}
		if size >= x {
			i = j + 1
		}
	}
	return i, true, true
}

type boundKind int

const (
	numberBound boundKind = iota
	undefinedBound
	badBound
)

// boundary evaluates x(j) for a job: slot j's upper bound, or slot j+1's
// lower bound.
func boundary(job *classad.Ad, j int, reps map[int]*classad.Ad) (float64, boundKind) {
	for _, c := range []struct {
		slot *classad.Ad
		name string
	}{{reps[j], sita.AttrUpperBound}, {reps[j+1], sita.AttrLowerBound}} {
		if c.slot == nil {
			continue
		}
		if _, has := c.slot.Lookup(c.name); !has {
			continue
		}
		v, err := classad.EvalAttr(c.slot, c.name, job)
		if err != nil {
			return 0, badBound
		}
		if v.IsUndefined() {
			return 0, undefinedBound
		}
		if x, ok := v.NumberValue(); ok && !math.IsNaN(x) {
			return x, numberBound
		}
		return 0, badBound
	}
	return 0, badBound
}

// validParams is what a slot with source = job asks of a job's k, p and a.
var validParams = func() *classad.Program {
	p, err := classad.Compile("MY." + sita.AttrMinSize + " > 0 && MY." + sita.AttrMaxSize + " >= MY." + sita.AttrMinSize +
		" && MY." + sita.AttrVariability + " > 0")
	if err != nil {
		panic(err)
	}
	return p
}()

// jobParams checks a job's k, p and a as the slots read them (the job's
// own with source = job, else the configuration's): a job for which one
// is undefined is not sized, and one with invalid values fits no
// interval.
func jobParams(job, slot *classad.Ad) (sized, ok bool) {
	for _, name := range []string{sita.AttrMinSize, sita.AttrMaxSize, sita.AttrVariability} {
		if _, has := slot.Lookup(name); !has {
			return true, true // not a slot of this kind: its bounds decide
		}
		if v, err := classad.EvalAttr(slot, name, job); err != nil || v.IsUndefined() {
			return false, false
		}
	}
	v, err := classad.Eval(validParams, slot, job)
	return true, err == nil && v.IsTrue()
}
