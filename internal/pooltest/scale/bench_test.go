package scale

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"
)

// BenchmarkScale runs pools of 1 000, 5 000 and 10 000 simulated hosts
// (one slot each) with a queue of 100 000 jobs, and reports the time the
// collector takes to hold every slot ad, the time to fill every slot, the
// start rate once jobs end and claims are reused, and each daemon's CPU
// and the heap per host. Run it alone, once per size:
//
//	go test -run '^$' -bench 'Scale' -benchtime 1x ./internal/pooltest/scale/
//
// KITE_SCALE_JOBS, KITE_SCALE_RUNTIME (a duration, each job's run time;
// default: hosts/100 seconds, at least 20 s) and KITE_SCALE_WINDOW
// (default: the run time, at least minWindow) change the run;
// KITE_SCALE_PROFILE=DIR keeps each size's CPU profile there (go tool
// pprof -tagfocus daemon=schedd FILE), and the block and mutex profiles of
// the start rate's window (go tool pprof -top DIR/scale-N.block.pprof).
func BenchmarkScale(b *testing.B) {
	for _, hosts := range []int{1000, 5000, 10000} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			r := Run{Options: Options{Hosts: hosts}, Jobs: envInt("KITE_SCALE_JOBS", 100000),
				RunTime: envDuration("KITE_SCALE_RUNTIME", max(20*time.Second, time.Duration(hosts)*time.Second/100)),
				Window:  envDuration("KITE_SCALE_WINDOW", 0)}
			r.Window = cmpOr(r.Window, max(r.RunTime, minWindow))
			if dir := os.Getenv("KITE_SCALE_PROFILE"); dir != "" {
				r.Profile = fmt.Sprintf("%s/scale-%d.pprof", dir, hosts)
				r.BlockProfile = fmt.Sprintf("%s/scale-%d.block.pprof", dir, hosts)
				r.MutexProfile = fmt.Sprintf("%s/scale-%d.mutex.pprof", dir, hosts)
			}
			var f Figures
			for b.Loop() {
				f = Measure(b, r)
			}
			report(b, f)
		})
	}
}

// minWindow is the shortest default window: about five of a 1 000-host
// run's 20 s periods on every slot. The turnover comes from start dates
// in whole seconds, and a fill in a burst starts the slots within the
// same second or two, so their truncations do not cancel: with one or
// two periods a slot the mean period was off by up to a second (0.98 s
// of turnover measured at 1 000 hosts with a 20 s window, 0.12 s with
// 100 s).
const minWindow = 100 * time.Second

// report turns figures into benchmark metrics and a log line.
func report(b *testing.B, f Figures) {
	b.ReportMetric(f.Ingest.Seconds(), "ingest-s")
	b.ReportMetric(f.Fill.Seconds(), "fill-s")
	b.ReportMetric(float64(f.Slots)/f.Fill.Seconds(), "claims/s")
	b.ReportMetric(f.StartRate, "starts/s")
	b.ReportMetric(f.Turnover.Rate(f.Slots), "sustained-starts/s")
	b.ReportMetric((f.Turnover.Period - f.RunTime).Seconds(), "turnover-s")
	b.ReportMetric(f.Submit.Seconds(), "submit-s")
	b.ReportMetric(float64(f.HeapHosts-min(f.HeapBase, f.HeapHosts))/float64(f.Hosts)/1024, "KiB/host")
	b.ReportMetric(f.ProcessCPU.Seconds()/f.Span.Seconds(), "cpus")
	b.ReportMetric(float64(f.Cycles), "cycles")
	names := make([]string, 0, len(f.CPU))
	for name := range f.CPU {
		names = append(names, name)
	}
	sort.Strings(names)
	line := ""
	for _, name := range names {
		share := f.CPU[name].Seconds() / f.Span.Seconds()
		b.ReportMetric(share, name+"-cpus")
		line += fmt.Sprintf(" %s=%.2f", name, share)
	}
	b.Logf("hosts=%d slots=%d jobs=%d: up %v, ingest %v, submit %v, fill %v, starts %.0f/s (demand %.0f/s), a slot's period %v over %d turns (%.1f starts/s sustained); cpus%s (process %.2f); heap base %d MiB, hosts %d MiB, run %d MiB; goroutines %d; %d cycles, the last %.3fs (%d slots, %d idle, %d matches)",
		f.Hosts, f.Slots, f.Jobs, f.HostsUp.Round(time.Millisecond), f.Ingest.Round(time.Millisecond), f.Submit.Round(time.Millisecond),
		f.Fill.Round(time.Millisecond), f.StartRate, f.Demand, f.Turnover.Period.Round(time.Millisecond), f.Turnover.Pairs, f.Turnover.Rate(f.Slots), line, f.ProcessCPU.Seconds()/f.Span.Seconds(),
		f.HeapBase>>20, f.HeapHosts>>20, f.HeapRun>>20, f.Goroutines, f.Cycles, f.Cycle.Duration, f.Cycle.Slots, f.Cycle.IdleJobs, f.Cycle.Matches)
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}
