package startd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/wire"
)

// TestNextJobInTheAnswer: a schedd that answers a job's end report with
// the claim's next job (wire.JobUpdateResult.Next) has it run without an
// activation, in the sandbox the job before left with only its ads:
// same directory, renamed for the job, its ads rewritten (HTCondor's
// _CONDOR_JOB_AD names the running job's ad, _CONDOR_MACHINE_AD the slot's
// as the job starts: its RemoteUser is the new job's). A next job the
// slot refuses is reported evicted, which gives it back to the schedd.
func TestNextJobInTheAnswer(t *testing.T) {
	h := newHarness(t, nil)
	dir := pidDir(t)
	log, script := filepath.Join(dir, "log"), filepath.Join(dir, "job.sh")
	body := "#!/bin/sh\n{ grep '^ProcId = ' \"$_CONDOR_JOB_AD\"; grep -c '^Name = ' \"$_CONDOR_MACHINE_AD\"; " +
		"grep '^RemoteUser = ' \"$_CONDOR_MACHINE_AD\"; stat -c %i \"$_CONDOR_SCRATCH_DIR\"; basename \"$_CONDOR_SCRATCH_DIR\"; } >> " + log + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	job := func(proc int, extra string) *classad.Ad {
		return jobAd(t, "ProcId = "+strconv.Itoa(proc)+"\nCmd = \""+script+"\"\nTransferExecutable = false\n"+extra)
	}
	ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	res, err := h.schedd.claim(ads["slot1@host1"], job(0, ""), 60)
	if err != nil {
		t.Fatal(err)
	}
	h.schedd.mu.Lock()
	h.schedd.handNext = func(u wire.JobUpdate) *wire.Activate {
		switch u.Job {
		case "12.0":
			return &wire.Activate{ClaimID: res.ClaimID, Job: job(1, `User = "bob@test"`)}
		case "12.1":
			return &wire.Activate{ClaimID: res.ClaimID, Job: job(2, "RequestMemory = 100000")}
		}
		return nil
	}
	h.schedd.mu.Unlock()
	if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job(0, "")}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"12.0", "12.1"} {
		if u := h.schedd.lastEvent(); u.Job != id || u.Event != wire.EventExited || !u.TakesNext {
			t.Fatalf("want %s exited, taking the next: %+v", id, u)
		}
	}
	u := h.schedd.next()
	if u.Job != "12.2" || u.Event != wire.EventEvicted || !strings.Contains(u.Reason, "the startd refused to run the job") {
		t.Fatalf("the refused job: %+v", u)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	want := []string{"ProcId = 0", "1", `RemoteUser = "alice@test"`, "ProcId = 1", "1", `RemoteUser = "bob@test"`}
	if len(lines) != 10 || lines[0] != want[0] || lines[1] != want[1] || lines[2] != want[2] ||
		lines[5] != want[3] || lines[6] != want[4] || lines[7] != want[5] {
		t.Fatalf("the jobs saw:\n%s\nwant, with each job's sandbox's inode and name:\n%s", data, strings.Join(want, "\n"))
	}
	if lines[3] != lines[8] || lines[4] == lines[9] || !strings.Contains(lines[9], "12.1") {
		t.Errorf("the second job's sandbox is not the first's, renamed for it:\n%s", data)
	}
}

// The job ends that come while another is on its way to their schedd
// wait for its answer and then go together, in one request
// (wire.PathJobUpdates), each with its own answer: the claim's next job
// goes to the slot whose job ended.
func TestJobEndsTogether(t *testing.T) {
	h, claimOf, stall := endsWaiting(t)
	h.schedd.mu.Lock()
	h.schedd.handNext = func(u wire.JobUpdate) *wire.Activate {
		proc, _ := strconv.Atoi(strings.TrimPrefix(u.Job, "12."))
		if proc >= 3 {
			return nil
		}
		next := "12." + strconv.Itoa(proc+3)
		h.schedd.mu.Lock()
		claimOf[next] = u.ClaimID
		h.schedd.mu.Unlock()
		return &wire.Activate{ClaimID: u.ClaimID, Job: trueJob(t, proc+3)}
	}
	h.schedd.mu.Unlock()
	close(stall)
	ended := map[string]bool{}
	for range 6 { // the three, then the next job each answer brought
		u := h.schedd.lastEvent()
		h.schedd.mu.Lock()
		claim := claimOf[u.Job]
		h.schedd.mu.Unlock()
		if u.Event != wire.EventExited || ended[u.Job] || claim == "" || u.ClaimID != claim {
			t.Fatalf("job event %+v: want each job exited once, under the claim it was given to (%q)", u, claim)
		}
		ended[u.Job] = true
	}
	h.schedd.mu.Lock()
	defer h.schedd.mu.Unlock()
	if len(h.schedd.batches) == 0 || h.schedd.batches[0] != 2 {
		t.Errorf("requests of several ends: %v, want the first of 2", h.schedd.batches)
	}
}

// Job ends that a request of several could not deliver (the schedd is
// restarting) are sent again, each alone, until the schedd takes them.
func TestJobEndsSentAgainAlone(t *testing.T) {
	h, _, stall := endsWaiting(t)
	h.schedd.mu.Lock()
	h.schedd.down = true
	h.schedd.mu.Unlock()
	close(stall)
	waitFor(t, "the three ends refused", func() bool {
		h.schedd.mu.Lock()
		defer h.schedd.mu.Unlock()
		return h.schedd.refused >= 3
	})
	h.schedd.mu.Lock()
	h.schedd.down = false
	h.schedd.mu.Unlock()
	ended := map[string]bool{}
	for range 3 {
		u := h.schedd.lastEvent()
		if u.Event != wire.EventExited || ended[u.Job] {
			t.Fatalf("job event %+v: want each job exited once", u)
		}
		ended[u.Job] = true
	}
	h.schedd.mu.Lock()
	defer h.schedd.mu.Unlock()
	if len(h.schedd.batches) != 1 || h.schedd.batches[0] != 2 {
		t.Errorf("requests of several ends: %v, want only the one of 2 (the ends again each alone)", h.schedd.batches)
	}
}

// endsWaiting runs /bin/true jobs 12.0, 12.1 and 12.2 on three claims; the
// first end to reach the schedd is held there until stall is closed, and
// the two others wait for it at the startd. claimOf gives each job's
// claim.
func endsWaiting(t *testing.T) (h *harness, claimOf map[string]string, stall chan struct{}) {
	h = newHarness(t, nil)
	ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	claimOf = map[string]string{}
	stall = make(chan struct{})
	h.schedd.mu.Lock()
	h.schedd.stall = stall
	h.schedd.mu.Unlock()
	for proc := range 3 {
		res, err := h.schedd.claim(ads["slot1@host1"], trueJob(t, proc), 60)
		if err != nil {
			t.Fatal(err)
		}
		claimOf["12."+strconv.Itoa(proc)] = res.ClaimID
		if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: trueJob(t, proc)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "two ends waiting for the first", func() bool {
		h.sd.ends.mu.Lock()
		defer h.sd.ends.mu.Unlock()
		return len(h.sd.ends.to[endTarget{addr: h.schedd.addr}]) == 2
	})
	return h, claimOf, stall
}

// trueJob is job 12.proc, /bin/true.
func trueJob(t *testing.T, proc int) *classad.Ad {
	return jobAd(t, "ProcId = "+strconv.Itoa(proc)+"\nCmd = \"/bin/true\"\nTransferExecutable = false\n")
}
