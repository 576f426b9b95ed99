package startd

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kite-sched/kite/internal/wire"
)

// A preempting claim waits for the slot's job to be gone, no longer than
// its limit and no longer than its request lives.
func TestVacatingWait(t *testing.T) {
	const limit = 10 * time.Second
	for _, tt := range []struct {
		name    string
		goneAt  time.Duration // when the claim ends; 0: never
		cancel  time.Duration // when the request ends; 0: never
		want    string        // a wire error code; "": the wait succeeds
		waitFor time.Duration // how long the wait takes
	}{
		{"the job is gone", 3 * time.Second, 0, "", 3 * time.Second},
		{"gone already", time.Nanosecond, 0, "", time.Nanosecond},
		{"still vacating at the limit", 0, 0, wire.CodeUnavailable, limit},
		{"the request ends", 0, 2 * time.Second, wire.CodeUnavailable, 2 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := &vacating{slot: &slotState{name: "slot1@host1"}, gone: make(chan struct{})}
				if tt.goneAt > 0 {
					time.AfterFunc(tt.goneAt, func() { close(v.gone) })
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.cancel > 0 {
					time.AfterFunc(tt.cancel, cancel)
				}
				start := time.Now()
				err := v.wait(ctx, limit)
				if took := time.Since(start); took != tt.waitFor {
					t.Errorf("the wait took %v, want %v", took, tt.waitFor)
				}
				if tt.want == "" && err != nil || tt.want != "" && !wire.IsCode(err, tt.want) {
					t.Errorf("wait: %v, want code %v", err, tt.want)
				}
			})
		})
	}
}
