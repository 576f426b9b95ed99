package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/gcpace"
	"github.com/kite-sched/kite/internal/wire"
)

// The benchmarks run a whole pool in the test process (in-memory network;
// durable queue with fsync; jobs are real processes in real sandboxes).

// benchPool is a pool whose startd sends its ads as a personal pool's
// does (changes gathered for 250 ms) and shares the schedd's file system,
// as on a personal pool: jobs run in their directories, nothing is sent.
// Its daemons share the test's process, whose collector is paced as each
// daemon's process paces its own (daemon.Run).
func benchPool(b *testing.B, slots int) *pool {
	ctx, stop := context.WithCancel(context.Background())
	paced := make(chan struct{})
	go func() { defer close(paced); gcpace.Pace(ctx, gcpace.Headroom) }()
	b.Cleanup(func() { stop(); <-paced })
	return newPoolWith(b, slots, func(c *startd.Config) {
		c.UpdateDelay = 250 * time.Millisecond
		c.Attributes = map[string]any{attr.FileSystemDomain: `"test"`} // a ClassAd string
	}, "a")
}

// counts returns the queue's idle and running jobs (history holds the
// finished).
func (pl *pool) counts(ctx context.Context) (idle, running int) {
	var t wire.QueueTotals
	if err := pl.user.Call(ctx, "GET", wire.PathTotals, nil, &t); err != nil {
		pl.t.Fatal(err)
	}
	return t.All.Idle, t.All.Running
}

// BenchmarkSubmitToRunning measures the time from submitting a job to an
// idle pool until the schedd has it running (target: < 0.1 s).
func BenchmarkSubmitToRunning(b *testing.B) {
	pl := benchPool(b, 1)
	dir := b.TempDir()
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		c := pl.submit(dir, "executable = /bin/sleep\narguments = 0.05\nshould_transfer_files = IF_NEEDED\nqueue\n")
		id := fmt.Sprintf("%d.0", c)
		for {
			st := status(pl.job(id))
			if st == attr.Running || st == attr.Completed {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		total += time.Since(start)
		b.StopTimer()
		pl.waitStatus(id, attr.Completed)
		time.Sleep(20 * time.Millisecond) // let the pool settle idle
		b.StartTimer()
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/submit-to-running")
}

// BenchmarkThroughput10k runs 10 000 /bin/true jobs on 8 slots (target:
// at least 500 jobs/s).
func BenchmarkThroughput10k(b *testing.B) {
	jobs := 10000
	if n := os.Getenv("KITE_BENCH_JOBS"); n != "" {
		jobs, _ = strconv.Atoi(n)
	}
	pl := benchPool(b, 8)
	dir := b.TempDir()
	ctx := context.Background()
	var elapsed time.Duration
	cpu := startCPU(b)
	commits0, changes0 := pl.schedd.Queue().Stats()
	for b.Loop() {
		start := time.Now()
		pl.submit(dir, fmt.Sprintf("executable = /bin/true\nshould_transfer_files = IF_NEEDED\nqueue %d\n", jobs))
		for {
			idle, running := pl.counts(ctx)
			if idle+running == 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(jobs*b.N)/elapsed.Seconds(), "jobs/s")
	cpu.report(b, jobs*b.N)
	commits, changes := pl.schedd.Queue().Stats()
	b.ReportMetric(float64(changes-changes0)/float64(commits-commits0), "changes/commit")
}

// BenchmarkExecFloor runs /bin/true as 8 parallel streams of processes and
// nothing else: the most jobs a second this machine can start and reap,
// the ceiling of BenchmarkThroughput10k whatever the scheduler does.
func BenchmarkExecFloor(b *testing.B) {
	const streams, each = 8, 250
	var elapsed time.Duration
	cpu := startCPU(b)
	for b.Loop() {
		start := time.Now()
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
				for range each {
					if err := exec.Command("/bin/true").Run(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(streams*each*b.N)/elapsed.Seconds(), "jobs/s")
	cpu.report(b, streams*each*b.N)
}

// cpuUse is the CPU this process and its reaped children have used so
// far: the pool's own (every daemon runs in the test process) and the
// jobs'.
type cpuUse struct{ self, children time.Duration }

func startCPU(b *testing.B) cpuUse {
	return cpuUse{self: rusage(b, syscall.RUSAGE_SELF), children: rusage(b, syscall.RUSAGE_CHILDREN)}
}

// report adds the CPU used since u per job, the process's and the jobs'
// apart: throughput moves with the machine's speed, the split shows
// where the time went.
func (u cpuUse) report(b *testing.B, jobs int) {
	self := rusage(b, syscall.RUSAGE_SELF) - u.self
	children := rusage(b, syscall.RUSAGE_CHILDREN) - u.children
	b.ReportMetric(float64(self.Microseconds())/float64(jobs), "self-µs/job")
	b.ReportMetric(float64(children.Microseconds())/float64(jobs), "jobs-µs/job")
}

func rusage(b *testing.B, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
