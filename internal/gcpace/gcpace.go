// Package gcpace paces a daemon's garbage collector: the heap may grow by
// at least a fixed headroom between collections, and by Go's usual
// proportion once it is large.
//
// Go collects when the heap has grown by GOGC percent (100) of what the
// last collection left live. Most daemons keep a few megabytes live (a
// startd, a schedd whose queue is short), so with Go's pacing they
// collect every few megabytes allocated: a personal pool running a
// thousand short jobs a second collected twenty times a second, and
// nearly a fifth of its own CPU went to collecting (docs/scale.md, "The
// garbage collector's pace"). Letting such a heap grow by tens of megabytes first
// costs that much memory and saves most of that CPU; a daemon whose heap
// is large (a collector of thousands of hosts, a schedd of a hundred
// thousand jobs) already grows by more than the headroom and is paced as
// before.
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
	"sync"
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
// GOGC or GOMEMLIMIT in the environment it does nothing. While a Raise
// is in force it sets nothing (and no memory limit), and it paces again as
// soon as the Raise ends.
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

// The percent is the process's: Raise and the pacer's turns change it
// under mu, so that a turn never undoes a Raise.
var (
	mu     sync.Mutex
	raised int                      // Raises in force
	ended  = make(chan struct{}, 1) // a Raise ended: the pacer's turn is due
)

// Raise sets the collector's percent to at least p, for a bulk read that
// allocates much and frees nothing (a queue being loaded); end puts back
// the percent it found and has a running pacer pace again at once, for a
// heap that has grown meanwhile.
func Raise(p int) (end func()) {
	mu.Lock()
	defer mu.Unlock()
	raised++
	old := debug.SetGCPercent(p)
	if old > p {
		debug.SetGCPercent(old)
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		debug.SetGCPercent(old)
		raised--
		select {
		case ended <- struct{}{}:
		default:
		}
	}
}

// setting is what the runtime had after the pacer's turn: the percent and
// the memory limit for a live heap, or nothing set during a Raise (aside).
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
	pc := &pacer{headroom: headroom, base: int(s[0].Value.Uint64()), baseLimit: debug.SetMemoryLimit(-1)}
	defer pc.stop()
	select {
	case <-ended: // a Raise that ended before: nothing to catch up
	default:
	}
	collected := make(chan struct{}, 1)
	arm(collected)
	for {
		now := pc.turn(s[1].Value.Uint64())
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
			arm(collected)
		case <-ended:
		}
		metrics.Read(s[1:])
	}
}

// pacer is what pace found.
type pacer struct {
	headroom  uint64
	base      int   // the percent before the pacer's
	baseLimit int64 // the memory limit before the pacer's
}

// turn sets the percent and the memory limit for a heap of live bytes,
// unless a Raise is in force.
func (pc *pacer) turn(live uint64) setting {
	mu.Lock()
	defer mu.Unlock()
	if raised > 0 {
		debug.SetMemoryLimit(pc.baseLimit)
		return setting{live: live, percent: -1, limit: pc.baseLimit, aside: true}
	}
	p := Percent(live, pc.headroom, pc.base)
	limit := Limit(live, pc.headroom, p)
	debug.SetGCPercent(p)
	debug.SetMemoryLimit(limit)
	return setting{live: live, percent: p, limit: limit}
}

// stop restores what the pacer found.
func (pc *pacer) stop() {
	mu.Lock()
	defer mu.Unlock()
	if raised == 0 {
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
