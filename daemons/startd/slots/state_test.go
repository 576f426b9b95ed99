package slots

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/transitions.golden")

// allowed is every transition a slot may take, written out independently
// of the table in state.go; every other pair of status and event must be
// refused.
var allowed = []struct {
	from  Status
	event Event
	to    Status
}{
	{Status{Owner, Idle}, OwnerGone, Status{Unclaimed, Idle}},
	{Status{Owner, Idle}, Claim, Status{Claimed, Idle}},
	{Status{Owner, Idle}, Drain, Status{Drained, Retiring}},
	{Status{Unclaimed, Idle}, OwnerBack, Status{Owner, Idle}},
	{Status{Unclaimed, Idle}, Benchmark, Status{Unclaimed, Benchmarking}},
	{Status{Unclaimed, Benchmarking}, BenchmarkDone, Status{Unclaimed, Idle}},
	{Status{Unclaimed, Idle}, Claim, Status{Claimed, Idle}},
	{Status{Unclaimed, Idle}, Match, Status{Matched, Idle}},
	{Status{Unclaimed, Idle}, Drain, Status{Drained, Retiring}},
	{Status{Matched, Idle}, OwnerBack, Status{Owner, Idle}},
	{Status{Matched, Idle}, MatchTimeout, Status{Owner, Idle}},
	{Status{Matched, Idle}, Claim, Status{Claimed, Idle}},
	{Status{Matched, Idle}, Drain, Status{Drained, Retiring}},
	{Status{Claimed, Idle}, Activate, Status{Claimed, Busy}},
	{Status{Claimed, Idle}, Vacate, Status{Preempting, Vacating}},
	{Status{Claimed, Idle}, Kill, Status{Preempting, Killing}},
	{Status{Claimed, Busy}, JobExit, Status{Claimed, Idle}},
	{Status{Claimed, Busy}, Retire, Status{Claimed, Retiring}},
	{Status{Claimed, Busy}, Suspend, Status{Claimed, Suspended}},
	{Status{Claimed, Busy}, Vacate, Status{Preempting, Vacating}},
	{Status{Claimed, Busy}, Kill, Status{Preempting, Killing}},
	{Status{Claimed, Suspended}, Continue, Status{Claimed, Busy}},
	{Status{Claimed, Suspended}, Retire, Status{Claimed, Retiring}},
	{Status{Claimed, Suspended}, Vacate, Status{Preempting, Vacating}},
	{Status{Claimed, Suspended}, Kill, Status{Preempting, Killing}},
	{Status{Claimed, Suspended}, JobExit, Status{Claimed, Idle}},
	{Status{Claimed, Retiring}, JobExit, Status{Preempting, Vacating}},
	{Status{Claimed, Retiring}, Vacate, Status{Preempting, Vacating}},
	{Status{Claimed, Retiring}, Kill, Status{Preempting, Killing}},
	{Status{Preempting, Vacating}, Kill, Status{Preempting, Killing}},
	{Status{Preempting, Vacating}, Freed, Status{Unclaimed, Idle}},
	{Status{Preempting, Vacating}, FreedToOwner, Status{Owner, Idle}},
	{Status{Preempting, Vacating}, FreedToDrained, Status{Drained, Retiring}},
	{Status{Preempting, Killing}, Freed, Status{Unclaimed, Idle}},
	{Status{Preempting, Killing}, FreedToOwner, Status{Owner, Idle}},
	{Status{Preempting, Killing}, FreedToDrained, Status{Drained, Retiring}},
	{Status{Drained, Retiring}, DrainDone, Status{Drained, Idle}},
	{Status{Drained, Retiring}, DrainCancel, Status{Owner, Idle}},
	{Status{Drained, Idle}, DrainCancel, Status{Owner, Idle}},
}

