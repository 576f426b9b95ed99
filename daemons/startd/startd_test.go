package startd

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

const jobScript = `#!/bin/sh
echo "hello $1 from $(id -u)"
cat input.txt > result.txt
echo "warning" >&2
exit 7
`

// A job runs on a dynamic slot carved from the partitionable slot: its
// output files and exit code come back to the schedd, the dynamic slot
// disappears when the claim is released, and the partitionable slot gets
// its resources back.
func TestJobRunsEndToEnd(t *testing.T) {
	h := newHarness(t, nil)
	ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	p := ads["slot1@host1"]
	if str(p, "SlotType") != "Partitionable" || num(p, "Cpus") != 4 || num(p, "Memory") != 4096 || len(str(p, "ClaimId")) != 64 {
		t.Fatalf("slot ad: %s", p)
	}
	job := jobAd(t, "Cmd = \"/home/alice/job.sh\"\nArguments = \"world\"\nTransferInput = \"input.txt\"\nTransferOutput = \"result.txt\"\nOut = \"job.out\"\nErr = \"job.err\"")
	h.schedd.inputs["/home/alice/job.sh"] = jobScript
	h.schedd.inputs["input.txt"] = "some input\n"
	res, err := h.schedd.claim(p, job, 60)
	if err != nil {
		t.Fatal(err)
	}
	if str(res.Slot, "Name") != "slot1_1@host1" || res.ClaimID == str(p, "ClaimId") || len(res.ClaimID) != 64 || res.Lease != 60 {
		t.Fatalf("claim: %s %d %s", res.ClaimID, res.Lease, res.Slot)
	}
	h.waitAds("the dynamic slot", func(a map[string]*classad.Ad) bool {
		return status(a, "slot1_1@host1") == "Claimed/Idle" && num(a["slot1@host1"], "Memory") == 4096-256
	})
	if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job}); err != nil {
		t.Fatal(err)
	}
	u := h.schedd.lastEvent()
	if u.Event != wire.EventExited || u.ExitCode != 7 || u.ClaimID != res.ClaimID || u.Job != "12.0" {
		t.Fatalf("%+v", u)
	}
	uid := "0"
	if h.sd.slots[0].user != nil {
		uid = "65534" // the startd is root: the job ran as nobody
	}
	for name, want := range map[string]string{"result.txt": "some input\n", "job.out": "hello world from " + uid + "\n", "job.err": "warning\n"} {
		if got := h.schedd.outputs[name]; got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	// The schedd reuses the claim for its next job as soon as it hears
	// the first one ended.
	next := jobAd(t, "ProcId = 1\nCmd = \"/home/alice/next.sh\"")
	h.schedd.inputs["/home/alice/next.sh"] = "#!/bin/sh\nexit 0\n"
	if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: next}); err != nil {
		t.Fatalf("reusing the claim: %v", err)
	}
	if u2 := h.schedd.lastEvent(); u2.Job != "12.1" || u2.Event != wire.EventExited || u2.ExitCode != 0 {
		t.Fatalf("the second job: %+v", u2)
	}
	h.waitAds("the slot idle again", func(a map[string]*classad.Ad) bool { return status(a, "slot1_1@host1") == "Claimed/Idle" })
	if err := h.schedd.call(wire.PathRelease, wire.ClaimRef{ClaimID: res.ClaimID}); err != nil {
		t.Fatal(err)
	}
	h.waitAds("the dynamic slot gone", func(a map[string]*classad.Ad) bool {
		_, there := a["slot1_1@host1"]
		return !there && num(a["slot1@host1"], "Memory") == 4096
	})
	if err := h.schedd.call(wire.PathAlive, wire.ClaimRef{ClaimID: res.ClaimID}); !wire.IsCode(err, wire.CodeNotFound) {
		t.Errorf("alive after release: %v", err)
	}
}

