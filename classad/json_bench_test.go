package classad_test

import (
	"testing"

	"github.com/kite-sched/kite/classad"
)

// BenchmarkParseJSONMachineAd decodes the machine ad from HTCondor's JSON form.
func BenchmarkParseJSONMachineAd(b *testing.B) {
	_, machine, _ := benchAds(b)
	data := classad.AppendJSON(nil, machine, false)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := classad.ParseJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendJSONMachineAd encodes the machine ad.
func BenchmarkAppendJSONMachineAd(b *testing.B) {
	_, machine, _ := benchAds(b)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = classad.AppendJSON(buf[:0], machine, false)
	}
}
