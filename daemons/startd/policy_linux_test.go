package startd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// allInState reports whether every process of a tree is stopped (true)
// or none is (false).
func allInState(pids []int, stopped bool) bool {
	for _, pid := range pids {
		if f := procStat(pid); len(f) > 0 && (f[0] == "T") != stopped {
			return false
		}
	}
	return true
}

// waitFor polls cond until it holds: the state of the jobs' processes,
// which run outside the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// The desktop policy: START waits for the keyboard to be idle, SUSPEND
// stops the job when the owner types, CONTINUE resumes it when they have
// left, PREEMPT (a high load) sends it back to its schedd; the slot goes
// Owner while the owner is there.
func TestDesktopPolicy(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Layout = slots.Equal(1, false, "")
		c.Policy = append(c.Policy, policy("Start", "KeyboardIdle > 60")...)
		c.Policy = append(c.Policy, policy("Suspend", "KeyboardIdle < 60")...)
		c.Policy = append(c.Policy, policy("Continue", "KeyboardIdle > 120")...)
		c.Policy = append(c.Policy, policy("Preempt", "LoadAvg > 5")...)
	})
	step := func(load float64, keyboard int64, want string) map[string]*classad.Ad {
		t.Helper()
		h.sensors.set(load, keyboard)
		h.clock.advance(5 * time.Second)
		h.sd.tick()
		if got := h.slotStatus("slot1@host1").String(); got != want {
			t.Fatalf("load %.1f, keyboard idle %ds: %s, want %s", load, keyboard, got, want)
		}
		return h.waitAds(want, func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == want })
	}
	ads := step(0.1, 30, "Owner/Idle")
	job := jobAd(t, `Cmd = "/tree.sh"`)
	if _, err := h.schedd.claim(ads["slot1@host1"], job, 60); !wire.IsCode(err, wire.CodeConflict) || !strings.Contains(err.Error(), "KeyboardIdle > 60 is false") {
		t.Fatalf("claim while the owner types: %v", err)
	}
	ads = step(0.1, 300, "Unclaimed/Idle")
	pidFile := filepath.Join(pidDir(t), "pids")
	h.schedd.inputs["/tree.sh"] = treeJob(pidFile)
	res, err := h.schedd.claim(ads["slot1@host1"], job, 60)
	if err != nil {
		t.Fatal(err)
	}
	h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job})
	h.schedd.next()
	first := readPids(t, pidFile, 4)
	waitFor(t, "the job's four sleeps", func() bool { return sleeping(first[0]) == 4 })
	tree := descendants(first[0])

	ads = step(0.1, 10, "Claimed/Suspended")
	waitFor(t, "the job stopped", func() bool { return allInState(tree, true) })
	if got, want := num(ads["slot1@host1"], "EnteredCurrentActivity"), h.clock.now().Unix(); got < want-1 || got > want {
		t.Errorf("EnteredCurrentActivity %d, now %d", got, want)
	}
	step(0.1, 90, "Claimed/Suspended")
	step(0.1, 500, "Claimed/Busy")
	waitFor(t, "the job running", func() bool { return allInState(tree, false) })

	h.sensors.set(9, 500)
	h.sd.tick()
	if u := h.schedd.next(); u.Event != wire.EventEvicted || u.Reason != "the startd's PREEMPT policy is true" {
		t.Errorf("%+v", u)
	}
	waitFor(t, "the slot free", func() bool { return h.slotStatus("slot1@host1").String() == "Unclaimed/Idle" })
	step(0.1, 5, "Owner/Idle")
	killAll(descendants(first[3])) // left the process group: gone already with a cgroup
}

// Draining: free slots stop taking claims, a running job finishes
// (graceful), the machine ends Drained/Idle, and cancelling brings the
// slots back.
func TestDrain(t *testing.T) {
	h := newHarness(t, nil)
	dir := pidDir(t)
	h.schedd.inputs["/wait.sh"] = "#!/bin/sh\nwhile [ ! -f " + dir + "/go ]; do sleep 0.02; done\n"
	h.claimAndRun(jobAd(t, `Cmd = "/wait.sh"`), 60)
	admin := h.pool.Client(h.sd.Addr(), "root", auth.Administrator)
	var res DrainResult
	if err := admin.Call(context.Background(), "POST", PathDrain, Drain{Graceful: true}, &res); err != nil || res.Slots != 1 {
		t.Fatalf("drain: %+v %v", res, err)
	}
	ads := h.waitAds("draining", func(a map[string]*classad.Ad) bool {
		return status(a, "slot1@host1") == "Drained/Retiring" && status(a, "slot1_1@host1") == "Claimed/Retiring"
	})
	if _, err := h.schedd.claim(ads["slot1@host1"], jobAd(t, `Cmd = "/wait.sh"`), 60); !wire.IsCode(err, wire.CodeConflict) || !strings.Contains(err.Error(), "Drained/Retiring") {
		t.Errorf("claim while draining: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	if u := h.schedd.next(); u.Event != wire.EventExited || u.ExitCode != 0 {
		t.Errorf("the retiring job: %+v", u)
	}
	h.waitAds("drained", func(a map[string]*classad.Ad) bool {
		_, there := a["slot1_1@host1"]
		return status(a, "slot1@host1") == "Drained/Idle" && !there
	})
	if err := admin.Call(context.Background(), "POST", PathDrainCancel, nil, &res); err != nil || res.Slots != 1 {
		t.Fatalf("cancel: %+v %v", res, err)
	}
	h.waitAds("back", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	user := h.pool.Client(h.sd.Addr(), "alice", auth.Read|auth.Write)
	if err := user.Call(context.Background(), "POST", PathDrain, nil, nil); !wire.IsCode(err, wire.CodeForbidden) {
		t.Errorf("a user drained: %v", err)
	}
	var list Slots
	if err := user.Call(context.Background(), "GET", PathSlots, nil, &list); err != nil || len(list.Slots) != 1 || list.Slots[0].Index("ClaimId") >= 0 {
		t.Errorf("slots for a user: %v %v", list.Slots, err)
	}
}

// A quick drain vacates running jobs.
func TestQuickDrain(t *testing.T) {
	h := newHarness(t, nil)
	h.schedd.inputs["/long.sh"] = "#!/bin/sh\nsleep 300\n"
	h.claimAndRun(jobAd(t, `Cmd = "/long.sh"`), 60)
	admin := h.pool.Client(h.sd.Addr(), "root", auth.Administrator)
	if err := admin.Call(context.Background(), "POST", PathDrain, nil, nil); err != nil {
		t.Fatal(err)
	}
	if u := h.schedd.next(); u.Event != wire.EventEvicted || u.Reason != "the startd is draining" {
		t.Errorf("%+v", u)
	}
	h.waitAds("drained", func(a map[string]*classad.Ad) bool { return len(a) == 1 && status(a, "slot1@host1") == "Drained/Idle" })
}
