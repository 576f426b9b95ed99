// Package scale runs a pool of thousands of hosts in one process, to
// measure how Kite's daemons grow with the pool: one collector, one
// negotiator, one schedd and a startd per host, all the real daemons on
// the in-memory network and the real wire protocol (ads to the
// collector, negotiation, claims, activations, job ends, claim reuse).
// Only the jobs are not real: the startds run in simulated mode
// (startd.Config.Simulate), where a job lasts the run time its ad
// declares (KiteSimRunTime, seconds) without a process or a sandbox.
//
// The startds of a pool share one daemon environment (one HTTP connector
// to the collector and the schedd, as startds in one process would);
// each has its own listener, slots, claims, policy and loops. Simulated
// hosts have no keyboard and no load (Sensors), and their machine is
// given, not detected.
//
// Each daemon runs under a pprof label (daemon=collector, negotiator,
// schedd, startd), inherited by the goroutines it starts, so that a CPU
// profile of the run splits the process's CPU by daemon (cpu.go).
package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/collector"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/daemons/startd/resources"
	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// Options size a pool.
type Options struct {
	Hosts        int // startds
	SlotsPerHost int // static one-CPU slots per host; 0 is 1
	// NegotiatorInterval and CycleDelay replace the configured ones when
	// not 0 (the defaults are HTCondor's: a minute, and 100 ms after new
	// idle jobs or freed slots).
	NegotiatorInterval, CycleDelay time.Duration
}

// Pool is a running pool of simulated hosts.
type Pool struct {
	tb         testing.TB
	p          *pooltest.Pool
	opts       Options
	Collector  *collector.Server
	Negotiator *negotiator.Server
	Schedd     *schedd.Server
	Startds    []*startd.Server
	user       *wire.Client
	coll       *wire.Client
	stops      []func()
}

// The daemons' addresses on the in-memory network.
const (
	scheddAddr     = "schedd:1"
	negotiatorAddr = "negotiator:1"
)

// Start starts a pool of opts.Hosts simulated hosts and returns once
// every startd serves (its ads may still be on their way: see
// WaitIngest). The pool stops when the test ends.
func Start(tb testing.TB, opts Options) *Pool {
	tb.Helper()
	opts.SlotsPerHost = max(opts.SlotsPerHost, 1)
	resources.Benchmark() // once per process, before any clock is faked
	p := pooltest.New(tb)
	pl := &Pool{tb: tb, p: p, opts: opts}
	tb.Cleanup(pl.stop)
	var err error
	pl.Collector, err = collector.New(pl.env("collector"), collector.ConfigFrom(p.Config))
	pl.check(err)
	pl.run("collector", pl.Collector)
	ncfg, err := negotiator.ConfigFrom(p.Config)
	pl.check(err)
	ncfg.Listen, ncfg.Accountant = negotiatorAddr, filepath.Join(p.Dir, "accountant.db")
	ncfg.Interval = cmpOr(opts.NegotiatorInterval, ncfg.Interval)
	ncfg.CycleDelay = cmpOr(opts.CycleDelay, ncfg.CycleDelay)
	pl.Negotiator, err = negotiator.New(pl.env("negotiator"), ncfg)
	pl.check(err)
	pl.run("negotiator", pl.Negotiator)
	scfg := schedd.ConfigFrom(p.Config)
	scfg.Listen, scfg.Name, scfg.Spool = scheddAddr, scheddAddr, filepath.Join(p.Dir, "spool")
	scfg.MaxRunning = max(scfg.MaxRunning, opts.Hosts*opts.SlotsPerHost)
	pl.Schedd, err = schedd.New(pl.env("schedd"), scfg)
	pl.check(err)
	pl.run("schedd", pl.Schedd)
	pl.user = p.Client(scheddAddr, "alice", auth.Write)
	pl.coll = p.Client(p.Config.Pool.Collector, "alice", auth.Read)
	pl.startHosts()
	return pl
}

// env is a daemon's environment in the pool, logging nothing (a
// discarding handler costs nothing; a handler writing to io.Discard
// still formats every record).
func (pl *Pool) env(kind string) *daemon.Env {
	e := pl.p.Env(kind)
	e.Log = slog.New(slog.DiscardHandler)
	return e
}

// startHosts starts the startds, all sharing one environment.
func (pl *Pool) startHosts() {
	env := pl.env("startd")
	base := startd.ConfigFrom(pl.p.Config)
	n := int64(pl.opts.SlotsPerHost)
	base.Layout = nil
	base.ExecuteDir = filepath.Join(pl.p.Dir, "execute") // simulated jobs make no sandbox
	base.StateDir, base.SlotUser, base.Cgroups = "", "", false
	m, _ := resources.Detect(pl.p.Dir) // its OS and architecture, once
	m.Cpus, m.MemoryMiB, m.DiskKiB = n, 2048*n, 10<<20*n
	base.Machine = &m
	base.Sensors, base.BenchmarkMs, base.Simulate = idleHost{}, 1, true
	pl.p.Config.Startd.Slots, pl.p.Config.Startd.Partitionable = pl.opts.SlotsPerHost, false
	base.Layout = startd.ConfigFrom(pl.p.Config).Layout
	pl.Startds = make([]*startd.Server, pl.opts.Hosts)
	for i := range pl.Startds {
		cfg := base
		cfg.Name = HostName(i)
		cfg.Listen = cfg.Name + ":1"
		var err error
		pl.Startds[i], err = startd.New(env, cfg)
		pl.check(err)
		pl.run("startd", pl.Startds[i])
	}
}

