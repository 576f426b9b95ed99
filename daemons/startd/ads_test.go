package startd

import (
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// A slot's ads share a literal while its value stays the same, whether
// an ad sets it where the last one did or elsewhere; a new value makes a
// new literal, and the ads made before keep theirs.
func TestSlotAdLiterals(t *testing.T) {
	for _, tt := range []struct {
		name string
		swap func(v string) bool // whether an ad sets State before Cpus
	}{
		{"in the same order", func(string) bool { return false }},
		{"in another order", func(v string) bool { return v == "Drained" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var l lits
			set := func(ad *classad.Ad, v string) {
				l.begin()
				if tt.swap(v) {
					l.str(ad, "State", v)
					l.int(ad, "Cpus", 4)
				} else {
					l.int(ad, "Cpus", 4)
					l.str(ad, "State", v)
				}
				l.real(ad, "LoadAvg", 0) // set twice, as CondorLoadAvg is
				l.bool(ad, "Draining", v == "Drained")
				load := 0.5
				if v == "Drained" {
					load = 1.25
				}
				l.real(ad, "LoadAvg", load)
			}
			first, second, third := classad.NewAd(), classad.NewAd(), classad.NewAd()
			set(first, "Claimed")
			set(second, "Claimed")
			set(third, "Drained")
			lit := func(ad *classad.Ad, name string) *ast.Literal {
				e, _ := ad.Lookup(name)
				return e.(*ast.Literal)
			}
			if lit(first, "Cpus") != lit(third, "Cpus") || lit(first, "State") != lit(second, "State") ||
				lit(first, "LoadAvg") != lit(second, "LoadAvg") || lit(first, "Draining") != lit(second, "Draining") {
				t.Error("an unchanged value is not shared")
			}
			want := map[*classad.Ad]string{
				first: "[ Cpus = 4; State = \"Claimed\"; LoadAvg = 5.000000000000000E-01; Draining = false ]",
				third: "[ Cpus = 4; State = \"Drained\"; LoadAvg = 1.250000000000000E+00; Draining = true ]",
			}
			if tt.swap("Drained") {
				want[third] = "[ State = \"Drained\"; Cpus = 4; LoadAvg = 1.250000000000000E+00; Draining = true ]"
			}
			for ad, w := range want {
				if got := classad.Unparse(ad); got != w {
					t.Errorf("got %s, want %s", got, w)
				}
			}
			l.begin()
			l.str(first, "Cpus", "4") // another kind, the same text
			if v, _ := classad.EvalAttr(first, "Cpus", nil); v.String() != `"4"` {
				t.Errorf("Cpus as a string reads %v", v)
			}
		})
	}
}

// A slot's ad for an activation is its last one brought up to date in
// place, the same as an ad made anew; an ad with other attributes is made
// anew.
func TestActivationAd(t *testing.T) {
	h := newHarness(t, nil)
	s := h.sd
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.all()[0]
	first := s.activationAd(st)
	s.load = 3.5
	second := s.activationAd(st)
	if second != first {
		t.Error("the slot's last ad was not brought up to date")
	}
	if v, _ := classad.EvalAttr(second, "LoadAvg", nil); v.String() != "3.500000000000000E+00" {
		t.Errorf("LoadAvg reads %v", v)
	}
	if got, want := classad.Unparse(second), classad.Unparse(s.slotAd(st)); got != want {
		t.Errorf("brought up to date:\n%s\nmade anew:\n%s", got, want)
	}
	s.attrs = append(s.attrs, namedExpr{name: "Extra", expr: ast.Int(1)})
	firstWas := classad.Unparse(first)
	third := s.activationAd(st)
	if third == first {
		t.Fatal("an ad with another attribute was changed in place")
	}
	if got, want := classad.Unparse(third), classad.Unparse(s.slotAd(st)); got != want {
		t.Errorf("made anew:\n%s\nwant:\n%s", got, want)
	}
	// The ad made anew is the slot's now, never the one the next
	// activation builds in; the ad it replaced is left as it was.
	s.load = 7.25
	fourth := s.activationAd(st)
	if fourth != third || st.scratch == third {
		t.Error("the slot's new ad was not brought up to date, or is built in")
	}
	if got, want := classad.Unparse(fourth), classad.Unparse(s.slotAd(st)); got != want {
		t.Errorf("brought up to date again:\n%s\nwant:\n%s", got, want)
	}
	if classad.Unparse(first) != firstWas {
		t.Error("the slot's earlier ad changed after it was replaced")
	}
}
