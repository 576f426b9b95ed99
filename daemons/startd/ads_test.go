package startd

import (
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// A slot's ads share a literal while its value stays the same; a new
// value makes a new literal, and the ads made before keep theirs.
func TestSlotAdLiterals(t *testing.T) {
	var l lits
	set := func(ad *classad.Ad, v string) {
		l.int(ad, "Cpus", 4)
		l.str(ad, "State", v)
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
	if lit(first, "Cpus") != lit(third, "Cpus") || lit(first, "State") != lit(second, "State") || lit(first, "LoadAvg") != lit(second, "LoadAvg") {
		t.Error("an unchanged value is not shared")
	}
	for _, tt := range []struct {
		ad   *classad.Ad
		want string
	}{{first, "[ Cpus = 4; State = \"Claimed\"; Draining = false; LoadAvg = 5.000000000000000E-01 ]"}, {third, "[ Cpus = 4; State = \"Drained\"; Draining = true; LoadAvg = 1.250000000000000E+00 ]"}} {
		if got := classad.Unparse(tt.ad); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
	l.str(first, "Cpus", "4") // another kind, the same text
	if v, _ := classad.EvalAttr(first, "Cpus", nil); v.String() != `"4"` {
		t.Errorf("Cpus as a string reads %v", v)
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
	third := s.activationAd(st)
	if third == first {
		t.Fatal("an ad with another attribute was changed in place")
	}
	if got, want := classad.Unparse(third), classad.Unparse(s.slotAd(st)); got != want {
		t.Errorf("made anew:\n%s\nwant:\n%s", got, want)
	}
}
