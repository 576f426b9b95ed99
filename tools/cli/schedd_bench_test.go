package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// bench100k is the submit benchmarks' cluster, shared with the other
// packages' (a comment in the file says what it holds); read when a
// benchmark runs, in the package's directory.
func bench100k(b *testing.B) string {
	data, err := os.ReadFile("../../internal/submit/testdata/bench100k.sub")
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// benchPool runs a schedd on loopback TCP (durable: every commit is
// fsynced) and sets up the tools' configuration and token to reach it.
func benchPool(b *testing.B) (addr, dir string) {
	b.Helper()
	p := pooltest.New(b)
	p.Network = wire.TCP
	dir = b.TempDir()
	s, err := schedd.New(p.Env("schedd"), schedd.Config{
		Listen: "127.0.0.1:0", Name: "bench", Spool: filepath.Join(dir, "spool"), UIDDomain: "bench.org",
		PeriodicInterval: time.Hour, UpdateInterval: time.Hour, UpdateDelay: time.Second, ClaimLease: time.Minute,
		MaxBodyBytes: 1 << 30, MaxJobsPerSubmission: 100_000, MaxJobsPerOwner: 1 << 30, HistoryRetain: 1000, NoSync: os.Getenv("BENCH_NOSYNC") != "", IdentityMap: pooltest.IdentityMap(b),
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	<-s.Ready()
	conf := fmt.Sprintf("[pool]\nname = \"test\"\ncollector = \"127.0.0.1:1\"\npublic_key = %q\n[membership]\nenabled = false\n", filepath.Join(p.Dir, "pool.pub"))
	if err := os.WriteFile(filepath.Join(dir, "kite.toml"), []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("KITE_CONFIG", filepath.Join(dir, "kite.toml"))
	b.Setenv("KITE_TOKEN", p.Token("alice", auth.Write))
	return s.Addr(), dir
}

// kite runs the kite command in this process, as a user would run it.
func kite(b *testing.B, out io.Writer, args ...string) {
	b.Helper()
	var stderr strings.Builder
	if code := Run(args, nil, out, &stderr); code != 0 {
		b.Fatalf("kite %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
}

// BenchmarkSubmit100k is `kite submit` of one cluster of 100 000 jobs:
// parse, a cluster id, expansion, the request, the schedd's checks, one
// durable commit, 100 000 submit events in the job event log, the answer.
func BenchmarkSubmit100k(b *testing.B) {
	addr, dir := benchPool(b)
	sub := filepath.Join(dir, "bench.sub")
	if err := os.WriteFile(sub, []byte(bench100k(b)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Chdir(dir)
	var out strings.Builder
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		kite(b, &out, "submit", "-name", addr, sub)
	}
	if !strings.Contains(out.String(), "100000 job(s) submitted to cluster") {
		b.Fatalf("submit said %q", out.String())
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/submit")
}

// BenchmarkQ100k is `kite q -af ClusterId ProcId` over a queue of
// 100 000 jobs (condor_q takes 1.05-1.3 s).
func BenchmarkQ100k(b *testing.B) {
	addr, dir := benchPool(b)
	sub := filepath.Join(dir, "bench.sub")
	os.WriteFile(sub, []byte(strings.Replace(bench100k(b), "log            = job.log\n", "", 1)), 0o644)
	b.Chdir(dir)
	kite(b, io.Discard, "submit", "-name", addr, sub)
	var out countWriter
	b.ReportAllocs()
	for b.Loop() {
		out = 0
		kite(b, &out, "q", "-name", addr, "-af", "ClusterId", "ProcId")
	}
	if out != countWriter(len("1 99999\n")*100000-10*9-90*8-900*7-9000*6-90000*5+100000*0) && out < 100000*4 {
		b.Fatalf("q wrote %d bytes", out)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/q")
}

// BenchmarkQ100kBatch is plain `kite q`: condor_q's batch summary of the
// same queue.
func BenchmarkQ100kBatch(b *testing.B) {
	addr, dir := benchPool(b)
	sub := filepath.Join(dir, "bench.sub")
	os.WriteFile(sub, []byte(strings.Replace(bench100k(b), "log            = job.log\n", "", 1)), 0o644)
	b.Chdir(dir)
	kite(b, io.Discard, "submit", "-name", addr, sub)
	var out strings.Builder
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		kite(b, &out, "q", "-name", addr)
	}
	if !strings.Contains(out.String(), "Total for query: 100000 jobs") {
		b.Fatalf("q said %q", out.String())
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/q")
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// BenchmarkQ100kConstraint is `kite q -constraint 'ProcId >= 99990' -af
// ClusterId ProcId`: a constraint evaluated in each of 100 000 job ads.
func BenchmarkQ100kConstraint(b *testing.B) {
	addr, dir := benchPool(b)
	sub := filepath.Join(dir, "bench.sub")
	os.WriteFile(sub, []byte(strings.Replace(bench100k(b), "log            = job.log\n", "", 1)), 0o644)
	b.Chdir(dir)
	kite(b, io.Discard, "submit", "-name", addr, sub)
	var out strings.Builder
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		kite(b, &out, "q", "-name", addr, "-constraint", "ProcId >= 99990", "-af", "ClusterId", "ProcId")
	}
	if strings.Count(out.String(), "\n") != 10 {
		b.Fatalf("q said %q", out.String())
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/q")
}
