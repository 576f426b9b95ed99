package matchmaker

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/fairshare"
)

// The accountant's priorities and the cycle's fair share together give
// submitters slots in the inverse ratio of their priority factors' roots.
func TestFairShareConvergesToFactors(t *testing.T) {
	tests := []struct {
		fa, fb float64
		ratio  float64
	}{
		{1000, 1000, 1},
		{1000, 4000, 2},
		{1000, 9000, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v:%v", tt.fa, tt.fb), func(t *testing.T) {
			a, err := fairshare.OpenAccountant(filepath.Join(t.TempDir(), "acct.db"), time.Hour, 1000)
			must(t, err)
			t.Cleanup(func() { a.Close() })
			_, err = a.SetFactor("a", tt.fa)
			must(t, err)
			_, err = a.SetFactor("b", tt.fb)
			must(t, err)
			pool := slots(t, 60, nil)
			jobs := map[string]*classad.Ad{"a": jobAd(t, `Owner="a"`), "b": jobAd(t, `Owner="b"`)}
			now := time.Unix(1e9, 0)
			held := map[string]float64{}
			var got map[string]int
			for cycle := range 300 {
				now = now.Add(10 * time.Minute)
				must(t, a.Update(now, held))
				snap := &Snapshot{Slots: pool, Now: now}
				for _, name := range []string{"a", "b"} {
					snap.Submitters = append(snap.Submitters, Submitter{Name: name, Schedd: "s", Priority: a.Effective(name),
						Requests: []Request{{ID: name, Count: 1000, Ad: jobs[name]}}})
				}
				got = count(Cycle(snap, &Policy{Seed: uint64(cycle)}), bySubmitter)
				held = map[string]float64{"a": float64(got["a"]), "b": float64(got["b"])}
			}
			if got["a"]+got["b"] != 60 {
				t.Fatalf("the pool was not used: %v", got)
			}
			if r := float64(got["a"]) / float64(got["b"]); math.Abs(r-tt.ratio)/tt.ratio > 0.1 {
				t.Errorf("slots a:b = %d:%d (%.2f), want a ratio of %.2f", got["a"], got["b"], r, tt.ratio)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
