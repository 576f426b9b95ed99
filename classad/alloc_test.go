package classad_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// The short-job path's work on ads allocates at most this much: a
// regression (a parser's state moved to the heap by a change that makes
// it escape, a copy made per attribute) fails here rather than only in a
// benchmark. The collector is off while counting, so that the parser's
// pooled scratch stays in its pool.
func TestAllocations(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector empties pools at random")
	}
	src, err := os.ReadFile("testdata/bench/startd-job.ad")
	if err != nil {
		t.Fatal(err)
	}
	job, err := classad.ParseOld(string(src))
	if err != nil {
		t.Fatal(err)
	}
	machineSrc, err := os.ReadFile("testdata/bench/machine.ad")
	if err != nil {
		t.Fatal(err)
	}
	machine := string(machineSrc)
	jobJSON := classad.AppendJSON(nil, job, false)
	buf := make([]byte, 0, 64<<10)
	tests := []struct {
		name string
		max  float64
		f    func()
	}{
		{"ParseJSON job", 25, func() { _, _ = classad.ParseJSON(jobJSON) }},
		{"UnmarshalJSON job", 25, func() { _ = new(classad.Ad).UnmarshalJSON(jobJSON) }},
		{"ParseNew machine", 17, func() { _, _ = classad.ParseNew(machine) }},
		{"AppendJSON job", 1, func() { buf = classad.AppendJSON(buf[:0], job, false) }},
		{"AppendOld job", 0, func() { buf = classad.AppendOld(buf[:0], job) }},
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, tt := range tests {
		if n := testing.AllocsPerRun(50, tt.f); n > tt.max {
			t.Errorf("%s: %v allocations, want at most %v", tt.name, n, tt.max)
		}
	}
}
