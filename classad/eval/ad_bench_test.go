package eval_test

import (
	"os"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/parser"
)

// benchJobAttrs returns the attributes of the benchmark job ad (the one a
// starter wrote in a personal pool).
func benchJobAttrs(b *testing.B) []ast.Attr {
	b.Helper()
	src, err := os.ReadFile("../testdata/bench/startd-job.ad")
	if err != nil {
		b.Fatal(err)
	}
	r, err := parser.ParseOld(string(src))
	if err != nil {
		b.Fatal(err)
	}
	return r.Attrs
}

// BenchmarkAdSet builds the job ad attribute by attribute, as daemons
// build the ads they make (a slot's, an activation's additions).
func BenchmarkAdSet(b *testing.B) {
	attrs := benchJobAttrs(b)
	b.ReportAllocs()
	for b.Loop() {
		ad := eval.NewAd()
		for _, a := range attrs {
			ad.Set(a.Name, a.Value)
		}
	}
}

// BenchmarkAdSetRoom builds the job ad as BenchmarkAdSet does, in an ad
// made with room for it.
func BenchmarkAdSetRoom(b *testing.B) {
	attrs := benchJobAttrs(b)
	b.ReportAllocs()
	for b.Loop() {
		ad := eval.NewAdRoom(len(attrs))
		for _, a := range attrs {
			ad.Set(a.Name, a.Value)
		}
	}
}

// BenchmarkAdResetSet rebuilds the job ad in one scratch ad, as the startd
// does a slot's ad at each activation.
func BenchmarkAdResetSet(b *testing.B) {
	attrs := benchJobAttrs(b)
	ad := eval.NewAdRoom(len(attrs))
	b.ReportAllocs()
	for b.Loop() {
		ad.Reset()
		for _, a := range attrs {
			ad.Set(a.Name, a.Value)
		}
	}
}

// BenchmarkAdSetExisting redefines every attribute of the job ad, as a
// job's updates do.
func BenchmarkAdSetExisting(b *testing.B) {
	attrs := benchJobAttrs(b)
	ad := eval.FromRecord(&ast.Record{Attrs: attrs})
	b.ReportAllocs()
	for b.Loop() {
		for _, a := range attrs {
			ad.Set(a.Name, a.Value)
		}
	}
}

// BenchmarkAdClone copies the job ad, as the schedd does for a job it
// changes.
func BenchmarkAdClone(b *testing.B) {
	ad := eval.FromRecord(&ast.Record{Attrs: benchJobAttrs(b)})
	b.ReportAllocs()
	for b.Loop() {
		ad.Clone()
	}
}

// BenchmarkAdCloneSet copies the job ad's first 60 attributes and sets
// the rest over them, as the schedd merges a job's own attributes over
// its cluster's.
func BenchmarkAdCloneSet(b *testing.B) {
	attrs := benchJobAttrs(b)
	base := eval.FromRecord(&ast.Record{Attrs: attrs[:60]})
	b.ReportAllocs()
	for b.Loop() {
		ad := base.Clone()
		for _, a := range attrs[50:] {
			ad.Set(a.Name, a.Value)
		}
	}
}

// BenchmarkAdCloneRoomSet does what BenchmarkAdCloneSet does in a clone
// made with room.
func BenchmarkAdCloneRoomSet(b *testing.B) {
	attrs := benchJobAttrs(b)
	base := eval.FromRecord(&ast.Record{Attrs: attrs[:60]})
	b.ReportAllocs()
	for b.Loop() {
		ad := base.CloneRoom(len(attrs) - 50)
		for _, a := range attrs[50:] {
			ad.Set(a.Name, a.Value)
		}
	}
}

// BenchmarkAdDelete deletes an attribute of the job ad and sets it again,
// as a job's updates do.
func BenchmarkAdDelete(b *testing.B) {
	attrs := benchJobAttrs(b)
	ad := eval.FromRecord(&ast.Record{Attrs: attrs})
	a := attrs[len(attrs)/2]
	b.ReportAllocs()
	for b.Loop() {
		ad.Delete(a.Name)
		ad.Set(a.Name, a.Value)
	}
}

// BenchmarkAdLookup looks every attribute of the job ad up by a name
// spelt differently (so not by pointer).
func BenchmarkAdLookup(b *testing.B) {
	attrs := benchJobAttrs(b)
	ad := eval.FromRecord(&ast.Record{Attrs: attrs})
	names := make([]string, len(attrs))
	for i, a := range attrs {
		names[i] = ast.Lower(a.Name)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range names {
			if _, ok := ad.Lookup(n); !ok {
				b.Fatal(n)
			}
		}
	}
}
