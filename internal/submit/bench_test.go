package submit

import (
	"testing"
)

// bench100k is a cluster of 100 000 jobs with per-proc output, error and
// arguments, as `kite submit` must handle in well under two seconds.
const bench100k = `
executable     = /bin/sleep
arguments      = 60 $(Process)
output         = out.$(Process)
error          = err.$(Process)
log            = job.log
request_memory = 1 GB
request_cpus   = 2
+Project       = "bench"
queue 100000
`

func benchEnv() Env {
	return Env{
		Cluster: 7, Owner: "alice", Dir: "/home/alice/sub",
		Host: HostInfo{Arch: "X86_64", OpSys: "LINUX", OpSysAndVer: "AlmaLinux9", FileSystemDomain: "example.org"},
	}
}

func BenchmarkExpand100k(b *testing.B) {
	d, _, err := Parse("bench.sub", []byte(bench100k))
	if err != nil {
		b.Fatal(err)
	}
	env := benchEnv()
	b.ReportAllocs()
	for b.Loop() {
		c, _, err := d.Expand(env)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Procs) != 100000 {
			b.Fatalf("%d procs", len(c.Procs))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/proc")
}

func BenchmarkParse(b *testing.B) {
	src := []byte(bench100k)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse("bench.sub", src); err != nil {
			b.Fatal(err)
		}
	}
}
