package dag

import (
	"fmt"
	"strings"
	"testing"
)

// A DAG's CONFIG file (the HTCondor manual, dagman-reference.rst
// "CONFIG"; the macros of admin-manual/configuration/dagman.rst): the
// DAGMAN_* settings Kite applies are read, others are ignored with a
// warning, a bad value is an error at file:line:col.
func TestParseKnobs(t *testing.T) {
	show := func(k Knobs) string {
		var b strings.Builder
		for _, f := range []struct {
			n string
			v *int
		}{{"jobs", k.MaxJobs}, {"idle", k.MaxIdle}, {"pre", k.MaxPre}, {"post", k.MaxPost},
			{"hold", k.MaxHold}, {"submits", k.MaxSubmits}, {"claim", k.HoldClaimTime}} {
			if f.v != nil {
				fmt.Fprintf(&b, "%s=%d ", f.n, *f.v)
			}
		}
		return strings.TrimSpace(b.String())
	}
	for _, tc := range []struct {
		name, src, knobs, warns, err string
	}{
		{name: "all", src: "# throttles\nDAGMAN_MAX_JOBS_SUBMITTED = 1\ndagman_max_jobs_idle=2\n\n  DAGMAN_MAX_PRE_SCRIPTS = 3\n" +
			"DAGMAN_MAX_POST_SCRIPTS = 4\r\nDAGMAN_MAX_HOLD_SCRIPTS = 5\nDAGMAN_MAX_SUBMITS_PER_INTERVAL = 6\nDAGMAN_HOLD_CLAIM_TIME = 0\n",
			knobs: "jobs=1 idle=2 pre=3 post=4 hold=5 submits=6 claim=0"},
		{name: "last wins, continuation", src: "DAGMAN_MAX_JOBS_SUBMITTED = 1\nDAGMAN_MAX_JOBS_SUBMITTED = \\\n 7\n", knobs: "jobs=7"},
		{name: "ignored with a warning", src: "DAGMAN_USER_LOG_SCAN_INTERVAL = 1\nALL_DEBUG = D_FULLDEBUG\n",
			warns: "c.conf:1:1: DAGMAN_USER_LOG_SCAN_INTERVAL is not a setting Kite applies to a DAG; ignored\n" +
				"c.conf:2:1: ALL_DEBUG is not a setting Kite applies to a DAG; ignored\n"},
		{name: "not a number", src: "\nDAGMAN_MAX_JOBS_IDLE = lots\n", err: `c.conf:2:24: DAGMAN_MAX_JOBS_IDLE = "lots": not a whole number`},
		{name: "negative", src: "DAGMAN_MAX_PRE_SCRIPTS = -1\n", err: "c.conf:1:26: DAGMAN_MAX_PRE_SCRIPTS = -1: out of range (0 to 2147483647)"},
		{name: "claim too long", src: "DAGMAN_HOLD_CLAIM_TIME = 3601\n", err: "c.conf:1:26: DAGMAN_HOLD_CLAIM_TIME = 3601: out of range (0 to 3600)"},
		{name: "no =", src: "  include : other.conf\n", err: "c.conf:1:3: expected NAME = value (Kite reads only such lines of a CONFIG file)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, warns, err := ParseKnobs("c.conf", []byte(tc.src))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var w strings.Builder
			for _, x := range warns {
				w.WriteString(x.Error() + "\n")
			}
			if got := show(k); got != tc.knobs || w.String() != tc.warns {
				t.Errorf("knobs %q, warnings %q; want %q, %q", got, w.String(), tc.knobs, tc.warns)
			}
		})
	}
}
