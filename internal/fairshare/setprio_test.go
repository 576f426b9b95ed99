package fairshare

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// condor_userprio -setprio USER VALUE sets a user's real priority
// (HTCondor's manual, man-pages/condor_userprio.rst, "Edit option"): the
// value is committed before it is reported, survives a restart, and
// decays from there with the half-life as any priority does. A value
// below the minimum (0.5) or not a number is refused and changes nothing;
// a commit that fails (a full disk) changes nothing either.
func TestSetPriority(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acct.db")
	a, err := OpenAccountant(path, time.Hour, 1000)
	must(t, err)
	t0 := time.Unix(1e9, 0)
	must(t, a.Update(t0, map[string]float64{"alice": 1}))
	u, err := a.SetPriority("alice", 40.5, t0.Add(time.Hour))
	if err != nil || u.Priority != 40.5 || u.Effective() != 40500 {
		t.Fatalf("set: %+v %v; want RUP 40.5, EUP 40500", u, err)
	}
	if _, err := a.SetPriority("carol", 7, t0.Add(time.Hour)); err != nil {
		t.Fatalf("a new user: %v", err)
	}
	for _, bad := range []float64{0.4, -3, 0} {
		if _, err := a.SetPriority("alice", bad, t0); err == nil {
			t.Errorf("real priority %v accepted", bad)
		}
	}
	a.SetFault(func() error { return errors.New("no space left on device") })
	if _, err := a.SetPriority("alice", 99, t0.Add(time.Hour)); err == nil {
		t.Error("a failed commit reported done")
	}
	if _, err := a.SetPriority("dave", 99, t0.Add(time.Hour)); err == nil {
		t.Error("a failed commit of a new user reported done")
	}
	a.SetFault(nil)
	must(t, a.Close())

	b := openAccountant(t, path)
	got := map[string]Usage{}
	for _, u := range b.Users() {
		got[u.Name] = u
	}
	if len(got) != 2 || got["alice"].Priority != 40.5 || got["carol"].Priority != 7 {
		t.Fatalf("after reopening: %+v; want alice at 40.5 and carol at 7, no dave", got)
	}
	// One half-life later, holding one slot: halfway from 40.5 to 1.
	must(t, b.Update(t0.Add(2*time.Hour), map[string]float64{"alice": 1}))
	for _, u := range b.Users() {
		if u.Name == "alice" && !near(u.Priority, 20.75, 1e-9) {
			t.Errorf("RUP a half-life after -setprio: %v, want 20.75", u.Priority)
		}
	}
}
