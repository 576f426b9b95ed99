package queue

import (
	"testing"

	"github.com/kite-sched/kite/classad"
)

// A materialized ad is the job's whole ad, whatever jobs came before it.
func TestMaterializer(t *testing.T) {
	c1 := mustAd(t, `[ A = 1; B = 2; R = A + B ]`)
	c2 := mustAd(t, `[ A = 10 ]`)
	views := []View{
		{Cluster: c1, Own: mustAd(t, `[ ProcId = 0; A = 5 ]`)},
		{Cluster: c1, Own: mustAd(t, `[ ProcId = 1; C = 7 ]`)},
		{Cluster: c1, Own: mustAd(t, `[ ProcId = 2; B = undefined ]`)},
		{Cluster: c1, Own: mustAd(t, `[ ProcId = 3 ]`)},
		{Cluster: c2, Own: mustAd(t, `[ ProcId = 0; Z = 1 ]`)},
		{Cluster: c1, Own: mustAd(t, `[ ProcId = 4; A = 6 ]`)},
	}
	var m Materializer
	for i := range views {
		got := m.Ad(&views[i])
		want := views[i].Ad()
		for _, name := range []string{"A", "B", "C", "R", "Z", "ProcId"} {
			g, _ := classad.EvalAttr(got, name, nil)
			w, _ := classad.EvalAttr(want, name, nil)
			if g.String() != w.String() {
				t.Errorf("job %d: %s = %s, want %s", i, name, g, w)
			}
		}
		if got.Len() != want.Len() {
			t.Errorf("job %d: %d attributes, want %d", i, got.Len(), want.Len())
		}
	}
	// Many jobs of one cluster cost the same each: what is remembered
	// does not grow.
	v := View{Cluster: c1, Own: mustAd(t, `[ ProcId = 9; A = 5; C = 1 ]`)}
	for range 1000 {
		m.Ad(&v)
	}
	if len(m.over) != 3 {
		t.Errorf("%d names remembered after 1000 jobs, want 3", len(m.over))
	}
}
