package cli

import (
	"slices"
	"strings"
	"testing"
)

// condor_ssh_to_job(1)'s command line: its options single-dash, the job
// id, then the command (-- before one whose words look like options);
// -ssh and -keygen-options, which drive an ssh program, are refused.
// condor_transfer_data(1) and condor_submit -interactive likewise.
func TestSSHToJobArgs(t *testing.T) {
	for _, tc := range []struct {
		prog string
		args []string
		want []string
		err  string
	}{
		{"condor_ssh_to_job", []string{"-auto-retry", "-shells", "/bin/bash,/bin/sh", "1.0"}, []string{"ssh_to_job", "--auto-retry", "--shells", "/bin/bash,/bin/sh", "1.0"}, ""},
		{"condor_ssh_to_job", []string{"-remove-on-interrupt", "-name", "s@h", "2", "ls"}, []string{"ssh_to_job", "--remove-on-interrupt", "--name", "s@h", "2", "ls"}, ""},
		{"condor_ssh_to_job", []string{"1.0", "--", "ls", "-la"}, []string{"ssh_to_job", "1.0", "--", "ls", "-la"}, ""},
		{"condor_ssh_to_job", []string{"-auto-retry", "1", "ls", "-la", "-name", "x"}, []string{"ssh_to_job", "--auto-retry", "1", "ls", "-la", "-name", "x"}, ""},
		{"kite", []string{"--config", "k.toml", "ssh_to_job", "1", "ls", "-la"}, []string{"--config", "k.toml", "ssh_to_job", "1", "ls", "-la"}, ""},
		{"condor_ssh_to_job", []string{"-ssh", "sftp", "1.0"}, nil, "option -ssh is not supported"},
		{"condor_ssh_to_job", []string{"-keygen-options", "-t rsa", "1.0"}, nil, "option -keygen-options is not supported"},
		{"condor_transfer_data", []string{"-constraint", "true", "-addr", "<1.2.3.4:9618>"}, []string{"transfer_data", "--constraint", "true", "--addr", "<1.2.3.4:9618>"}, ""},
		{"condor_submit", []string{"-interactive", "job.sub"}, []string{"submit", "--interactive", "job.sub"}, ""},
	} {
		t.Run(tc.prog+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			got, err := programArgs(tc.prog, tc.args)
			if err == nil {
				got, err = htcondorArgs(New(), got)
			}
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one with %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case !slices.Equal(got, tc.want):
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

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