// Claims are refused, with the reason, when the id is not the slot's,
// the policy does not accept the job, the slot cannot take it, or the
// caller is not a daemon.
func TestClaimRefusals(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Layout = slots.Equal(2, false, "")
		c.Policy = append(c.Policy, policy("Start", `TARGET.Owner != "mallory"`)...)
	})
	ads := h.waitAds("two static slots", func(a map[string]*classad.Ad) bool { return len(a) == 2 })
	s1, s2 := ads["slot1@host1"], ads["slot2@host1"]
	if str(s1, "SlotType") != "Static" || num(s1, "Cpus") != 2 || str(s1, "ClaimId") == str(s2, "ClaimId") {
		t.Fatalf("slots: %s\n%s", s1, s2)
	}
	good := jobAd(t, `Cmd = "/bin/true"`)
	stale := s1.Clone()
	stale.Set("ClaimId", s2.Expr(s2.Index("ClaimId")))
	unknown := s1.Clone()
	unknown.Set("Name", s2.Expr(s2.Index("MyType")))
	tests := []struct {
		name string
		slot *classad.Ad
		job  *classad.Ad
		code string
		msg  string
	}{
		{"stale claim id", stale, good, wire.CodeConflict, "the claim id for slot1@host1 is stale or wrong"},
		{"unknown slot", unknown, good, wire.CodeNotFound, `no slot "Machine" here`},
		{"START refuses", s1, jobAd(t, "Cmd = \"/bin/true\"\nOwner = \"mallory\""), wire.CodeConflict,
			`slot1@host1 does not accept the job: TARGET.Owner != "mallory" is false`},
		{"too big", s1, jobAd(t, "Cmd = \"/bin/true\"\nRequestCpus = 3"), wire.CodeConflict,
			"slot1@host1 does not accept the job: (TARGET.RequestCpus ?: 1) <= MY.Cpus is false"},
	}
	for _, tt := range tests {
		_, err := h.schedd.claim(tt.slot, tt.job, 60)
		if !wire.IsCode(err, tt.code) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v, want %s %q", tt.name, err, tt.code, tt.msg)
		}
	}
	if _, err := h.schedd.claim(s1, good, 60); err != nil {
		t.Fatal(err)
	}
	if _, err := h.schedd.claim(s1, good, 60); !wire.IsCode(err, wire.CodeConflict) || !strings.Contains(err.Error(), "slot1@host1 is Claimed/Idle and cannot be claimed") {
		t.Errorf("claiming twice: %v", err)
	}
	user := h.pool.Client(h.sd.Addr(), "alice", auth.Read|auth.Write)
	err := user.Call(context.Background(), "POST", wire.PathClaim, wire.ClaimRequest{ClaimID: str(s2, "ClaimId"), Slot: "slot2@host1", Job: good}, nil)
	if !wire.IsCode(err, wire.CodeForbidden) {
		t.Errorf("a user claimed: %v", err)
	}
	for _, path := range []string{wire.PathActivate, wire.PathAlive, wire.PathRelease, wire.PathVacate} {
		var in any = wire.ClaimRef{ClaimID: "guess"}
		switch path {
		case wire.PathActivate:
			in = wire.Activate{ClaimID: "guess", Job: good}
		case wire.PathVacate:
			in = wire.Vacate{ClaimID: "guess"}
		}
		if err := h.schedd.call(path, in); !wire.IsCode(err, wire.CodeNotFound) {
			t.Errorf("%s with a guessed claim id: %v", path, err)
		}
	}
}

// policy makes a policy expression; later ones replace earlier ones.
func policy(attr, src string) []config.NamedExpr {
	return []config.NamedExpr{{Attr: attr, Key: "test", Src: src}}
}

// A static slot's claim id changes when its claim ends.
func TestStaticSlotNewClaimID(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Layout = slots.Equal(1, false, "") })
	ads := h.waitAds("the slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	old := str(ads["slot1@host1"], "ClaimId")
	res, err := h.schedd.claim(ads["slot1@host1"], jobAd(t, `Cmd = "/bin/true"`), 60)
	if err != nil || res.ClaimID != old {
		t.Fatalf("claim: %v (id changed: %v)", err, res.ClaimID != old)
	}
	h.waitAds("the slot claimed", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Claimed/Idle" })
	h.schedd.call(wire.PathRelease, wire.ClaimRef{ClaimID: res.ClaimID})
	ads = h.waitAds("the slot free", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	if id := str(ads["slot1@host1"], "ClaimId"); id == old || len(id) != 64 {
		t.Errorf("claim id after release: %q", id)
	}
	if _, err := h.schedd.claim(ads["slot1@host1"], jobAd(t, `Cmd = "/bin/true"`), 60); err != nil {
		t.Errorf("claiming with the new id: %v", err)
	}
}

// The startd's endpoints are documented.
func TestDocumented(t *testing.T) {
	h := newHarness(t, nil)
	pooltest.CheckDocumented(t, h.sd.mux().Routes())
}

// Stopping the startd evicts its jobs and withdraws its ads.
func TestShutdown(t *testing.T) {
	h := newHarness(t, nil)
	ads := h.waitAds("the slot", func(a map[string]*classad.Ad) bool { return len(a) == 1 })
	h.schedd.inputs["/j.sh"] = "#!/bin/sh\nsleep 300\n"
	res, err := h.schedd.claim(ads["slot1@host1"], jobAd(t, `Cmd = "/j.sh"`), 60)
	if err != nil {
		t.Fatal(err)
	}
	h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: jobAd(t, `Cmd = "/j.sh"`)})
	h.schedd.next()
	h.waitAds("two slots", func(a map[string]*classad.Ad) bool { return len(a) == 2 })
	start := time.Now()
	h.stop()
	if u := h.schedd.next(); u.Event != wire.EventEvicted || u.Reason != "the startd is shutting down" {
		t.Errorf("%+v", u)
	}
	if ads := h.ads(); len(ads) != 0 {
		t.Errorf("ads left: %s", describe(ads))
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping took %v", took)
	}
}

