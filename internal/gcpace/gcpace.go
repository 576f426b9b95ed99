// Package gcpace paces a daemon's garbage collector: the heap may grow by
// at least a fixed headroom between collections, and by Go's usual
// proportion once it is large.
//
// Go collects when the heap has grown by GOGC percent (100) of what the
// last collection left live. Most daemons keep a few megabytes live (a
// startd, a schedd whose queue is short), so with Go's pacing they
// collect every few megabytes allocated: a personal pool running a
// thousand short jobs a second collected twenty times a second, and
// nearly a fifth of its own CPU went to collecting (docs/scale.md, "The collector's
// pace"). Letting such a heap grow by tens of megabytes first costs that
// much memory and saves most of that CPU; a daemon whose heap is large
// (a collector of thousands of hosts, a schedd of a hundred thousand jobs)
// already grows by more than the headroom and is paced as before.
//
// Go's own knobs still win: a daemon started with GOGC or GOMEMLIMIT in
// its environment (GOGC=100 is Go's default pacing) is left alone.
package gcpace

import (
	"context"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Headroom is how much a daemon's heap may grow between collections at
// least: 64 MiB.
const Headroom = 64 << 20

// minHeap is the runtime's smallest heap goal at Go's usual percent; it
// grows in proportion to the percent set.
const minHeap = 4 << 20

// Percent returns the GOGC percent that lets a heap of live bytes grow by
// at least headroom before the next collection, and by no less than base
// percent of itself. It is at most what makes the runtime's smallest goal
// the headroom: a heap with almost nothing live grows by no more.
func Percent(live, headroom uint64, base int) int {
	p := headroom * 100 / minHeap
	if live > 0 {
		p = min(p, (headroom*100+live-1)/live) // rounded up
	}
	return max(base, int(p))
}

// Pace sets the collector's percent from the live heap after every
// collection, until ctx is done; then it restores what it found. With
// GOGC or GOMEMLIMIT in the environment it does nothing. When another
// part of the process changes the percent (a queue being read sets its
// own), the pacer leaves it, and sets no memory limit, until the percent
// it set is back.
//
// It learns of a collection when the collection has freed an object it
// made for the purpose, which may be a collection late when collections
// follow closely (the heap growing fast): meanwhile the percent set for a
// smaller heap would let the next goal be a multiple of the grown one. A
// memory limit of twice the intended goal, plus the headroom, bounds that
// (Limit).
func Pace(ctx context.Context, headroom uint64) {
	pace(ctx, headroom, nil)
}

// Limit returns the memory limit Pace sets with percent for a heap of
// live bytes: twice the goal they make, plus the headroom.
func Limit(live, headroom uint64, percent int) int64 {
	goal := live + live*uint64(percent)/100
	return int64(min(2*goal+headroom, math.MaxInt64/2))
}

// setting is what the runtime had after pace's turn: the percent and the
// memory limit for a live heap, or another's percent (aside).
type setting struct {
	live    uint64
	percent int
	limit   int64
	aside   bool
}

// pace is Pace, telling paced (when not nil) the setting after each turn.
func pace(ctx context.Context, headroom uint64, paced chan<- setting) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			return
		}
	}
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return // not metrics this runtime has: Go's pacing stays
	}
	pc := &pacer{headroom: headroom, base: int(s[0].Value.Uint64()), baseLimit: debug.SetMemoryLimit(-1), set: -1}
	defer func() {
		metrics.Read(s[:1])
		pc.stop(int(s[0].Value.Uint64()))
	}()
	collected := make(chan struct{}, 1)
	for {
		arm(collected)
		now := pc.turn(s[1].Value.Uint64(), int(s[0].Value.Uint64()))
		if paced != nil {
			select {
			case paced <- now:
			case <-ctx.Done():
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-collected:
		}
		metrics.Read(s)
	}
}

// pacer is what pace found and what it set.
type pacer struct {
	headroom  uint64
	base      int   // the percent before the pacer's
	baseLimit int64 // the memory limit before the pacer's
	set       int   // the percent last set; -1 before the first
}

// turn sets the percent and the memory limit for a heap of live bytes,
// when the runtime's percent is the one set last (or at the first turn).
func (pc *pacer) turn(live uint64, percent int) setting {
	if pc.set >= 0 && percent != pc.set {
		debug.SetMemoryLimit(pc.baseLimit)
		return setting{live: live, percent: percent, limit: pc.baseLimit, aside: true}
	}
	if p := Percent(live, pc.headroom, pc.base); p != pc.set {
		debug.SetGCPercent(p)
		pc.set = p
	}
	limit := Limit(live, pc.headroom, pc.set)
	debug.SetMemoryLimit(limit)
	return setting{live: live, percent: pc.set, limit: limit}
}

// stop restores what the pacer found; a percent another part of the
// process set stays.
func (pc *pacer) stop(percent int) {
	if percent == pc.set {
		debug.SetGCPercent(pc.base)
	}
	debug.SetMemoryLimit(pc.baseLimit)
}

// sentinel is allocated for a collection to free: it has a pointer, so it
// is not batched with other small objects, which could keep it alive.
type sentinel struct{ _ *byte }

// arm signals collected (without waiting) once the next collection has
// freed a fresh sentinel.
func arm(collected chan<- struct{}) {
	runtime.AddCleanup(new(sentinel), func(c chan<- struct{}) {
		select {
		case c <- struct{}{}:
		default:
		}
	}, collected)
}
