package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

func parse(t *testing.T, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

// pool: 10 x86 slots with 4 GB (two of them refuse alice, three claimed),
// 5 arm slots with 8 GB.
func pool(t *testing.T) []*classad.Ad {
	var out []*classad.Ad
	for i := range 15 {
		arch, mem, start, state, user := "X86_64", 4096, "true", "Unclaimed", ""
		if i >= 10 {
			arch, mem = "aarch64", 8192
		}
		if i < 2 {
			start = `TARGET.Owner != "alice"`
		}
		switch i {
		case 2:
			state, user = "Claimed", "alice@example.org"
		case 3:
			state, user = "Claimed", "bob@example.org"
		case 4:
			state = "Owner"
		}
		out = append(out, parse(t, fmt.Sprintf(`[Name="slot%d"; Arch=%q; Memory=%d; START=%s; Requirements=START; State=%q; RemoteUser=%q]`,
			i, arch, mem, start, state, user)))
	}
	return out
}

func job(t *testing.T, mem int) *classad.Ad {
	return parse(t, fmt.Sprintf(`[Owner="alice"; User="alice@example.org"; RequestMemory=%d;
		Requirements = (TARGET.Arch == "X86_64") && (TARGET.Memory >= RequestMemory)]`, mem))
}

func TestAnalyzeNamesTheFailingClause(t *testing.T) {
	r := Job(job(t, 6000), pool(t))
	if r.Slots != 15 || r.RejectedByJob != 15 || r.Matching != 0 {
		t.Fatalf("report %+v", r)
	}
	want := []Clause{
		{Expr: `TARGET.Arch == "X86_64"`, Pass: 10, Alone: 5},
		{Expr: `TARGET.Memory >= RequestMemory`, Pass: 5, Alone: 10},
	}
	if len(r.Clauses) != 2 || r.Clauses[0] != want[0] || r.Clauses[1] != want[1] {
		t.Errorf("clauses %+v\nwant %+v", r.Clauses, want)
	}
	all := strings.Join(r.Suggestions, "\n")
	for _, s := range []string{
		`the job wants Arch == "X86_64"; the pool has "X86_64" (10 slots), "aarch64" (5 slots)`,
		`the job needs Memory >= 6000; the largest in the pool is 8192`,
		`request_memory = 8192 alone would not be enough: other clauses still fail`,
	} {
		if !strings.Contains(all, s) {
			t.Errorf("suggestions lack %q:\n%s", s, all)
		}
	}
}

func TestAnalyzeSuggestionIsChecked(t *testing.T) {
	// Only arm slots have enough memory, and the job takes any arch.
	j := parse(t, `[Owner="alice"; RequestMemory=16000; Requirements = TARGET.Memory >= RequestMemory]`)
	r := Job(j, pool(t))
	all := strings.Join(r.Suggestions, "\n")
	if !strings.Contains(all, "with request_memory = 8192 the job would match 5 slots") {
		t.Errorf("suggestions:\n%s", all)
	}
}

func TestAnalyzeSlotsSideAndStates(t *testing.T) {
	r := Job(job(t, 1000), pool(t))
	if r.RejectedByJob != 5 || r.RejectedBySlot != 2 || r.Matching != 8 {
		t.Fatalf("rejected by job %d, by slots %d, matching %d; want 5, 2, 8", r.RejectedByJob, r.RejectedBySlot, r.Matching)
	}
	if r.Free != 5 || r.Yours != 1 || r.Others != 1 || r.Offline != 1 {
		t.Errorf("free %d yours %d others %d offline %d; want 5 1 1 1", r.Free, r.Yours, r.Others, r.Offline)
	}
	if len(r.SlotClauses) != 1 || r.SlotClauses[0].Expr != `TARGET.Owner != "alice"` || r.SlotClauses[0].Slots != 2 {
		t.Errorf("slot clauses %+v", r.SlotClauses)
	}
	if len(r.Suggestions) != 0 {
		t.Errorf("suggestions for a job that can run: %v", r.Suggestions)
	}
}

func TestAnalyzeUndefinedAttribute(t *testing.T) {
	j := parse(t, `[Owner="alice"; Requirements = TARGET.HasGPU == true && (TARGET.HasDocker || TARGET.Arch == "ppc")]`)
	r := Job(j, pool(t))
	all := strings.Join(r.Suggestions, "\n")
	if r.Clauses[0].Undefined != 15 || !strings.Contains(all, "no slot in the pool has HasGPU") ||
		!strings.Contains(all, `TARGET.HasDocker || TARGET.Arch == "ppc" is undefined on 15 slots`) {
		t.Errorf("report %+v\n%s", r, all)
	}
}
