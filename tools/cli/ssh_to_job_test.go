package cli

import (
	"strings"
	"testing"
)

// condor_ssh_to_job(1): "cluster" alone is process 0; cluster.proc.node
// names a parallel job's node, which Kite has only as node 0.
func TestSSHJobID(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"12", "12.0", ""},
		{"12.3", "12.3", ""},
		{"12.3.0", "12.3", ""},
		{"12.3.1", "", "node 1: not supported"},
		{"12.x", "", "is not a job id"},
		{"1.2.3.4", "", "is not a job id"},
		{"", "", "is not a job id"},
	} {
		got, err := sshJobID(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one with %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%q: %q %v, want %q", tc.in, got, err, tc.want)
		}
	}
}

// A remote command's exit status is the tool's, printed by nobody; a
// signal's is 128 + N, with a message.
func TestExitStatusPassesThrough(t *testing.T) {
	for _, tc := range []struct {
		err    exitStatus
		status int
		stderr string
	}{
		{exitStatus{code: 3}, 3, ""},
		{exitStatus{137, "the shell was killed by signal 9 (killed)"}, 137, "kite: the shell was killed by signal 9 (killed)\n"},
	} {
		var stderr strings.Builder
		if got := exitCode("kite", tc.err, &stderr); got != tc.status || stderr.String() != tc.stderr {
			t.Errorf("%+v: status %d, stderr %q; want %d, %q", tc.err, got, stderr.String(), tc.status, tc.stderr)
		}
	}
}
