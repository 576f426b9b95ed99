package daemon

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// An update that failed is tried again after 1 s, then 2 s, 4 s, ... at
// most the update interval; a landed update ends the retries. Failures
// show at Warn, the first and every tenth (a collector missing for long
// does not flood the log); the recovery at Info.
func TestUpdateRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		r := &UpdateRetry{Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})), What: "slot ads", Interval: 10 * time.Second}
		down := errors.New("connection refused")
		var waits []time.Duration
		for range 12 {
			start := time.Now()
			<-r.Done(down)
			waits = append(waits, time.Since(start))
		}
		want := []time.Duration{1, 2, 4, 8, 10, 10, 10, 10, 10, 10, 10, 10}
		for i := range want {
			if waits[i] != want[i]*time.Second {
				t.Fatalf("waits %v, want %v seconds", waits, want)
			}
		}
		if c := r.Done(nil); c != nil {
			t.Error("a landed update still asks for a retry")
		}
		if n := strings.Count(logs.String(), "level=WARN"); n != 2 {
			t.Errorf("%d warnings for 12 failures, want 2 (the 1st and the 10th):\n%s", n, logs.String())
		}
		if !strings.Contains(logs.String(), `level=INFO msg="updating the collector again"`) {
			t.Errorf("no word of the recovery:\n%s", logs.String())
		}
		start := time.Now()
		if <-r.Done(down); time.Since(start) != time.Second {
			t.Errorf("after a landed update the next failure waits %v, want 1s", time.Since(start))
		}
	})
}
