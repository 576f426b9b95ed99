package submit

import (
	"os"
	"testing"
)

// bench100k is the submit benchmarks' cluster, shared with the other
// packages' (a comment in the file says what it holds); read when a
// benchmark runs, in the package's directory.
func bench100k(b *testing.B) string {
	data, err := os.ReadFile("testdata/bench100k.sub")
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func benchEnv() Env {
	return Env{
		Cluster: 7, Owner: "alice", Dir: "/home/alice/sub",
		Host: HostInfo{Arch: "X86_64", OpSys: "LINUX", OpSysAndVer: "AlmaLinux9", FileSystemDomain: "example.org"},
	}
}

func BenchmarkExpand100k(b *testing.B) {
	d, _, err := Parse("bench.sub", []byte(bench100k(b)))
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
	src := []byte(bench100k(b))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse("bench.sub", src); err != nil {
			b.Fatal(err)
		}
	}
}
