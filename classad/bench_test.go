package classad_test

import (
	"os"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/match"
)

// The benchmark ads: a typical job and a typical partitionable slot.
func benchAds(b *testing.B) (job, machine *classad.Ad, machineText string) {
	b.Helper()
	read := func(name string) string {
		src, err := os.ReadFile("testdata/bench/" + name)
		if err != nil {
			b.Fatal(err)
		}
		return string(src)
	}
	machineText = read("machine.ad")
	job, err := classad.ParseNew(read("job.ad"))
	if err != nil {
		b.Fatal(err)
	}
	machine, err = classad.ParseNew(machineText)
	if err != nil {
		b.Fatal(err)
	}
	return job, machine, machineText
}

// BenchmarkEvalRequirements evaluates the job's Requirements against the
// machine ad, as a match does.
func BenchmarkEvalRequirements(b *testing.B) {
	job, machine, _ := benchAds(b)
	var st eval.State
	b.ReportAllocs()
	for b.Loop() {
		st.Reset(job, machine)
		if !st.EvalAttr("Requirements").IsTrue() {
			b.Fatal("requirements not met")
		}
	}
}

// BenchmarkMatch is a symmetric match: both Requirements.
func BenchmarkMatch(b *testing.B) {
	job, machine, _ := benchAds(b)
	var m match.Matcher
	b.ReportAllocs()
	for b.Loop() {
		if !m.Matches(job, machine) {
			b.Fatal("no match")
		}
	}
}

// BenchmarkMatchRank is a symmetric match plus both Ranks.
func BenchmarkMatchRank(b *testing.B) {
	job, machine, _ := benchAds(b)
	var m match.Matcher
	b.ReportAllocs()
	for b.Loop() {
		if !m.Matches(job, machine) {
			b.Fatal("no match")
		}
		m.Rank(job, machine)
		m.Rank(machine, job)
	}
}

// BenchmarkParseMachineAd parses the machine ad from text.
func BenchmarkParseMachineAd(b *testing.B) {
	_, _, text := benchAds(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := classad.ParseNew(text); err != nil {
			b.Fatal(err)
		}
	}
}
