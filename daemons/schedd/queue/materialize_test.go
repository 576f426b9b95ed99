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

// A job's ad without some attributes is its whole ad with them deleted:
// the same attributes, in the same order.
func TestAdWithout(t *testing.T) {
	tests := []struct{ cluster, own string }{
		{`[ A = 1; B = 2 ]`, `[ ProcId = 0; Secret = "x"; C = 3; Addr = "y"; D = 4 ]`},
		{`[ A = 1; secret = "c"; B = 2 ]`, `[ ProcId = 0; C = 3 ]`},
		{`[ A = 1; Secret = "c"; B = 2 ]`, `[ ProcId = 0; SECRET = "o"; A = 9 ]`},
		{`[ A = 1; B = 2 ]`, `[ ProcId = 0; A = undefined; addr = "y" ]`},
		{`[ A = 1; Addr = 2 ]`, `[ ProcId = 0; Addr = undefined ]`},
		{`[ A = 1 ]`, `[ ProcId = 0 ]`},
	}
	for _, tt := range tests {
		v := View{Cluster: mustAd(t, tt.cluster), Own: mustAd(t, tt.own)}
		want := v.Ad()
		want.Delete("Secret")
		want.Delete("Addr")
		got := v.AdWithout("Secret", "Addr")
		if g, w := classad.AppendJSON(nil, got, false), classad.AppendJSON(nil, want, false); string(g) != string(w) {
			t.Errorf("%s %s: got %s, want %s", tt.cluster, tt.own, g, w)
		}
	}
}
