package jobpolicy

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// HTCondor manual, "Job Policy" (periodic_hold, periodic_remove,
// periodic_release, on_exit_hold, on_exit_remove): hold wins over remove,
// UNDEFINED holds with code 5, a user's own hold is never released by
// policy, and an absent on_exit_remove means the job is done.
func TestDecisions(t *testing.T) {
	const running, held = attr.Running, attr.Held
	tests := []struct {
		name     string
		ad       string
		periodic bool
		status   int64
		holdCode int64
		want     Action
		code     int
		reason   string
	}{
		{"nothing set", `[]`, true, running, 0, None, 0, ""},
		{"hold", `[PeriodicHold = true; PeriodicRemove = true]`, true, running, 0, Hold, attr.HoldJobPolicy, "PeriodicHold expression 'true' evaluated to TRUE"},
		{"hold reason", `[PeriodicHold = true; PeriodicHoldReason = "too long"; PeriodicHoldSubCode = 7]`, true, running, 0, Hold, attr.HoldJobPolicy, "too long"},
		{"hold undefined", `[PeriodicHold = Nope > 1]`, true, running, 0, Hold, attr.HoldJobPolicyUndefined, "evaluated to UNDEFINED"},
		{"held is not held again", `[PeriodicHold = true]`, true, held, 3, None, 0, ""},
		{"remove", `[PeriodicRemove = true]`, true, running, 0, Remove, 0, "PeriodicRemove"},
		{"remove undefined holds", `[PeriodicRemove = Nope]`, true, running, 0, Hold, attr.HoldJobPolicyUndefined, "UNDEFINED"},
		{"remove a held job", `[PeriodicRemove = true]`, true, held, 3, Remove, 0, ""},
		{"release", `[PeriodicRelease = true]`, true, held, 3, Release, 0, "PeriodicRelease"},
		{"user hold stays", `[PeriodicRelease = true]`, true, held, attr.HoldUserRequest, None, 0, ""},
		{"submitted on hold stays", `[PeriodicRelease = true]`, true, held, attr.HoldSubmittedOnHold, None, 0, ""},
		{"exit: done by default", `[]`, false, running, 0, Done, 0, ""},
		{"exit: hold", `[OnExitHold = ExitCode != 0; ExitCode = 2]`, false, running, 0, Hold, attr.HoldJobPolicy, "OnExitHold"},
		{"exit: runs again", `[OnExitRemove = ExitCode == 0; ExitCode = 2]`, false, running, 0, Requeue, 0, ""},
		{"exit: remove undefined holds", `[OnExitRemove = Nope]`, false, running, 0, Hold, attr.HoldJobPolicyUndefined, "UNDEFINED"},
		{"exit: hold wins", `[OnExitHold = true; OnExitRemove = true]`, false, running, 0, Hold, attr.HoldJobPolicy, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ad, err := classad.ParseNew(tt.ad)
			if err != nil {
				t.Fatal(err)
			}
			var d Decision
			if tt.periodic {
				d = Periodic(ad, tt.status, tt.holdCode)
			} else {
				d = OnExit(ad)
			}
			if d.Action != tt.want || d.Code != tt.code || !strings.Contains(d.Reason, tt.reason) {
				t.Fatalf("got %+v, want action %d code %d reason containing %q", d, tt.want, tt.code, tt.reason)
			}
		})
	}
}

// A cluster whose periodic expressions are absent or the literal false
// costs nothing per job.
func TestQuiet(t *testing.T) {
	for src, want := range map[string]bool{
		`[]`:                     true,
		`[PeriodicHold = false]`: true,
		`[PeriodicHold = false; PeriodicRemove = true]`: false,
		`[PeriodicRelease = NumJobStarts > 2]`:          false,
	} {
		ad, err := classad.ParseNew(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := Quiet(ad); got != want {
			t.Errorf("Quiet(%s) = %v, want %v", src, got, want)
		}
	}
}

// OnExitOf decides as OnExit does (HTCondor manual, "Job Policy":
// on_exit_hold, on_exit_remove), and asks for the whole ad only when an
// expression must be evaluated.
func TestOnExitOf(t *testing.T) {
	tests := []struct {
		ad        string
		wantWhole bool
	}{
		{`[]`, false},
		{`[OnExitHold = false; OnExitRemove = true]`, false},
		{`[OnExitHold = false; OnExitRemove = false]`, false},
		{`[OnExitRemove = false]`, false},
		{`[OnExitHold = false]`, false},
		{`[OnExitHold = true; OnExitRemove = true]`, true},
		{`[OnExitHold = true; OnExitHoldReason = "why"]`, true},
		{`[OnExitHold = ExitCode != 0; ExitCode = 2]`, true},
		{`[OnExitHold = false; OnExitRemove = ExitCode == 0; ExitCode = 2]`, true},
		{`[OnExitRemove = Nope]`, true},
		{`[OnExitHold = undefined]`, true},
		{`[OnExitRemove = 0]`, true},
		{`[OnExitRemove = "true"]`, true},
	}
	for _, tt := range tests {
		t.Run(tt.ad, func(t *testing.T) {
			ad, err := classad.ParseNew(tt.ad)
			if err != nil {
				t.Fatal(err)
			}
			lookup := func(name string) ast.Expr {
				e, _ := ad.Lookup(name)
				return e
			}
			whole := false
			got := OnExitOf(lookup(attr.OnExitHold), lookup(attr.OnExitRemove), func() *classad.Ad { whole = true; return ad })
			if want := OnExit(ad); got != want {
				t.Errorf("OnExitOf = %+v, OnExit = %+v", got, want)
			}
			if whole != tt.wantWhole {
				t.Errorf("whole ad made: %v, want %v", whole, tt.wantWhole)
			}
		})
	}
}
