package policy

import (
	"slices"
	"testing"
)

func TestRegistry(t *testing.T) {
	if s, err := New("condor"); err != nil || s.Name() != "condor" {
		t.Fatalf("New(condor) = %v, %v", s, err)
	}
	if _, err := New("nope"); err == nil {
		t.Error("an unknown strategy was made")
	}
	Register("test-only", func() Strategy { return Condor{} })
	if !slices.Contains(Names(), "test-only") || !slices.IsSorted(Names()) {
		t.Errorf("Names() = %v", Names())
	}
}

func TestReasonNames(t *testing.T) {
	var names []string
	for _, r := range Reasons() {
		names = append(names, r.String())
	}
	want := []string{"no-match", "busy", "quota", "limit", "priority", "policy"}
	if !slices.Equal(names, want) {
		t.Errorf("reasons %v, want %v", names, want)
	}
}

func TestByPriority(t *testing.T) {
	subs := []Submitter{
		{Name: "c", Priority: 500, Requests: []int{0}},
		{Name: "b", Priority: 500, Requests: []int{1}},
		{Name: "a", Priority: 900, Requests: []int{2}},
		{Name: "idle", Priority: 1},
		{Name: "broken", Priority: -3, Requests: []int{3}},
	}
	got := byPriority(subs)
	if want := []int{4, 1, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v (lowest EUP first, ties by name, no-request submitters left out)", got, want)
	}
}
