package match_test

import (
	"testing"

	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/match"
	"github.com/kite-sched/kite/classad/parser"
)

func ad(t *testing.T, src string) *eval.Ad {
	t.Helper()
	r, err := parser.ParseRecord(src)
	if err != nil {
		t.Fatal(err)
	}
	return eval.FromRecord(r)
}

const (
	job = `[ Owner = "alice"; RequestMemory = 2048; RequestCpus = 2;
	         Requirements = TARGET.Memory >= RequestMemory && TARGET.Arch == "X86_64";
	         Rank = TARGET.Mips ]`
	machine = `[ Memory = 4096; Cpus = 4; Arch = "x86_64"; Mips = 1000; KeyboardIdle = 100;
	             Start = TARGET.RequestCpus <= MY.Cpus && KeyboardIdle > 60;
	             Requirements = START && TARGET.Owner != "mallory";
	             Rank = TARGET.Owner == "alice" ]`
)

func TestMatch(t *testing.T) {
	j, m := ad(t, job), ad(t, machine)
	r := match.Evaluate(j, m)
	if !r.Match || r.LeftRank.String() != "1000" || r.RightRank.String() != "true" {
		t.Fatalf("match %v ranks %s %s", r.Match, r.LeftRank, r.RightRank)
	}
	var mm match.Matcher
	if !mm.Matches(j, m) || !mm.Matches(m, j) || !mm.MatchesOnce(j, m) || !mm.MatchesOnce(m, j) {
		t.Error("the match is not symmetric")
	}
	small := ad(t, `[ Memory = 1024; Cpus = 4; Arch = "X86_64"; KeyboardIdle = 100; Requirements = true ]`)
	if mm.Matches(j, small) || mm.MatchesOnce(j, small) || mm.MatchesOnce(small, j) {
		t.Error("a job matched a machine with too little memory")
	}
	// Requirements must be true: a string or UNDEFINED is no match, a
	// non-zero number is.
	for req, want := range map[string]bool{`"true"`: false, "undefined": false, "1": true, "0.5": true, "0": false} {
		a, other := ad(t, "[ Requirements = "+req+" ]"), ad(t, "[ Requirements = true ]")
		if got := mm.Matches(a, other); got != want {
			t.Errorf("Requirements = %s: match %v, want %v", req, got, want)
		}
		if got, got2 := mm.MatchesOnce(a, other), mm.MatchesOnce(other, a); got != want || got2 != want {
			t.Errorf("Requirements = %s: MatchesOnce %v, %v, want %v", req, got, got2, want)
		}
	}
}

func TestExplain(t *testing.T) {
	j := ad(t, job)
	m := ad(t, `[ Memory = 1024; Cpus = 1; Arch = "X86_64"; KeyboardIdle = 100;
	             Start = TARGET.RequestCpus <= MY.Cpus && KeyboardIdle > 60;
	             Requirements = START && (TARGET.Owner != "mallory") ]`)
	got := match.Explain(j, m, match.Requirements)
	want := []struct {
		attr, text string
		holds      bool
	}{
		{"Requirements", "TARGET.Memory >= RequestMemory", false},
		{"Requirements", `TARGET.Arch == "X86_64"`, true},
	}
	if len(got) != len(want) {
		t.Fatalf("clauses %v", got)
	}
	for i, w := range want {
		if got[i].Attr != w.attr || got[i].String() != w.text || got[i].Holds() != w.holds {
			t.Errorf("clause %d: %s %s %v, want %s %s %v", i, got[i].Attr, got[i], got[i].Holds(), w.attr, w.text, w.holds)
		}
	}
	// The machine's side: START is expanded into its own clauses.
	mc := match.Explain(m, j, match.Requirements)
	if len(mc) != 3 || mc[0].Attr != "Start" || mc[0].String() != "TARGET.RequestCpus <= MY.Cpus" || mc[0].Holds() {
		t.Fatalf("machine clauses %v", mc)
	}
	if !mc[1].Holds() || mc[2].Attr != "Requirements" || mc[2].String() != `(TARGET.Owner != "mallory")` {
		t.Errorf("machine clauses %v", mc)
	}
}
