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