// HostName is the name of the pool's i-th host.
func HostName(i int) string { return "h" + strconv.Itoa(100000 + i)[1:] }

// Slots is the number of slots in the pool.
func (pl *Pool) Slots() int { return pl.opts.Hosts * pl.opts.SlotsPerHost }

// service is what the pool runs.
type service interface {
	Run(ctx context.Context) error
	Ready() <-chan struct{}
}

// run starts svc under the pprof label daemon=label and waits until it
// is ready; it stops when the pool stops.
func (pl *Pool) run(label string, svc service) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	pprof.Do(ctx, pprof.Labels("daemon", label), func(ctx context.Context) {
		go func() { done <- svc.Run(ctx) }()
	})
	var once sync.Once
	pl.stops = append(pl.stops, func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil && label == "startd" {
				// thousands stopping at once may outlast their HTTP
				// servers' grace: not what the pool measures
				pl.tb.Logf("%s: %v", label, err)
			} else if err != nil {
				pl.tb.Errorf("%s: %v", label, err)
			}
		})
	})
	select {
	case <-svc.Ready():
	case err := <-done:
		pl.tb.Fatalf("%s did not start: %v", label, err)
	}
}

// stop stops the daemons, the last started first, the startds together.
func (pl *Pool) stop() {
	var wg sync.WaitGroup
	startds := len(pl.Startds)
	for i := len(pl.stops) - 1; i >= 0; i-- {
		if i >= 3 && startds > 0 {
			wg.Go(pl.stops[i])
			continue
		}
		wg.Wait()
		pl.stops[i]()
	}
	wg.Wait()
}

// WaitIngest waits until the collector holds every slot's ad.
func (pl *Pool) WaitIngest(ctx context.Context) error {
	for {
		n, err := pl.slotAds(ctx)
		if err != nil {
			return err
		}
		if n >= pl.Slots() {
			return nil
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return fmt.Errorf("the collector holds %d of %d slot ads: %w", n, pl.Slots(), err)
		}
	}
}

// slotAds counts the collector's slot ads.
func (pl *Pool) slotAds(ctx context.Context) (int, error) {
	q := wire.Query{Type: attr.TypeSlot, Projection: []string{attr.Name}}
	n := 0
	err := pl.coll.Stream(ctx, "POST", wire.PathQuery, q, func(json.RawMessage) error { n++; return nil })
	return n, err
}

// Submit queues jobs simulated jobs of alice's, each declaring the run
// time runTime, in as few submits as the schedd takes
// (schedd.max_jobs_per_submission each).
func (pl *Pool) Submit(ctx context.Context, jobs int, runTime time.Duration) error {
	per := pl.p.Config.Schedd.MaxJobsPerSubmission
	for jobs > 0 {
		n := min(jobs, per)
		if err := pl.submit(ctx, n, runTime); err != nil {
			return err
		}
		jobs -= n
	}
	return nil
}

// submit queues one cluster of n jobs.
func (pl *Pool) submit(ctx context.Context, n int, runTime time.Duration) error {
	return pl.SubmitFile(ctx, fmt.Sprintf("executable = /bin/true\nshould_transfer_files = IF_NEEDED\n+%s = %g\nqueue %d\n",
		starter.SimRunTime, runTime.Seconds(), n))
}

// SubmitFile queues the jobs of a submit description as alice.
func (pl *Pool) SubmitFile(ctx context.Context, text string) error {
	dir := pl.tb.TempDir()
	d, _, err := submit.Parse(filepath.Join(dir, "job.sub"), []byte(text))
	if err != nil {
		return err
	}
	var nc wire.NewCluster
	if err := pl.user.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return err
	}
	env := submit.LocalEnv(dir)
	env.Host.FileSystemDomain = pl.p.Env("schedd").Host
	env.Cluster, env.Owner = int(nc.Cluster), nc.Owner
	c, _, err := d.Expand(env)
	if err != nil {
		return err
	}
	var res wire.SubmitResult
	path := wire.PathSubmit + "?cluster=" + strconv.FormatInt(nc.Cluster, 10)
	return pl.user.CallRaw(ctx, "POST", path, c.AppendJSON(nil), &res)
}

// History returns the ads of the jobs that left the queue.
func (pl *Pool) History(ctx context.Context) ([]*classad.Ad, error) {
	var ads []*classad.Ad
	err := pl.user.Stream(ctx, "POST", wire.PathHistory, wire.HistoryQuery{}, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		ads = append(ads, ad)
		return err
	})
	return ads, err
}

// Counts returns the queue's totals.
func (pl *Pool) Counts(ctx context.Context) (wire.StatusCounts, error) {
	var t wire.QueueTotals
	err := pl.user.Call(ctx, "GET", wire.PathTotals, nil, &t)
	return t.All, err
}

// idleHost is a simulated host's sensors: no load, nobody at the console.
type idleHost struct{}

func (idleHost) LoadAvg() float64                         { return 0 }
func (idleHost) Idle(time.Time) (keyboard, console int64) { return 1 << 20, 1 << 20 }

// pause waits d or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// HeapBytes is the live heap after a collection.
func HeapBytes() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// check fails the test on an error.
func (pl *Pool) check(err error) {
	pl.tb.Helper()
	if err != nil {
		pl.tb.Fatal(err)
	}
}

func cmpOr(a, b time.Duration) time.Duration {
	if a != 0 {
		return a
	}
	return b
}
