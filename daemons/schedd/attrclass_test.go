package schedd

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// A submit may not set what the schedd keeps (issue 14 item 6): secure
// attributes never, protected ones but a held submit's status and
// reason, and a proc ad none of the immutable ones the cluster ad holds.
func TestSubmitClasses(t *testing.T) {
	tests := []struct {
		name    string
		cluster string // the cluster ad
		proc    string // proc 0's own ad
		want    string // "" accepted, else part of the refusal
	}{
		{"plain", `[Cmd = "/bin/true"]`, `[ProcId = 0; Arguments = "1"]`, ""},
		{"held submit", `[JobStatus = 5; HoldReason = "submitted on hold"; HoldReasonCode = 15; HoldReasonSubCode = 0]`, `[ProcId = 0]`, ""},
		{"held proc", `[]`, `[ProcId = 0; JobStatus = 5; HoldReasonCode = 15]`, ""},
		{"same cluster id", `[ClusterId = 7]`, `[ProcId = 0; ClusterId = 7]`, ""},
		{"cluster sets a completion count", `[NumJobCompletions = 3]`, `[ProcId = 0]`, "the cluster ad sets NumJobCompletions, which is protected"},
		{"proc sets an exit code", `[]`, `[ProcId = 0; ExitCode = 0]`, "job 7.0 sets ExitCode, which is protected"},
		{"proc sets a run count", `[]`, `[ProcId = 0; JobRunCount = 9]`, "sets JobRunCount"},
		{"proc sets a wall clock", `[]`, `[ProcId = 0; RemoteWallClockTime = 9.0]`, "sets RemoteWallClockTime"},
		{"cluster sets a claim", `[ClaimId = "x"]`, `[ProcId = 0]`, "sets ClaimId, which is secure"},
		{"cluster sets the proc count", `[TotalSubmitProcs = 1000000]`, `[ProcId = 0]`, "sets TotalSubmitProcs, which is secure"},
		{"cluster sets the account", `[OsUser = "root"]`, `[ProcId = 0]`, "sets OsUser, which is secure"},
		{"cluster sets the queue date", `[QDate = 0]`, `[ProcId = 0]`, "sets QDate"},
		{"proc sets the owner", `[]`, `[ProcId = 0; Owner = "root"]`, "job 7.0 sets Owner, which is immutable"},
		{"proc sets the uid domain", `[]`, `[ProcId = 0; UidDomain = "x"]`, "sets UidDomain, which is immutable"},
		{"proc names another cluster", `[]`, `[ProcId = 0; ClusterId = 8]`, "sets ClusterId, which is immutable"},
		{"proc sets a replica claim", `[]`, `[ProcId = 0; KiteReplicaClaims = "c a"]`, "secure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster, err := classad.ParseNew(tt.cluster)
			if err != nil {
				t.Fatal(err)
			}
			proc, err := classad.ParseNew(tt.proc)
			if err != nil {
				t.Fatal(err)
			}
			err = checkClasses(cluster, "the cluster ad")
			if err == nil {
				err = checkProc(0, 7, proc)
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}
