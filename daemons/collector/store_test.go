package collector

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
)

func ads(t testing.TB, srcs ...string) []*classad.Ad {
	t.Helper()
	out := make([]*classad.Ad, len(srcs))
	for i, s := range srcs {
		ad, err := classad.ParseNew(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = ad
	}
	return out
}

func names(list []Found) string {
	var n []string
	for _, f := range list {
		v, _ := classad.EvalAttr(f.Ad, "Name", nil)
		s, _ := v.StringValue()
		n = append(n, s)
	}
	return strings.Join(n, ",")
}

func program(t testing.TB, src string) *classad.Program {
	p, err := classad.Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var t0 = time.Unix(1_700_000_000, 0)

func TestUpdateAndQuery(t *testing.T) {
	s := NewStore(15 * time.Minute)
	stored, stale, err := s.Update(ads(t,
		`[ MyType = "Machine"; Name = "slot1@b"; Memory = 2048 ]`,
		`[ MyType = "Machine"; Name = "slot1@a"; Memory = 4096 ]`,
		`[ MyType = "Scheduler"; Name = "schedd@a" ]`,
	), nil, t0)
	if err != nil || stored != 3 || stale != 0 {
		t.Fatalf("update: %d %d %v", stored, stale, err)
	}
	tests := []struct {
		typ, constraint string
		limit           int
		want            string
	}{
		{"Machine", "", 0, "slot1@a,slot1@b"},
		{"machine", "Memory > 3000", 0, "slot1@a"},
		{"", "", 0, "slot1@a,slot1@b,schedd@a"},
		{"Machine", "", 1, "slot1@a"},
		{"Submitter", "", 0, ""},
	}
	for _, tt := range tests {
		var p *classad.Program
		if tt.constraint != "" {
			p = program(t, tt.constraint)
		}
		if got := names(s.Query(tt.typ, p, tt.limit, false)); got != tt.want {
			t.Errorf("query %q %q: %s, want %s", tt.typ, tt.constraint, got, tt.want)
		}
	}
	got := s.Query("Machine", program(t, `Name == "SLOT1@A"`), 0, false)
	if v, _ := classad.EvalAttr(got[0].Ad, "LastHeardFrom", nil); v.String() != fmt.Sprint(t0.Unix()) {
		t.Errorf("LastHeardFrom = %s", v)
	}
}

// An update with a missing name or type stores nothing.
func TestBadUpdateStoresNothing(t *testing.T) {
	s := NewStore(time.Minute)
	_, _, err := s.Update(ads(t, `[ MyType = "Machine"; Name = "ok" ]`, `[ MyType = "Machine"; Memory = 1 ]`), nil, t0)
	if err == nil || !strings.Contains(err.Error(), "ad 2: no Name string attribute") {
		t.Fatalf("got %v", err)
	}
	if n := len(s.Query("", nil, 0, false)); n != 0 {
		t.Errorf("%d ads stored from a rejected batch", n)
	}
	_, _, err = s.Update(ads(t, `[ MyType = "Machine"; Name = "x"; ClassAdLifetime = -5 ]`), nil, t0)
	if err == nil || !strings.Contains(err.Error(), "ClassAdLifetime must be a positive integer") {
		t.Errorf("bad lifetime: %v", err)
	}
}

// An update older than the stored ad never replaces it.
func TestSequenceNumbers(t *testing.T) {
	s := NewStore(time.Minute)
	up := func(start, seq int, mem int) (int, int) {
		src := fmt.Sprintf(`[ MyType = "Machine"; Name = "n"; DaemonStartTime = %d; UpdateSequenceNumber = %d; Memory = %d ]`, start, seq, mem)
		stored, stale, err := s.Update(ads(t, src), nil, t0)
		if err != nil {
			t.Fatal(err)
		}
		return stored, stale
	}
	up(100, 5, 1)
	if _, stale := up(100, 4, 2); stale != 1 {
		t.Error("an older sequence number replaced a newer one")
	}
	if stored, _ := up(100, 6, 3); stored != 1 {
		t.Error("a newer sequence number was ignored")
	}
	if stored, _ := up(200, 1, 4); stored != 1 {
		t.Error("a restarted daemon's first update was ignored")
	}
	if _, stale := up(100, 99, 5); stale != 1 {
		t.Error("an update from before the restart was stored")
	}
	v, _ := classad.EvalAttr(s.Query("", nil, 0, false)[0].Ad, "Memory", nil)
	if v.String() != "4" {
		t.Errorf("Memory = %s, want 4", v)
	}
}

func TestExpiry(t *testing.T) {
	s := NewStore(15 * time.Minute)
	s.Update(ads(t, `[ MyType = "Machine"; Name = "default" ]`, `[ MyType = "Machine"; Name = "short"; ClassAdLifetime = 60 ]`), nil, t0)
	if n := s.Expire(t0.Add(59*time.Second), time.Minute); n != 0 {
		t.Errorf("expired %d too early", n)
	}
	if n := s.Expire(t0.Add(61*time.Second), time.Minute); n != 1 || names(s.Query("", nil, 0, false)) != "default" {
		t.Errorf("after 61s: expired %d, left %s", n, names(s.Query("", nil, 0, false)))
	}
	if n := s.Expire(t0.Add(16*time.Minute), time.Minute); n != 1 {
		t.Errorf("after 16m: expired %d", n)
	}
}

func TestInvalidate(t *testing.T) {
	s := NewStore(time.Minute)
	s.Update(ads(t, `[ MyType = "Machine"; Name = "a"; Cpus = 1 ]`, `[ MyType = "Machine"; Name = "b"; Cpus = 8 ]`,
		`[ MyType = "Machine"; Name = "c"; Cpus = 8 ]`, `[ MyType = "Scheduler"; Name = "a" ]`), nil, t0)
	if n := s.Invalidate("Machine", []string{"A"}, nil); n != 1 {
		t.Errorf("by name: %d", n)
	}
	if n := s.Invalidate("Machine", nil, program(t, "Cpus > 4")); n != 2 {
		t.Errorf("by constraint: %d", n)
	}
	if got := names(s.Query("", nil, 0, false)); got != "a" {
		t.Errorf("left %s, want the schedd a", got)
	}
}

func TestAbsentMembers(t *testing.T) {
	s := NewStore(time.Hour)
	s.Update(ads(t, `[ MyType = "Machine"; Name = "s1"; KiteMember = "startd@h1" ]`, `[ MyType = "Machine"; Name = "s2"; KiteMember = "startd@h2" ]`), nil, t0)
	if n := s.MarkAbsent("startd@h1", "", t0); n != 1 {
		t.Fatalf("marked %d", n)
	}
	if got := names(s.Query("", nil, 0, false)); got != "s2" {
		t.Errorf("live query: %s", got)
	}
	all := s.Query("", program(t, "Absent =?= true"), 0, true)
	if names(all) != "s1" {
		t.Errorf("absent query: %s", names(all))
	}
	if n := s.Expire(t0.Add(31*time.Second), 30*time.Second); n != 1 {
		t.Errorf("dropped %d after grace", n)
	}
}

// One user submitting at two schedds has a submitter ad from each: both
// stay, and invalidating the user's name removes both.
func TestSubmitterAdsPerSchedd(t *testing.T) {
	s := NewStore(15 * time.Minute)
	_, _, err := s.Update(ads(t,
		`[ MyType = "Submitter"; Name = "alice@example.org"; ScheddName = "a"; IdleJobs = 1 ]`,
		`[ MyType = "Submitter"; Name = "alice@example.org"; ScheddName = "b"; IdleJobs = 2 ]`,
		`[ MyType = "Submitter"; Name = "bob@example.org"; ScheddName = "a"; IdleJobs = 3 ]`,
	), nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(s.Query("Submitter", nil, 0, false)); got != "alice@example.org,alice@example.org,bob@example.org" {
		t.Fatalf("submitters %s", got)
	}
	if n := s.Invalidate("Submitter", []string{"Alice@example.org"}, nil); n != 2 {
		t.Errorf("invalidated %d, want 2", n)
	}
	if got := names(s.Query("Submitter", nil, 0, false)); got != "bob@example.org" {
		t.Errorf("after invalidation: %s", got)
	}
}
