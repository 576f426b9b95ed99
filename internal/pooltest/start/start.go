// Package start runs real Kite daemons inside a test, in a pooltest.Pool:
// each starts in the background, is ready when the function returns, and
// stops when the test ends. It is separate from pooltest so that the
// daemons' own tests can use pooltest without an import cycle.
package start

import (
	"context"
	"testing"

	"github.com/kite-sched/kite/daemons/collector"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/pooltest"
)

// service is what a daemon offers a test.
type service interface {
	daemon.Service
	Ready() <-chan struct{}
}

// run starts svc and stops it when the test ends, failing the test if it
// ends with an error.
func run(t testing.TB, kind string, svc service) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	})
	select {
	case <-svc.Ready():
	case err := <-done:
		t.Fatalf("%s did not start: %v", kind, err)
	}
}

// Collector starts the pool's collector at its configured address.
func Collector(t testing.TB, p *pooltest.Pool) *collector.Server {
	t.Helper()
	s, err := collector.New(p.Env("collector"), collector.ConfigFrom(p.Config))
	if err != nil {
		t.Fatal(err)
	}
	run(t, "collector", s)
	return s
}

// Negotiator starts a negotiator configured from the pool's configuration,
// changed by edit when it is not nil.
func Negotiator(t testing.TB, p *pooltest.Pool, edit func(*negotiator.Config)) *negotiator.Server {
	t.Helper()
	cfg, err := negotiator.ConfigFrom(p.Config)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Accountant = p.Dir + "/negotiator/accountant.db"
	if edit != nil {
		edit(&cfg)
	}
	s, err := negotiator.New(p.Env("negotiator"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run(t, "negotiator", s)
	return s
}
