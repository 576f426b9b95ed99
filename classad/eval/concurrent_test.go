package eval

import (
	"sync"
	"testing"

	"github.com/kite-sched/kite/classad/parser"
)

// An ad is read by many goroutines at once — evaluated (which compiles
// its attributes on first use), cloned, listed and printed — as the
// schedd's readers share a cluster's ad. Run with -race.
func TestConcurrentReaders(t *testing.T) {
	rec, err := parser.ParseAd(`[ JobPrio = 3 + 4; Cmd = "/bin/true"; Rank = JobPrio * 2; Requirements = Rank > 10 ]`)
	if err != nil {
		t.Fatal(err)
	}
	ad := FromRecord(rec)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 200 {
				switch g % 4 {
				case 0:
					if v, err := EvaluateAttr(ad, "Rank", nil); err != nil || v.String() != "14" {
						t.Errorf("Rank = %s (%v)", v, err)
					}
				case 1:
					// Specialised on first use, as a matchmaker's
					// goroutines may all do at once.
					if v := NewState(ad, nil).EvalMatchAttr("Requirements"); !v.IsTrue() {
						t.Errorf("specialised Requirements = %s", v)
					}
					if c := ad.Clone(); c.Len() != 4 {
						t.Errorf("clone of %d attributes", c.Len())
					}
				case 2:
					for range ad.All() {
					}
				case 3:
					ad.AppendOld(nil)
				}
			}
		})
	}
	wg.Wait()
}
