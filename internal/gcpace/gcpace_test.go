package gcpace

import (
	"context"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name           string
		live, headroom uint64
		base, want     int
	}{
		{"small heap grows by the headroom", 8 * mib, 64 * mib, 100, 800},
		{"rounded up", 6 * mib, 64 * mib, 100, 1067},
		{"the runtime's smallest goal is the headroom", 3 * mib, 64 * mib, 100, 1600},
		{"large heap keeps Go's proportion", 512 * mib, 64 * mib, 100, 100},
		{"at the headroom", 64 * mib, 64 * mib, 100, 100},
		{"a higher base stays", 32 * mib, 64 * mib, 300, 300},
		{"almost nothing live", 1024, 64 * mib, 100, 1600},
		{"nothing live", 0, 64 * mib, 100, 1600},
		{"no headroom", 4 * mib, 0, 100, 100},
	} {
		if got := Percent(c.live, c.headroom, c.base); got != c.want {
			t.Errorf("%s: Percent(%d, %d, %d) = %d, want %d", c.name, c.live, c.headroom, c.base, got, c.want)
		}
	}
}

// gcPercent reads the collector's percent as the runtime has it.
func gcPercent(t *testing.T) int {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// collectUntilPaced collects until the pacer has set a percent after a
// collection; the pacer arms itself when it starts, so the first
// collections may come before it.
func collectUntilPaced(t *testing.T, paced <-chan setting) setting {
	t.Helper()
	for range 1000 {
		runtime.GC()
		select {
		case p := <-paced:
			return p
		default:
		}
	}
	t.Fatal("no collection reached the pacer")
	return setting{}
}

func TestPaceFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const headroom = 256 << 20
	paced, stop := startPacer(t, headroom)
	<-paced // the setting at the start
	set := collectUntilPaced(t, paced)
	if want := Percent(set.live, headroom, 100); set.percent != want || set.percent <= 100 {
		t.Errorf("paced at %d%%, want %d%% (above Go's 100) for %d bytes live", set.percent, want, set.live)
	}
	if want := Limit(set.live, headroom, set.percent); set.limit != want {
		t.Errorf("memory limit %d, want %d", set.limit, want)
	}
	if got := gcPercent(t); got != set.percent {
		t.Errorf("the runtime's percent is %d, the pacer set %d", got, set.percent)
	}
	if got := debug.SetMemoryLimit(-1); got != set.limit {
		t.Errorf("the runtime's memory limit is %d, the pacer set %d", got, set.limit)
	}
	// A second collection paces again: the pacer follows every one.
	collectUntilPaced(t, paced)

	stop()
	if got := gcPercent(t); got != 100 {
		t.Errorf("after the pacer stopped the percent is %d, want the 100 it found", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after the pacer stopped the memory limit is %d, want none", got)
	}
}

// startPacer runs pace with GOGC and GOMEMLIMIT out of the environment
// (restored after the test) until the returned stop is called.
func startPacer(t *testing.T, headroom uint64) (paced <-chan setting, stop func()) {
	t.Helper()
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan setting)
	done := make(chan struct{})
	go func() { defer close(done); pace(ctx, headroom, ch) }()
	return ch, func() { cancel(); <-done }
}

// A Raise (the queue's load) has its percent: the pacer sets nothing,
// and no memory limit, until it ends; then it paces at once, without
// waiting for a collection.
func TestPaceStepsAsideForRaise(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	paced, stop := startPacer(t, 256<<20)
	mine := (<-paced).percent
	end := Raise(mine + 1000)
	set := collectUntilPaced(t, paced)
	if !set.aside || set.limit != math.MaxInt64 {
		t.Errorf("during a Raise the pacer set %+v, want it aside with no limit", set)
	}
	if got := gcPercent(t); got != mine+1000 {
		t.Errorf("the runtime's percent is %d during the Raise, want its %d", got, mine+1000)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("the memory limit is %d during a Raise, want none", got)
	}

	end()
	set = <-paced // no collection needed
	if set.aside || set.percent != Percent(set.live, 256<<20, 100) || set.limit == math.MaxInt64 {
		t.Errorf("after the Raise the pacer set %+v, want it pacing again", set)
	}
	if got := gcPercent(t); got != set.percent {
		t.Errorf("the runtime's percent is %d after the Raise, want the pacer's %d", got, set.percent)
	}
	stop()
}

// Without a pacer a Raise is the percent for a while, at least its own.
func TestRaiseAlone(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	end := Raise(400)
	if got := gcPercent(t); got != 400 {
		t.Errorf("percent %d during Raise(400), want 400", got)
	}
	end()
	if got := gcPercent(t); got != 100 {
		t.Errorf("percent %d after the Raise, want the 100 it found", got)
	}
	debug.SetGCPercent(800)
	end = Raise(400)
	if got := gcPercent(t); got != 800 {
		t.Errorf("Raise(400) lowered the percent to %d, want the 800 it found", got)
	}
	end()
}

func TestLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live    uint64
		percent int
		want    int64
	}{
		{8 * mib, 800, 2*72*mib + 64*mib},     // twice the goal of 72 MiB, and the headroom
		{512 * mib, 100, 2*1024*mib + 64*mib}, // Go's pacing: never reached before its goal
		{0, 1600, 64 * mib},
	} {
		if got := Limit(c.live, 64*mib, c.percent); got != c.want {
			t.Errorf("Limit(%d, 64 MiB, %d) = %d, want %d", c.live, c.percent, got, c.want)
		}
	}
}

// Go's own settings win: with either in the environment the pacer
// leaves the collector as it is.
func TestTheEnvironmentWins(t *testing.T) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(v, func(t *testing.T) {
			for _, other := range []string{"GOGC", "GOMEMLIMIT"} {
				t.Setenv(other, "")
				os.Unsetenv(other)
			}
			t.Setenv(v, map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}[v])
			defer debug.SetGCPercent(debug.SetGCPercent(100))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pace(ctx, 256<<20, nil) // returns at once
			runtime.GC()
			if got := gcPercent(t); got != 100 {
				t.Errorf("the percent became %d", got)
			}
			if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
				t.Errorf("the memory limit became %d", got)
			}
		})
	}
}
