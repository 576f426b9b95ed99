package classad_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// The per-job costs of the short-job path, on the job ad a starter wrote
// in a personal pool (testdata/bench/startd-job.ad): the schedd encodes
// the ad as JSON for the activation and for history, the startd parses
// it, and the starter writes it to the sandbox in the old syntax.

// startdJobAd returns the benchmark job ad and its JSON form.
func startdJobAd(b *testing.B) (*classad.Ad, []byte) {
	b.Helper()
	src, err := os.ReadFile("testdata/bench/startd-job.ad")
	if err != nil {
		b.Fatal(err)
	}
	ad, err := classad.ParseOld(string(src))
	if err != nil {
		b.Fatal(err)
	}
	return ad, classad.AppendJSON(nil, ad, false)
}

// BenchmarkParseJSONJobAd parses the job ad as the startd reads the next
// job from the answer to an end report.
func BenchmarkParseJSONJobAd(b *testing.B) {
	_, data := startdJobAd(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := classad.ParseJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseJSONJobAdNewGoroutine is BenchmarkParseJSONJobAd in a new
// goroutine each time, as a request's handler parses: its cost includes
// growing the goroutine's stack to the parser's depth.
func BenchmarkParseJSONJobAdNewGoroutine(b *testing.B) {
	_, data := startdJobAd(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	errs := make(chan error)
	for b.Loop() {
		go func() {
			_, err := classad.ParseJSON(data)
			errs <- err
		}()
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnmarshalJobAd decodes the job ad through encoding/json, as
// the startd reads an activation.
func BenchmarkUnmarshalJobAd(b *testing.B) {
	_, data := startdJobAd(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var ad classad.Ad
		if err := json.Unmarshal(data, &ad); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendJSONJobAd encodes the job ad, as the schedd writes an
// activation and a history record.
func BenchmarkAppendJSONJobAd(b *testing.B) {
	ad, _ := startdJobAd(b)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = classad.AppendJSON(buf[:0], ad, false)
	}
}

// BenchmarkAppendOldJobAd prints the job ad in the old syntax, as the
// starter writes the sandbox's .job.ad.
func BenchmarkAppendOldJobAd(b *testing.B) {
	ad, _ := startdJobAd(b)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = classad.AppendOld(buf[:0], ad)
	}
}
