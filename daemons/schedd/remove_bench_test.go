package schedd

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// BenchmarkRemove1M is `kite rm` of a cluster of 1 000 000 jobs, durably
// (fsync on): the time from the request to its answer, every job then in
// the history, and the schedd's heap growth during the rm (issue 15:
// under 10 s and 200 MiB): live-heap-growth-MiB is the live heap's peak
// (as each collection found it), peak-heap-growth-MiB
// the heap in use at its peak, garbage not yet collected included;
// cpu-s/rm is the CPU time the rm took, which a loaded machine does not
// change as it does the wall time s/rm; live-heap-before-MiB is the
// schedd's live heap with the million jobs queued, which sets how much
// garbage the collector lets pile up (GOGC).
func BenchmarkRemove1M(b *testing.B) {
	const jobs = 1_000_000
	var secs, cpuSecs, peakMiB, liveMiB, queueMiB float64
	for range b.N {
		cfg := testConfig(b)
		fillQueue(b, QueuePath(cfg.Spool), 1, jobs)
		h := startSchedd(b, pooltest.New(b), cfg)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		live0 := liveHeap()
		queueMiB += float64(live0) / (1 << 20)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var peak, live uint64
		wg.Go(func() { peak, live = heapPeak(stop) })
		t0, cpu0 := time.Now(), cpuTime()
		var res wire.ActResult
		err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathAct,
			wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{"1"}}}, &res)
		d, cpu := time.Since(t0), cpuTime()-cpu0
		close(stop)
		wg.Wait()
		if err != nil || res.Changed != jobs {
			b.Fatalf("rm: %+v %v", res, err)
		}
		h.s.q.Read(func(r *queue.Reader) {
			if _, all := r.Counts(); all.Total() != 0 {
				b.Fatalf("%d jobs left after the rm", all.Total())
			}
		})
		secs += d.Seconds()
		cpuSecs += cpu.Seconds()
		peakMiB += float64(peak-min(peak, before.HeapInuse)) / (1 << 20)
		liveMiB += float64(live-min(live, live0)) / (1 << 20)
		h.stop()
	}
	b.ReportMetric(secs/float64(b.N), "s/rm")
	b.ReportMetric(cpuSecs/float64(b.N), "cpu-s/rm")
	b.ReportMetric(peakMiB/float64(b.N), "peak-heap-growth-MiB")
	b.ReportMetric(liveMiB/float64(b.N), "live-heap-growth-MiB")
	b.ReportMetric(queueMiB/float64(b.N), "live-heap-before-MiB")
}

// cpuTime is the CPU time the process used so far, user and system: the
// rm's cost apart from what else the machine runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapPeak samples the heap every 20 ms until stop and returns its peak
// in use and the peak of the live heap (as the last collection found it).
func heapPeak(stop <-chan struct{}) (inUse, live uint64) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		inUse = max(inUse, m.HeapInuse)
		live = max(live, liveHeap())
		select {
		case <-stop:
			return inUse, live
		case <-t.C:
		}
	}
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
