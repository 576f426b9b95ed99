package schedd

import (
	"testing"
	"time"
)

// The flock level (HTCondor's FLOCK_TO, "Connecting HTCondor Pools with
// Flocking": a job flocks only when it cannot run in its own pool) rises
// one pool at a time while jobs wait, and falls to 0 when none is idle.
func TestNextLevel(t *testing.T) {
	const after = time.Minute
	tests := []struct {
		name               string
		level, pools, idle int
		waited, steady     time.Duration
		next               int
	}{
		{name: "no idle job", level: 2, pools: 3, idle: 0, waited: 0, steady: time.Hour, next: 0},
		{name: "a job waited", level: 0, pools: 2, idle: 1, waited: after, steady: after, next: 1},
		{name: "not long enough", level: 0, pools: 2, idle: 5, waited: after - time.Second, steady: time.Hour, next: 0},
		{name: "the level just rose", level: 1, pools: 2, idle: 5, waited: time.Hour, steady: time.Second, next: 1},
		{name: "the next pool", level: 1, pools: 2, idle: 5, waited: time.Hour, steady: after, next: 2},
		{name: "every pool already", level: 2, pools: 2, idle: 5, waited: time.Hour, steady: time.Hour, next: 2},
		{name: "no pools", level: 0, pools: 0, idle: 5, waited: time.Hour, steady: time.Hour, next: 0},
	}
	for _, tt := range tests {
		if got := nextLevel(tt.level, tt.pools, tt.idle, tt.waited, tt.steady, after); got != tt.next {
			t.Errorf("%s: level %d, want %d", tt.name, got, tt.next)
		}
	}
}