// Every status takes every event: the allowed ones lead where the list
// says, all others are refused and leave the status alone.
func TestEveryTransition(t *testing.T) {
	want := map[edge]Status{}
	for _, a := range allowed {
		want[edge{a.from, a.event}] = a.to
	}
	for _, from := range Statuses {
		for _, e := range Events {
			to, err := Next(from, e)
			expected, ok := want[edge{from, e}]
			switch {
			case ok && (err != nil || to != expected):
				t.Errorf("%s + %s = %s, %v; want %s", from, e, to, err, expected)
			case !ok && (!errors.Is(err, ErrRefused) || to != from):
				t.Errorf("%s + %s = %s, %v; want it refused", from, e, to, err)
			case Allows(from, e) != ok:
				t.Errorf("Allows(%s, %s) = %v", from, e, !ok)
			}
		}
	}
	if len(transitions) != len(allowed) {
		t.Errorf("the table has %d transitions, the test knows %d", len(transitions), len(allowed))
	}
}

// Every status the table leads to is a status a slot can be in, and every
// status can be left (the machine never gets stuck).
func TestStatusesAreClosed(t *testing.T) {
	known := map[Status]bool{}
	for _, s := range Statuses {
		known[s] = true
	}
	leaves := map[Status]bool{}
	for e, to := range transitions {
		if !known[e.from] || !known[to] {
			t.Errorf("%s + %s -> %s: unknown status", e.from, e.event, to)
		}
		leaves[e.from] = true
	}
	for _, s := range Statuses {
		if !leaves[s] {
			t.Errorf("%s cannot be left", s)
		}
	}
}

// testdata/transitions.golden is the whole matrix, for review.
func TestTransitionsGolden(t *testing.T) {
	var b strings.Builder
	for _, from := range Statuses {
		for _, e := range Events {
			if to, err := Next(from, e); err == nil {
				fmt.Fprintf(&b, "%-22s %-15s -> %s\n", from, e, to)
			}
		}
	}
	b.WriteString("\nrefused:\n")
	for _, from := range Statuses {
		var refused []string
		for _, e := range Events {
			if !Allows(from, e) {
				refused = append(refused, e.String())
			}
		}
		fmt.Fprintf(&b, "%-22s %s\n", from, strings.Join(refused, " "))
	}
	const golden = "testdata/transitions.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("transitions differ from %s (go test -update to rewrite):\n%s", golden, b.String())
	}
}

// Apply keeps the time the state and the activity began.
func TestApplyTimestamps(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := New(1, Static, Resources{Cpus: 1, Memory: 1024, Disk: 1 << 20}, "nobody", t0)
	steps := []struct {
		event         Event
		at            int64
		state, active int64 // expected EnteredCurrentState, EnteredCurrentActivity
	}{
		{OwnerGone, 1010, 1010, 1010},
		{Benchmark, 1020, 1010, 1020},
		{BenchmarkDone, 1021, 1010, 1021},
		{Claim, 1030, 1030, 1030},
		{Activate, 1040, 1030, 1040},
		{Suspend, 1050, 1030, 1050},
		{Continue, 1060, 1030, 1060},
		{Vacate, 1070, 1070, 1070},
		{Kill, 1080, 1070, 1080},
		{FreedToOwner, 1090, 1090, 1090},
	}
	for _, st := range steps {
		if err := s.Apply(st.event, time.Unix(st.at, 0)); err != nil {
			t.Fatal(err)
		}
		if s.EnteredState().Unix() != st.state || s.EnteredActivity().Unix() != st.active {
			t.Errorf("after %s: entered state %d, activity %d; want %d, %d", st.event,
				s.EnteredState().Unix(), s.EnteredActivity().Unix(), st.state, st.active)
		}
	}
	err := s.Apply(Activate, time.Unix(2000, 0))
	if !errors.Is(err, ErrRefused) || err.Error() != "slot1: transition refused: Owner/Idle cannot take Activate" {
		t.Errorf("refused event: %v", err)
	}
	if s.Status() != (Status{Owner, Idle}) || s.EnteredState().Unix() != 1090 {
		t.Errorf("a refused event changed the slot: %s since %d", s.Status(), s.EnteredState().Unix())
	}
}
