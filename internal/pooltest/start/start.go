// Package start runs real Kite daemons inside a test, in a pooltest.Pool:
// each starts in the background, is ready when the function returns, and
// stops when the test ends. It is separate from pooltest so that the
// daemons' own tests can use pooltest without an import cycle.
package start

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/collector"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/pooltest"
)

// service is what a daemon offers a test.
type service interface {
	daemon.Service
	Ready() <-chan struct{}
}

var (
	stopMu sync.Mutex
	stops  = map[any]func(){}
)

// Stop stops a daemon started here before the test ends, as a signal
// would: gracefully, and waits until it has stopped.
func Stop(t testing.TB, svc any) {
	t.Helper()
	stopMu.Lock()
	stop := stops[svc]
	stopMu.Unlock()
	if stop == nil {
		t.Fatalf("start.Stop: %T was not started here, or stopped already", svc)
	}
	stop()
}

// Kill stops a daemon started here as a crash would, for daemons that
// can (a startd: no vacate, no word to its schedds, no gossip leave), and
// waits until it has stopped.
func Kill(t testing.TB, svc any) {
	t.Helper()
	k, ok := svc.(interface{ Kill() })
	if !ok {
		t.Fatalf("start.Kill: a %T cannot be killed", svc)
	}
	k.Kill()
	Stop(t, svc)
}

// run starts svc and stops it when the test ends (or Stop asks), failing
// the test if it ends with an error.
func run(t testing.TB, kind string, svc service) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("%s: %v", kind, err)
			}
			stopMu.Lock()
			delete(stops, svc)
			stopMu.Unlock()
		})
	}
	stopMu.Lock()
	stops[svc] = stop
	stopMu.Unlock()
	t.Cleanup(stop)
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

// Schedd starts a schedd at addr with its queue in a directory of the
// test, changed by edit when it is not nil.
func Schedd(t testing.TB, p *pooltest.Pool, addr string, edit func(*schedd.Config)) *schedd.Server {
	t.Helper()
	cfg := schedd.ConfigFrom(p.Config)
	cfg.Listen, cfg.Name = addr, addr
	cfg.Spool = filepath.Join(p.Dir, "spool-"+addr)
	cfg.UpdateDelay = 10 * time.Millisecond
	if edit != nil {
		edit(&cfg)
	}
	s, err := schedd.New(p.Env("schedd"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run(t, "schedd", s)
	return s
}

// Startd starts a startd at addr whose machine is called name, with its
// sandboxes in a directory of the test and jobs run as the test's user,
// changed by edit when it is not nil.
func Startd(t testing.TB, p *pooltest.Pool, addr, name string, edit func(*startd.Config)) *startd.Server {
	t.Helper()
	cfg := startd.ConfigFrom(p.Config)
	cfg.Listen, cfg.Name = addr, name
	cfg.ExecuteDir = filepath.Join(p.Dir, "execute-"+name)
	cfg.StateDir = filepath.Join(p.Dir, "state-"+name)
	cfg.SlotUser = ""
	cfg.UpdateDelay = 10 * time.Millisecond
	cfg.Cgroups = false
	if edit != nil {
		edit(&cfg)
	}
	s, err := startd.New(p.Env("startd"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run(t, "startd", s)
	return s
}
