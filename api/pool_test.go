package api_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/api"
	"github.com/kite-sched/kite/daemons/collector"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// The examples run against one in-process pool that TestMain starts: a
// collector, a negotiator, a schedd and a startd with two slots, on an
// in-memory network.
var (
	pool    *pooltest.Pool
	servers struct {
		collector  *collector.Server
		negotiator *negotiator.Server
		schedd     *schedd.Server
		startd     *startd.Server
	}
	// client presents alice's token (WRITE).
	client *api.Client
	// workDir is a directory for the examples' submit files and logs.
	workDir string
)

func TestMain(m *testing.M) {
	tb := &mainTB{}
	code := func() int {
		defer tb.cleanup()
		startPool(tb)
		return m.Run()
	}()
	os.Exit(code)
}

func startPool(tb testing.TB) {
	pool = pooltest.New(tb)
	pool.Config.Startd.Slots, pool.Config.Startd.Cpus, pool.Config.Startd.Partitionable = 2, 2, false
	pool.Config.Startd.Memory = 1024
	servers.collector = start.Collector(tb, pool)
	servers.negotiator = start.Negotiator(tb, pool, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, time.Second
	})
	servers.schedd = start.Schedd(tb, pool, "schedd:1", nil)
	servers.startd = start.Startd(tb, pool, "startd:1", "exec1", nil)
	client = api.NewClient(api.Config{
		Collector: pool.Config.Pool.Collector,
		Token:     pool.Token("alice", auth.Write),
		Network:   pool.Network,
	})
	workDir = tb.TempDir()
}

// mainTB is the testing.TB of TestMain, which has none: enough of one for
// pooltest and start, failing the run on the spot.
type mainTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	dirs     []string
}

func (t *mainTB) Helper()      {}
func (t *mainTB) Name() string { return "TestMain" }
func (t *mainTB) Failed() bool { return false }
func (t *mainTB) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}
func (t *mainTB) TempDir() string {
	d, err := os.MkdirTemp("", "kite-api-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.mu.Lock()
	t.dirs = append(t.dirs, d)
	t.mu.Unlock()
	return d
}
func (t *mainTB) Logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (t *mainTB) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "TestMain: "+format+"\n", args...)
}
func (t *mainTB) Fatal(args ...any) { panic(fmt.Sprint(append([]any{"TestMain: "}, args...)...)) }
func (t *mainTB) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("TestMain: "+format, args...))
}

// cleanup runs the cleanups, last first, and removes the directories.
func (t *mainTB) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	for _, d := range t.dirs {
		os.RemoveAll(d)
	}
}
