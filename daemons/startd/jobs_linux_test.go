package startd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// claimAndRun claims the partitionable slot for a job and activates it;
// it returns the claim id once the job has started.
func (h *harness) claimAndRun(job *classad.Ad, lease int) string {
	h.t.Helper()
	ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	res, err := h.schedd.claim(ads["slot1@host1"], job, lease)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job}); err != nil {
		h.t.Fatal(err)
	}
	if u := h.schedd.next(); u.Event != wire.EventStarted {
		h.t.Fatalf("%+v", u)
	}
	return res.ClaimID
}

// pidDir is a directory any job user may write its pids to.
func pidDir(t *testing.T) string {
	dir := reachableDir(t)
	os.MkdirAll(dir, 0o777)
	os.Chmod(dir, 0o777)
	return dir
}

// treeJob is a job that starts a tree of sleeping processes and writes
// their pids; one ignores SIGTERM and one leaves the process group.
func treeJob(pids string) string {
	return "#!/bin/sh\necho $$ >> " + pids + "\n" +
		"(trap '' TERM; sleep 300 & echo $! >> " + pids + "; wait) &\n" +
		"(sleep 300 & echo $! >> " + pids + "; sleep 300) &\n" +
		"setsid sh -c 'echo $$ >> " + pids + "; sleep 300' &\n" +
		"wait\n"
}

// readPids waits until a job has written n pids.
func readPids(t *testing.T, file string, n int) []int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		if len(pids) >= n {
			return pids
		}
	}
	t.Fatalf("the job did not write %d pids", n)
	return nil
}

// descendants lists pid and the processes below it, by parent links.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(p); len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// procStat returns the fields of /proc/pid/stat after the name: state,
// ppid, ...
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	if i := strings.LastIndexByte(string(b), ')'); i > 0 {
		return strings.Fields(string(b[i+1:]))
	}
	return nil
}

// sleeping counts the processes at and below pid that run sleep(1): the
// tree job's subshells have forked and started theirs.
func sleeping(pid int) int {
	n := 0
	for _, p := range descendants(pid) {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(b)) == "sleep" {
			n++
		}
	}
	return n
}

// alive reports whether a process runs (a zombie does not).
func alive(pid int) bool {
	f := procStat(pid)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// A removed job (the schedd vacates it) dies with its whole process tree:
// children, grandchildren, one that ignores SIGTERM and, where the job has
// a cgroup, one that left its process group. The claim stays, idle.
func TestVacateKillsProcessTree(t *testing.T) {
	h := newHarness(t, nil)
	pids := filepath.Join(pidDir(t), "pids")
	h.schedd.inputs["/tree.sh"] = treeJob(pids)
	claim := h.claimAndRun(jobAd(t, `Cmd = "/tree.sh"`), 60)
	first := readPids(t, pids, 4)
	waitFor(t, "the job's four sleeps", func() bool { return sleeping(first[0]) == 4 })
	tree := append(descendants(first[0]), descendants(first[3])...)
	if len(tree) < 7 {
		t.Fatalf("the job's tree is %v", tree)
	}
	if err := h.schedd.call(wire.PathVacate, wire.Vacate{ClaimID: claim, Reason: "removed by alice"}); err != nil {
		t.Fatal(err)
	}
	if u := h.schedd.next(); u.Event != wire.EventEvicted || u.Reason != "removed by alice" {
		t.Errorf("%+v", u)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range tree {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) && (pid != first[3] && !contains(descendants(first[3]), pid) || h.sd.cgroups != nil) {
			t.Errorf("process %d of the job survived", pid)
		}
	}
	if h.sd.cgroups == nil {
		t.Log("no writable cgroup v2 here: the process that left the job's process group was not tracked")
		killAll(descendants(first[3]))
	}
	h.waitAds("the claim idle", func(a map[string]*classad.Ad) bool { return status(a, "slot1_1@host1") == "Claimed/Idle" })
}

func contains(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

func killAll(pids []int) {
	for _, p := range pids {
		if pr, err := os.FindProcess(p); err == nil {
			pr.Kill()
		}
	}
}

// A job that uses more memory than it requested is held with code 34 and
// a reason: the kernel stops it where its cgroup has the memory
// controller, else the startd's sampling does. (It asks for a whole
// quantum of memory, which the dynamic slot has exactly.)
func TestMemoryOverRequestIsHeld(t *testing.T) {
	h := newHarness(t, nil)
	if h.sd.cgroups.Has("memory") {
		t.Log("the kernel enforces the limit (cgroup v2 memory controller)")
	} else {
		t.Log("no cgroup v2 memory controller here: the startd's sampling enforces the limit")
	}
	h.schedd.inputs["/hog.sh"] = "#!/bin/sh\ndd if=/dev/zero bs=200M count=1 | sleep 60\n"
	h.claimAndRun(jobAd(t, "Cmd = \"/hog.sh\"\nRequestMemory = 128"), 60)
	u := h.schedd.next()
	if u.Event != wire.EventHeld || u.HoldCode != attr.HoldJobOutOfResources || !strings.Contains(u.Reason, "went over the job's limit of 128 MiB") {
		t.Errorf("%+v", u)
	}
	h.waitAds("the claim idle", func(a map[string]*classad.Ad) bool { return status(a, "slot1_1@host1") == "Claimed/Idle" })
}

// A claim whose lease runs out ends: its job is killed and reported
// evicted, and the dynamic slot disappears, giving its resources back.
func TestLeaseExpiry(t *testing.T) {
	h := newHarness(t, nil)
	pids := filepath.Join(pidDir(t), "pids")
	h.schedd.inputs["/long.sh"] = "#!/bin/sh\necho $$ >> " + pids + "\nsleep 300\n"
	claim := h.claimAndRun(jobAd(t, `Cmd = "/long.sh"`), 30)
	pid := readPids(t, pids, 1)[0]
	h.sd.tick()
	if st := h.slotStatus("slot1_1@host1"); st.String() != "Claimed/Busy" {
		t.Fatalf("before the lease runs out: %s", st)
	}
	h.clock.advance(31 * time.Second)
	h.sd.tick()
	if u := h.schedd.next(); u.Event != wire.EventEvicted || u.Reason != "the claim's lease expired" {
		t.Errorf("%+v", u)
	}
	h.waitAds("the dynamic slot gone", func(a map[string]*classad.Ad) bool {
		_, there := a["slot1_1@host1"]
		return !there && num(a["slot1@host1"], "Cpus") == 4
	})
	if alive(pid) {
		t.Errorf("the job's process %d survived", pid)
	}
	if err := h.schedd.call(wire.PathAlive, wire.ClaimRef{ClaimID: claim}); !wire.IsCode(err, wire.CodeNotFound) {
		t.Errorf("alive on an expired claim: %v", err)
	}
}
