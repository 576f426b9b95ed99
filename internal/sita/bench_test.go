package sita

import (
	"math/rand/v2"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// go test ./internal/sita -run XXX -bench . -benchmem

func BenchmarkBoundaries(b *testing.B) {
	d := Pareto{K: 1e4, P: 1e7, A: 1.01}
	for b.Loop() {
		if _, err := d.Boundaries(64); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOf(b *testing.B) {
	d := Pareto{K: 1e4, P: 1e7, A: 1.01}
	iv, _ := d.Boundaries(64)
	sizes := sample(d, 1024, 1)
	i := 0
	for b.Loop() {
		iv.Of(sizes[i&1023])
		i++
	}
}

func BenchmarkSample(b *testing.B) {
	d := Pareto{K: 1e4, P: 1e7, A: 1.01}
	r := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		d.Sample(r)
	}
}

// A fit over a cluster of 100 000 jobs, as sita_fit makes it.
func BenchmarkFit100k(b *testing.B) {
	sizes := sample(Pareto{K: 1e4, P: 1e7, A: 1.01}, 100000, 1)
	for _, m := range Methods {
		b.Run(m, func(b *testing.B) {
			for b.Loop() {
				if _, err := FitSizes(m, sizes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// One evaluation of a slot's Requirements clause against a job, as the
// negotiator does for each candidate pair: literal boundaries (config
// source) and boundaries computed from the job's parameters (job source).
func BenchmarkClause(b *testing.B) {
	d := Pareto{K: 1e4, P: 1e7, A: 1.01}
	for _, cfg := range []HostConfig{
		{Intervals: 4, Interval: 2, Source: SourceConfig, K: 1e4, P: 1e7, A: 1.01},
		{Intervals: 4, Interval: 2, Source: SourceJob},
	} {
		b.Run(cfg.Source, func(b *testing.B) {
			slot := slots(b, cfg)[1]
			j := job(int64(60000), &d)
			prog, err := classad.Compile("MY.Requirements")
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				v, _ := classad.Eval(prog, slot, j)
				if !v.IsTrue() {
					b.Fatal("not admitted")
				}
			}
		})
	}
}
