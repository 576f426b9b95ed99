package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/wire"
)

// BenchmarkWatchPoll100k is one poll of kite q -watch over a queue of
// 100 000 jobs, after the first: the queued jobs' few attributes, each
// job's state updated, the counts by batch.
func BenchmarkWatchPoll100k(b *testing.B) {
	addr, dir := benchPool(b)
	sub := filepath.Join(dir, "bench.sub")
	os.WriteFile(sub, []byte(strings.Replace(bench100k(b), "log            = job.log\n", "", 1)), 0o644)
	b.Chdir(dir)
	kite(b, io.Discard, "submit", "-name", addr, sub)
	ctx := context.Background()
	s, err := (&globals{}).findSchedd(ctx, addr)
	if err != nil {
		b.Fatal(err)
	}
	w := newQueueWatch(s.client, wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1"}}})
	if err := w.poll(ctx, time.Now()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.poll(ctx, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	if w.total.Total != 100000 || w.total.Idle != 100000 {
		b.Fatalf("counts %+v", w.total)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/poll")
}

// BenchmarkProgressView is one redraw of a terminal view of 100 batches.
func BenchmarkProgressView(b *testing.B) {
	rows := make([]progressRow, 100)
	var tp throughput
	tp.since(t0)
	for i := range 30 {
		tp.add(at(float64(i)))
	}
	for i := range rows {
		rows[i] = progressRow{Name: "batch", Counts: jobCounts{Total: 1000, Completed: i * 10, Running: 10, Idle: 990 - i*10}}
	}
	d := newDisplay(io.Discard, true)
	d.width = func() int { return 120 }
	b.ReportAllocs()
	for b.Loop() {
		for i := range rows {
			rows[i].ETA = etaText(rows[i].Counts, &tp, at(40))
		}
		d.show(rows, "status")
	}
}
