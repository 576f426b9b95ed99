package membership

import (
	"fmt"
	"testing"
	"time"
)

// fast is a member that detects failures within a second or so: probes
// every 100 ms, answered within 100 ms (a test process on a busy machine
// may not run for tens of milliseconds, and a member that misses its
// probes for that is declared dead before it can leave; the CI saw it at
// 25 ms).
func fast(name, kind string, join []string) Config {
	return Config{
		Name: name, Bind: "127.0.0.1:0", Join: join,
		Meta:          Meta{Kind: kind, Addr: "127.0.0.1:9" + name[len(name)-1:], Version: "test"},
		ProbeInterval: 100 * time.Millisecond, ProbeTimeout: 100 * time.Millisecond, SuspicionMult: 3,
	}
}

// waitFor reads events until want arrives or the deadline passes.
func waitFor(t *testing.T, n *Node, kind EventKind, name string, within time.Duration) Member {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-n.Events():
			if !ok {
				t.Fatal("events closed")
			}
			if ev.Kind == kind && ev.Member.Name == name {
				return ev.Member
			}
		case <-deadline:
			t.Fatalf("no %s event for %s within %v; members %+v", kind, name, within, n.Members())
		}
	}
}

func TestJoinFailLeave(t *testing.T) {
	seed, err := Start(fast("collector1", "collector", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer seed.Shutdown()
	var others []*Node
	for i := 2; i <= 4; i++ {
		n, err := Start(fast(fmt.Sprintf("startd%d", i), "startd", []string{seed.Gossip()}))
		if err != nil {
			t.Fatal(err)
		}
		others = append(others, n)
	}
	// The joins arrive in any order.
	joined := map[string]bool{}
	deadline := time.After(5 * time.Second)
	for len(joined) < 3 {
		select {
		case ev := <-seed.Events():
			if ev.Kind != Joined || ev.Member.Meta.Kind != "startd" {
				continue
			}
			if m := ev.Member; m.Meta.Version != "test" || m.State != Alive {
				t.Errorf("joined member %+v", m)
			}
			joined[ev.Member.Name] = true
		case <-deadline:
			t.Fatalf("joined events for %v only within 5s; members %+v", joined, seed.Members())
		}
	}
	// A member that dies (no goodbye) is declared dead.
	start := time.Now()
	others[0].Shutdown()
	m := waitFor(t, seed, Failed, "startd2", 10*time.Second)
	if m.State != Dead {
		t.Errorf("failed member state %s", m.State)
	}
	t.Logf("failure detected in %v", time.Since(start))
	// One that leaves says so.
	if err := others[1].Leave(time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, seed, Departed, "startd3", 10*time.Second)
	states := map[string]State{}
	for _, m := range seed.Members() {
		states[m.Name] = m.State
	}
	if states["startd2"] != Dead || states["startd3"] != Left || states["startd4"] != Alive || states["collector1"] != Alive {
		t.Errorf("states %v", states)
	}
	others[2].Shutdown()
}

func TestMetaTooLarge(t *testing.T) {
	c := fast("x1", "startd", nil)
	c.Meta.Addr = string(make([]byte, 600))
	if _, err := Start(c); err == nil {
		t.Error("oversized metadata accepted")
	}
}

// A daemon killed and started again under its name, before gossip has
// declared the first start dead: the failure that comes late names the
// incarnation that died, and the successor's join names its own, so that
// the collector can tell whose ads to drop.
func TestRestartUnderTheSameName(t *testing.T) {
	seed, err := Start(fast("collector1", "collector", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer seed.Shutdown()
	first := fast("startd2", "startd", []string{seed.Gossip()})
	first.Meta.Incarnation = "first"
	old, err := Start(first)
	if err != nil {
		t.Fatal(err)
	}
	if m := waitFor(t, seed, Joined, "startd2", 5*time.Second); m.Meta.Incarnation != "first" {
		t.Fatalf("joined as %+v", m.Meta)
	}
	old.Shutdown() // killed: no goodbye
	second := fast("startd2", "startd", []string{seed.Gossip()})
	second.Meta.Incarnation = "second"
	successor, err := Start(second)
	if err != nil {
		t.Fatal(err)
	}
	defer successor.Shutdown()
	if m := waitFor(t, seed, Failed, "startd2", 10*time.Second); m.Meta.Incarnation != "first" {
		t.Errorf("the failure names incarnation %q, want the first", m.Meta.Incarnation)
	}
	if m := waitFor(t, seed, Joined, "startd2", 10*time.Second); m.Meta.Incarnation != "second" {
		t.Errorf("the successor joined as incarnation %q", m.Meta.Incarnation)
	}
}
