package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkDAG10k runs a DAG of /bin/true nodes on 8 slots: a fan-out
// and a fan-in stage (a root, then half the nodes at once, then a sink)
// and a chain of 1 000 (the shape; KITE_BENCH_NODES sets the
// size, 10 000 by default). It reports nodes/s; compare jobs/s of
// BenchmarkThroughput10k, the same jobs submitted at once, for the DAG's
// overhead. (DAGMan submits at most 100 node jobs every 5 s by default.)
func BenchmarkDAG10k(b *testing.B) {
	nodes := 10000
	if n := os.Getenv("KITE_BENCH_NODES"); n != "" {
		nodes, _ = strconv.Atoi(n)
	}
	chain := min(1000, nodes/10)
	fan := nodes - chain - 2
	var src strings.Builder
	src.WriteString("JOB root true.sub\nJOB sink true.sub\n")
	for i := range fan {
		fmt.Fprintf(&src, "JOB f%d true.sub\nPARENT root CHILD f%d\nPARENT f%d CHILD sink\n", i, i, i)
	}
	for i := range chain {
		fmt.Fprintf(&src, "JOB c%d true.sub\n", i)
		if i > 0 {
			fmt.Fprintf(&src, "PARENT c%d CHILD c%d\n", i-1, i)
		} else {
			src.WriteString("PARENT sink CHILD c0\n")
		}
	}
	pl := benchPool(b, 8)
	dir := b.TempDir()
	files := map[string]string{
		"big.dag":  src.String(),
		"true.sub": "executable = /bin/true\nshould_transfer_files = IF_NEEDED\nqueue\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var elapsed time.Duration
	for b.Loop() {
		start := time.Now()
		id := pl.submitDAG(dir, "big.dag", "")
		pl.waitDAGFor(id, 30*time.Minute)
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(nodes*b.N)/elapsed.Seconds(), "nodes/s")
}
