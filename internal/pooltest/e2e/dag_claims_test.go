package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/internal/attr"
)

// DAGMan's DAGMAN_HOLD_CLAIM_TIME (the HTCondor manual, "Optimization of
// Submission Time", and KeepClaimIdle in "Job ClassAd Attributes"): the
// job of a node that has children carries KeepClaimIdle; when it ends
// the schedd keeps its claim idle, and the child, submitted only once
// its parent is done, runs on that claim with no negotiation. A node
// without children gives its claim back at once. With the time 0 the
// parent's claim is given back and the child needs a claim of its own.
// A's POST script waits for the test, so that the child comes only after
// the claim was kept (or given back).
func TestDAGChildRunsOnItsParentsClaim(t *testing.T) {
	tests := []struct {
		hold    time.Duration
		between string  // the slot's state while A's POST script waits
		claims  float64 // claims granted for the DAG
		keep    string  // A's KeepClaimIdle
	}{
		{hold: time.Minute, between: "Claimed Idle", claims: 1, keep: "60"},
		{hold: 0, between: "Unclaimed Idle", claims: 2, keep: "undefined"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("hold=%v", tc.hold), func(t *testing.T) {
			dir := t.TempDir()
			dagDirIn(t, dir, map[string]string{
				"chain.dag": "JOB A job.sub\nSCRIPT POST A wait.sh\nJOB B job.sub\nPARENT A CHILD B\n",
				"wait.sh":   "#!/bin/sh\nwhile [ ! -e " + filepath.Join(dir, "go") + " ]; do sleep 0.02; done\n",
			})
			pl := newPoolOpts(t, 1, poolOpts{schedd: func(c *schedd.Config) { c.DAGHoldClaim = tc.hold }}, "a")
			id := pl.submitDAG(dir, "chain.dag", "")
			waitFor(t, "A's POST script", func() (string, bool) {
				_, nodes := pl.dagInfo(id)
				return nodes[0].Status, nodes[0].Status == "STATUS_POSTRUN"
			})
			pl.waitSlot("slot1@a", tc.between, attr.State, attr.Activity)
			if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			ad, nodes := pl.waitDAG(id)
			if intAttr(t, ad, attr.ExitCode) != 0 {
				t.Fatalf("DAG ad: %v", ad)
			}
			for k, want := range []string{tc.keep, "undefined"} { // B has no children
				job := pl.job(strconv.FormatInt(nodes[k].Cluster, 10) + ".0")
				if got := str(job, attr.KeepClaimIdle); got != want {
					t.Errorf("node %s: KeepClaimIdle %q, want %q", nodes[k].Name, got, want)
				}
			}
			claims := counters(t, pl.schedd.Metrics(), "kite_schedd_claims_total", "result")
			if claims["granted"] != tc.claims {
				t.Errorf("claims %v, want %v granted", claims, tc.claims)
			}
			// B's claim is given back at once: a held claim would stay a
			// minute, past waitSlot's bound.
			pl.waitSlot("slot1@a", "Unclaimed", attr.State)
		})
	}
}

// A job's own keep_claim_idle (condor_submit's command for KeepClaimIdle)
// keeps its claim for the owner's next job, which runs on it without a
// negotiation; a job without it gives its claim back at once; once a held
// claim's time is up it is given back.
func TestKeepClaimIdleRunsTheNextJob(t *testing.T) {
	pl := newPoolOpts(t, 1, poolOpts{}, "a")
	dir := t.TempDir()
	run := func(keep string) {
		t.Helper()
		c := pl.submit(dir, "executable = /bin/true\n"+keep+"\nshould_transfer_files = IF_NEEDED\nqueue\n")
		pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed)
	}
	granted := func() float64 {
		return counters(t, pl.schedd.Metrics(), "kite_schedd_claims_total", "result")["granted"]
	}
	run("keep_claim_idle = 60")
	pl.waitSlot("slot1@a", "Claimed Idle", attr.State, attr.Activity)
	run("") // on the held claim
	if g := granted(); g != 1 {
		t.Errorf("%v claims granted, want the second job on the first one's claim", g)
	}
	pl.waitSlot("slot1@a", "Unclaimed", attr.State) // the second job keeps none
	run("keep_claim_idle = 5")
	if g := granted(); g != 2 {
		t.Errorf("%v claims granted, want a new claim for the third job", g)
	}
	pl.waitSlot("slot1@a", "Claimed Idle", attr.State, attr.Activity)
	pl.waitSlot("slot1@a", "Unclaimed", attr.State) // its 5 s are up
}