// Changes that come together make one update, sent UpdateDelay after the
// first of them; without changes the ads are sent every update interval.
func TestAdvertising(t *testing.T) {
	const delay = 300 * time.Millisecond
	inBubble(t, func(t *testing.T) {
		h := newHarness(t, func(c *Config) { c.UpdateDelay = delay })
		ads := h.waitAds("the slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
		settle := func() { // the fake clock passes the update delay; the advertiser is idle again
			time.Sleep(delay)
			synctest.Wait()
		}
		settle() // the start's own burst is sent
		before := num(h.ads()["slot1@host1"], "UpdatesTotal")
		for range 3 {
			if _, err := h.schedd.claim(ads["slot1@host1"], jobAd(t, `Cmd = "/bin/true"`), 60); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if n := len(h.ads()); n != 1 {
			t.Errorf("the claims were advertised before the update delay: %d ads", n)
		}
		settle()
		ads = h.ads()
		if len(ads) != 4 {
			t.Fatalf("after the update delay the collector has %s, want three dynamic slots", describe(ads))
		}
		if n := num(ads["slot1@host1"], "UpdatesTotal") - before; n != 1 {
			t.Errorf("three claims made %d updates, want 1", n)
		}
	})
}

func TestUpdateInterval(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.UpdateInterval = 50 * time.Millisecond })
	ads := h.waitAds("the slot", func(a map[string]*classad.Ad) bool { return len(a) == 1 })
	first := num(ads["slot1@host1"], "UpdateSequenceNumber")
	h.waitAds("periodic updates", func(a map[string]*classad.Ad) bool {
		return num(a["slot1@host1"], "UpdateSequenceNumber") >= first+3
	})
}

// Keep-alives name the job a claim runs, and the job whose end is still
// on its way to a schedd that does not answer (a restarted schedd
// reconnects to it and takes the end); none once the end got through.
func TestAliveNamesTheJob(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		h := newHarness(t, nil)
		ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
		job := jobAd(t, "Cmd = \"/bin/sh\"\nTransferExecutable = false\nArguments = \"-c 'exit 0'\"")
		res, err := h.schedd.claim(ads["slot1@host1"], job, 60)
		if err != nil {
			t.Fatal(err)
		}
		alive := func() string {
			job, err := h.alive(res.ClaimID)
			if err != nil {
				t.Fatal(err)
			}
			return job
		}
		if j := alive(); j != "" {
			t.Errorf("an idle claim runs %q", j)
		}
		h.schedd.setDown(true)
		if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job}); err != nil {
			t.Fatal(err)
		}
		h.waitAds("the job over", func(a map[string]*classad.Ad) bool { return status(a, "slot1_1@host1") == "Claimed/Idle" })
		if j := alive(); j != "12.0" {
			t.Errorf("with the end undelivered the claim runs %q, want 12.0", j)
		}
		h.schedd.setDown(false)
		if u := h.schedd.lastEvent(); u.Job != "12.0" || u.Event != wire.EventExited {
			t.Fatalf("the end: %+v", u)
		}
		synctest.Wait() // the startd has the schedd's answer
		if j := alive(); j != "" {
			t.Errorf("keep-alives still name %q once its end got through", j)
		}
	})
}

// A job that ended while its schedd was away is not run again when its
// startd is killed before the schedd is back (issue 15's chaos test found
// it): the restarted startd answers keep-alives of the job's claim naming
// the job, as the claim's startd would, and reports the job's end once
// the schedd answers; then the claim is gone.
func TestKilledStartdReportsTheEndAfterRestart(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		h := newHarness(t, nil)
		ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
		job := jobAd(t, "Cmd = \"/bin/sh\"\nTransferExecutable = false\nArguments = \"-c 'exit 3'\"")
		res, err := h.schedd.claim(ads["slot1@host1"], job, 60)
		if err != nil {
			t.Fatal(err)
		}
		h.schedd.setDown(true)
		if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job}); err != nil {
			t.Fatal(err)
		}
		h.waitAds("the job over", func(a map[string]*classad.Ad) bool { return status(a, "slot1_1@host1") == "Claimed/Idle" })
		h.sd.Kill()
		h.stop()
		h = h.restart()
		alive := func() (string, error) { return h.alive(res.ClaimID) }
		if j, err := alive(); err != nil || j != "12.0" {
			t.Fatalf("the restarted startd says the claim runs %q (%v), want 12.0: its end is still to be reported", j, err)
		}
		h.schedd.setDown(false)
		if u := h.schedd.lastEvent(); u.Job != "12.0" || u.Event != wire.EventExited || u.ExitCode != 3 {
			t.Fatalf("the end reported after the restart: %+v", u)
		}
		synctest.Wait() // the startd has the schedd's answer
		if j, err := alive(); err == nil {
			t.Errorf("keep-alives of the claim still answer (naming %q) once its end got through", j)
		}
		if n := h.sd.pendingResults(); n != 0 {
			t.Errorf("%d result(s) still kept after the report", n)
		}
	})
}
