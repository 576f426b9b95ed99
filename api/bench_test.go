package api_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/api"
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// bench100k is the submit benchmarks' cluster, shared with the other
// packages' (a comment in the file says what it holds); read when a
// benchmark runs, in the package's directory.
func bench100k(b *testing.B) string {
	data, err := os.ReadFile("../internal/submit/testdata/bench100k.sub")
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// benchSchedd runs a schedd on loopback TCP, durable as tools/cli's
// benchmarks run it, and returns a client for it as alice.
func benchSchedd(b *testing.B) *api.Schedd {
	p := pooltest.New(b)
	p.Network = wire.TCP
	s := start.Schedd(b, p, "127.0.0.1:0", func(c *schedd.Config) {
		c.PeriodicInterval, c.UpdateInterval, c.UpdateDelay, c.ClaimLease = time.Hour, time.Hour, time.Second, time.Minute
		c.MaxBodyBytes, c.MaxJobsPerSubmission, c.MaxJobsPerOwner, c.HistoryRetain = 1<<30, 100_000, 1<<30, 1000
		c.NoSync = os.Getenv("BENCH_NOSYNC") != ""
	})
	c := api.NewClient(api.Config{Token: p.Token("alice", auth.Write)})
	return c.ScheddAt(s.Addr())
}

// BenchmarkSubmit100k is a Go client's submit of one cluster of 100 000
// jobs: what tools/cli's BenchmarkSubmit100k measures for kite submit
// (parse, a cluster id, expansion, the request, one durable commit).
func BenchmarkSubmit100k(b *testing.B) {
	s := benchSchedd(b)
	dir := b.TempDir()
	ctx := context.Background()
	src := []byte(bench100k(b))
	b.ReportAllocs()
	var res api.SubmitResult
	for b.Loop() {
		sd, _, err := api.ParseSubmit("bench.sub", src, api.SubmitOptions{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if res, _, err = s.Submit(ctx, sd); err != nil {
			b.Fatal(err)
		}
	}
	if res.Procs != 100_000 {
		b.Fatalf("submitted %+v", res)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/submit")
}

// BenchmarkQuery100k streams 100 000 job ads projected on two attributes.
func BenchmarkQuery100k(b *testing.B) {
	s := benchSchedd(b)
	ctx := context.Background()
	sd, _, err := api.ParseSubmit("bench.sub", []byte(strings.Replace(bench100k(b), "log            = job.log\n", "", 1)), api.SubmitOptions{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := s.Submit(ctx, sd); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := s.Query(ctx, api.JobQuery{Projection: []string{"ClusterId", "ProcId"}}, func(*classad.Ad) error { n++; return nil })
		if err != nil || n != 100_000 {
			b.Fatalf("%d ads, %v", n, err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/query")
}
