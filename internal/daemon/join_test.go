package daemon_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/membership"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// A daemon that starts before its collector answers (the master starts
// them a moment apart; a busy host may be slow) waits for it and joins
// its gossip, instead of stopping.
func TestJoinWaitsForTheCollector(t *testing.T) {
	p := pooltest.New(t)
	p.Config.Membership.Enabled = true
	p.Config.Membership.Bind = "127.0.0.1:0"
	env := p.Env("startd")
	waiting := make(chan struct{})
	env.Log = slog.New(&noticeHandler{Handler: env.Log.Handler(), msg: "waiting for the collector", seen: waiting, closed: new(sync.Once)})
	type joined struct {
		node *membership.Node
		err  error
	}
	done := make(chan joined, 1)
	go func() {
		n, err := env.JoinPool(context.Background(), "startd", "startd@late", "startd:1")
		done <- joined{n, err}
	}()
	select {
	case j := <-done:
		t.Fatalf("JoinPool returned before the collector started: %v", j.err)
	case <-waiting: // it found no collector, and waits
	}
	start.Collector(t, p)
	select {
	case j := <-done:
		if j.err != nil {
			t.Fatal(j.err)
		}
		defer j.node.Shutdown()
		// Gossip runs on real sockets with memberlist's own timers: poll.
		deadline := time.Now().Add(5 * time.Second)
		for !hasCollector(j.node.Members()) {
			if time.Now().After(deadline) {
				t.Fatalf("members %+v, want the collector", j.node.Members())
			}
			time.Sleep(20 * time.Millisecond)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("JoinPool did not return once the collector started")
	}
}

func hasCollector(ms []membership.Member) bool {
	for _, m := range ms {
		if m.Meta.Kind == "collector" && m.State == membership.Alive {
			return true
		}
	}
	return false
}

// noticeHandler passes log records on and closes seen at the first with
// the message msg.
type noticeHandler struct {
	slog.Handler
	msg    string
	seen   chan struct{}
	closed *sync.Once
}

func (h *noticeHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.closed.Do(func() { close(h.seen) })
	}
	return h.Handler.Handle(ctx, r)
}

func (h *noticeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &noticeHandler{h.Handler.WithAttrs(attrs), h.msg, h.seen, h.closed}
}

func (h *noticeHandler) WithGroup(name string) slog.Handler {
	return &noticeHandler{h.Handler.WithGroup(name), h.msg, h.seen, h.closed}
}
