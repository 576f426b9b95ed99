package startd

import (
	"context"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/wire"
)

// A busy slot's ad shows a preempting id, never its claim's id; a claim
// with that id preempts the running job when the slot ranks the new job
// higher (rank) or the negotiator allowed it (priority).
func TestPreemptingClaims(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Layout = slots.Equal(1, false, "")
		c.Policy = append(c.Policy, policy("Rank", `TARGET.Owner == "vip" ? 10 : 0`)...)
	})
	ads := h.waitAds("a static slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	first := jobAd(t, "Cmd = \"/bin/sleep\"\nArgs = \"300\"\nOwner = \"bob\"\nTransferExecutable = false\nClusterId = 1\nProcId = 0")
	res, err := h.schedd.claim(ads["slot1@host1"], first, 60)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: first}); err != nil {
		t.Fatal(err)
	}
	if u := h.schedd.next(); u.Event != wire.EventStarted {
		t.Fatalf("%+v", u)
	}
	busy := h.waitAds("the slot busy", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Claimed/Busy" })["slot1@host1"]
	if id := str(busy, "ClaimId"); id == res.ClaimID || id == "" {
		t.Fatalf("the busy slot advertises its claim's own id (%q)", id)
	}

	claim := func(job *classad.Ad, preempt string) error {
		req := wire.ClaimRequest{ClaimID: str(busy, "ClaimId"), Slot: "slot1@host1", Job: job,
			Schedd: h.schedd.addr, ScheddName: "other", Lease: 60, Preempt: preempt}
		var out wire.ClaimResult
		return h.schedd.startd.Call(context.Background(), "POST", wire.PathClaim, req, &out)
	}
	plain := jobAd(t, "Cmd = \"/bin/true\"\nOwner = \"carol\"")
	vip := jobAd(t, "Cmd = \"/bin/true\"\nOwner = \"vip\"")
	for _, tt := range []struct {
		job     *classad.Ad
		preempt string
		msg     string
	}{
		{vip, "", "its id only preempts"},
		{plain, "rank", "does not rank the job (0) above the one it runs (0)"},
		{vip, "sideways", "want rank or priority"},
	} {
		if err := claim(tt.job, tt.preempt); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("preempt %q: %v, want %q", tt.preempt, err, tt.msg)
		}
	}
	if err := h.schedd.call(wire.PathAlive, wire.ClaimRef{ClaimID: res.ClaimID}); err != nil {
		t.Fatalf("refused preemptions touched the claim: %v", err)
	}

	// The slot prefers the vip's job: the running job is evicted and the
	// slot is claimed anew.
	if err := claim(vip, "rank"); err != nil {
		t.Fatal(err)
	}
	if u := h.schedd.next(); u.Event != wire.EventEvicted || u.Job != "1.0" || !strings.Contains(u.Reason, "ranks higher") {
		t.Errorf("the preempted job: %+v", u)
	}
	if err := h.schedd.call(wire.PathAlive, wire.ClaimRef{ClaimID: res.ClaimID}); !wire.IsCode(err, wire.CodeNotFound) {
		t.Errorf("the preempted claim still lives: %v", err)
	}
	h.waitAds("the slot claimed for the vip", func(a map[string]*classad.Ad) bool {
		return status(a, "slot1@host1") == "Claimed/Idle" && str(a["slot1@host1"], "RemoteOwner") == "vip"
	})
}
