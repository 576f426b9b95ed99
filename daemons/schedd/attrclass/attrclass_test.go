package attrclass

import (
	"strings"
	"testing"
)

// Who may edit what, with HTCondor's classes (htcondor-reference-2 §7;
// condor_qedit refuses JobStatus). Issue 14 item 6: a user edited her
// job's NumJobCompletions, RemoteWallClockTime, ExitCode, JobRunCount,
// RemoteSlot and HoldReasonCode.
func TestMayEdit(t *testing.T) {
	tests := []struct {
		name  string
		admin bool
		want  string // "" allowed, else part of the refusal
	}{
		{"Iwd", false, ""},
		{"Out", false, ""},
		{"Err", false, ""},
		{"In", false, ""},
		{"Cmd", false, ""},
		{"UserLog", false, ""},
		{"Arguments", false, ""},
		{"Requirements", false, ""},
		{"Note", false, ""},
		{"NumJobCompletions", false, "NumJobCompletions is protected"},
		{"numjobcompletions", false, "is protected"},
		{"RemoteWallClockTime", false, "is protected"},
		{"ExitCode", false, "is protected"},
		{"ExitBySignal", false, "is protected"},
		{"JobRunCount", false, "is protected"},
		{"NumJobStarts", false, "is protected"},
		{"RemoteSlot", false, "is protected"},
		{"RemoteHost", false, "is protected"},
		{"HoldReasonCode", false, "is protected"},
		{"HoldReasonSubCode", false, "is protected"},
		{"LastHoldReason", false, "is protected"},
		{"CompletionDate", false, "is protected"},
		{"KiteAborts", false, "is protected"},
		{"KiteWinner", false, "is protected"},
		{"ExitCode", true, ""},
		{"NumJobCompletions", true, ""},
		{"JobStatus", false, "use kite hold, kite release or kite rm"},
		{"JobStatus", true, "use kite hold, kite release or kite rm"},
		{"Owner", true, "Owner is immutable"},
		{"ClusterId", true, "is immutable"},
		{"ProcId", false, "is immutable"},
		{"JobUniverse", true, "is immutable"},
		{"User", true, "is immutable"},
		{"MyType", false, "is immutable"},
		{"TargetType", false, "is immutable"},
		{"UidDomain", false, "is immutable"},
		{"OsUser", true, "OsUser is secure"},
		{"TotalSubmitProcs", true, "is secure"},
		{"ClaimId", true, "is secure"},
		{"KiteStartdAddr", true, "is secure"},
		{"KiteReplicaClaims", true, "is secure"},
		{"AuthTokenSubject", true, "is secure"},
	}
	for _, tt := range tests {
		got := MayEdit(tt.name, tt.admin)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("MayEdit(%s, admin %v) = %q, want %q", tt.name, tt.admin, got, tt.want)
		}
	}
}
