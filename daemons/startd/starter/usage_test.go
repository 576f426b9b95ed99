package starter

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// The job's use is sampled at the times a time.Ticker made when its
// process began ticks (HTCondor's starter updates a job's usage every
// STARTER_UPDATE_INTERVAL): a sample that takes past the next tick is
// followed by one at once, the ticks missed meanwhile dropped, and none
// follows the process's end. Each case runs a ticker loop and the sampler
// with the same measuring times and compares when they sampled.
func TestSamplerTicksAsTicker(t *testing.T) {
	for _, tc := range []struct {
		name string
		took []time.Duration // how long each sample takes, in turn
		run  time.Duration   // how long the process runs
	}{
		{"ends before the first", nil, 3 * time.Second},
		{"on time", nil, 23 * time.Second},
		{"one slow", []time.Duration{0, 7 * time.Second}, 31 * time.Second},
		{"very slow", []time.Duration{0, 17 * time.Second, 6 * time.Second}, 52 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				want := tickerTimes(tc.took, tc.run)
				got := samplerTimes(tc.took, tc.run)
				if !slices.Equal(got, want) {
					t.Errorf("sampled at %v, a ticker at %v", got, want)
				}
			})
		})
	}
}

const testInterval = 5 * time.Second

// measuring returns a measure that takes took[i] on its i-th call and
// records when each began, since start.
func measuring(took []time.Duration, start time.Time, at *[]time.Duration) func() (int64, time.Duration) {
	return func() (int64, time.Duration) {
		*at = append(*at, time.Since(start))
		if n := len(*at) - 1; n < len(took) {
			time.Sleep(took[n])
		}
		return 1 << 20, time.Duration(len(*at)) * time.Millisecond
	}
}

// tickerTimes samples with a time.Ticker, as a goroutine's loop would.
func tickerTimes(took []time.Duration, run time.Duration) []time.Duration {
	var at []time.Duration
	start := time.Now()
	measure := measuring(took, start, &at)
	tick, stop, done := time.NewTicker(testInterval), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			measure()
		}
	}()
	time.Sleep(run)
	close(stop)
	<-done
	tick.Stop()
	return at
}

// samplerTimes samples with the starter's sampler.
func samplerTimes(took []time.Duration, run time.Duration) []time.Duration {
	var at []time.Duration
	s := &Starter{cfg: Config{SampleInterval: testInterval, Now: time.Now}}
	sm := startSampler(s, measuring(took, time.Now(), &at))
	time.Sleep(run)
	sm.stop()
	if len(at) > 0 && s.usage.PeakMemoryBytes != 1<<20 {
		return nil // its samples not kept
	}
	return at
}
