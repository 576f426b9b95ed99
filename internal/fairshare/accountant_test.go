package fairshare

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func openAccountant(t *testing.T, path string) *Accountant {
	t.Helper()
	a, err := OpenAccountant(path, time.Hour, 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestPriorityFollowsUsageWithHalfLife(t *testing.T) {
	a := openAccountant(t, filepath.Join(t.TempDir(), "acct.db"))
	t0 := time.Unix(1e9, 0)
	must(t, a.Update(t0, map[string]float64{"alice": 10}))
	if p := a.Effective("alice"); p != MinPriority*1000 {
		t.Fatalf("new user EUP %v, want %v", p, MinPriority*1000)
	}
	// One half-life holding 10 slots: halfway from 0.5 to 10.
	must(t, a.Update(t0.Add(time.Hour), map[string]float64{"alice": 10}))
	if p := a.Users()[0].Priority; !near(p, 5.25, 1e-9) {
		t.Errorf("RUP after one half-life %v, want 5.25", p)
	}
	// Many half-lives: RUP tends to the slots in use.
	for h := 2; h <= 20; h++ {
		must(t, a.Update(t0.Add(time.Duration(h)*time.Hour), map[string]float64{"alice": 10}))
	}
	u := a.Users()[0]
	if !near(u.Priority, 10, 1e-4) || !near(u.Effective(), 10000, 0.1) {
		t.Errorf("RUP %v EUP %v after 20 half-lives at 10 slots, want 10 and 10000", u.Priority, u.Effective())
	}
	if !near(u.Accumulated, 20*3600*10, 1e-6) {
		t.Errorf("usage %v weighted slot-seconds, want %v", u.Accumulated, 20*3600*10)
	}
	// Idle: it decays back towards the minimum and stops there.
	for h := 21; h <= 60; h++ {
		must(t, a.Update(t0.Add(time.Duration(h)*time.Hour), nil))
	}
	if p := a.Users()[0].Priority; p != MinPriority {
		t.Errorf("RUP after 40 idle half-lives %v, want the minimum %v", p, MinPriority)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestAccountantIsDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acct.db")
	a, err := OpenAccountant(path, time.Hour, 1000)
	must(t, err)
	a.SetFlush(0)
	t0 := time.Unix(1e9, 0)
	must(t, a.Update(t0, map[string]float64{"alice": 4, "bob": 1}))
	must(t, a.Update(t0.Add(time.Hour), map[string]float64{"alice": 4}))
	if _, err := a.SetFactor("bob", 2500); err != nil {
		t.Fatal(err)
	}
	want := a.Users()
	must(t, a.Close())

	b := openAccountant(t, path)
	got := b.Users()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after reopening:\n%v\nwant\n%v", got, want)
	}
	if _, err := b.SetFactor("bob", -1); err == nil {
		t.Error("a negative factor was accepted")
	}
	if _, err := b.ResetUsage("carol", t0); err == nil {
		t.Error("resetting an unknown user succeeded")
	}
	u, err := b.ResetUsage("alice", t0.Add(2*time.Hour))
	if err != nil || u.Priority != MinPriority || u.Accumulated != 0 {
		t.Errorf("reset: %+v %v", u, err)
	}
	for _, u := range b.Users() {
		if u.Name == "bob" && (u.Factor != 2500 || b.Effective("bob") != 0.75*2500) {
			t.Errorf("bob after a refused factor: %+v, EUP %v; want factor 2500, EUP %v", u, b.Effective("bob"), 0.75*2500)
		}
	}
}

// Fair share: two users who always have idle jobs, on a pool whose jobs
// last one cycle. HTCondor's rules (shares ∝ 1/EUP, RUP → slots in use,
// EUP = RUP × factor) settle where n_a/n_b = sqrt(factor_b/factor_a):
// equal factors share equally, factors 1:4 give 2:1.
// Usage updates are written every flush interval and when the
// accountant closes; a crash loses at most that interval's accounting.
func TestUsageIsWrittenLazily(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acct.db")
	a, err := OpenAccountant(path, time.Hour, 1000)
	must(t, err)
	a.SetFlush(time.Minute)
	t0 := time.Now()
	must(t, a.Update(t0, map[string]float64{"alice": 4})) // first: written
	must(t, a.Update(t0.Add(10*time.Second), map[string]float64{"alice": 4, "bob": 2}))
	reader := func() []Usage {
		// A second handle reads what is on disk (bbolt allows one writer:
		// copy the file).
		b, err := os.ReadFile(path)
		must(t, err)
		cp := filepath.Join(t.TempDir(), "copy.db")
		must(t, os.WriteFile(cp, b, 0o600))
		r := openAccountant(t, cp)
		return r.Users()
	}
	if got := reader(); len(got) != 1 || got[0].Name != "alice" {
		t.Errorf("on disk before the flush interval: %v, want alice only", got)
	}
	must(t, a.Update(t0.Add(2*time.Minute), map[string]float64{"alice": 4, "bob": 2}))
	if got := reader(); len(got) != 2 {
		t.Errorf("on disk after the flush interval: %v, want both", got)
	}
	must(t, a.Update(t0.Add(130*time.Second), map[string]float64{"carol": 1}))
	must(t, a.Close())
	b := openAccountant(t, path)
	if got := b.Users(); len(got) != 3 {
		t.Errorf("after close: %v, want three users", got)
	}
}

func TestMemoryAccountant(t *testing.T) {
	a := NewAccountant(time.Hour, 100)
	t0 := time.Unix(1e9, 0)
	if err := a.Update(t0, map[string]float64{"alice": 4}); err != nil {
		t.Fatal(err)
	}
	if err := a.Update(t0.Add(time.Hour), map[string]float64{"alice": 4}); err != nil {
		t.Fatal(err)
	}
	// Halfway from 0.5 to 4 in one half-life, times the factor.
	if got := a.Effective("alice"); got < 224.99 || got > 225.01 {
		t.Errorf("EUP %v after one half-life at 4 slots, want 225", got)
	}
	if _, err := a.SetFactor("alice", 10); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("closing an in-memory accountant: %v", err)
	}
}
