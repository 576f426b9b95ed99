package schedd

import (
	"context"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// condor_ssh_to_job (HTCondor's manual, man-pages/condor_ssh_to_job.rst)
// opens a shell only for the job's owner or a queue super user, only in a
// running job; the schedd refuses everything else before any startd is
// asked, as ordinary answers, before any switch of protocols.
func TestShellRefusals(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	h := startSchedd(t, p, testConfig(t))
	h.mustSubmit("alice", t.TempDir(), "executable = /bin/sleep\nqueue 2\n")
	if a := h.matchFirst(t, startd); a != "c1 1.0" {
		t.Fatal(a)
	}
	tests := []struct {
		name     string
		identity string
		req      wire.ShellRequest
		code     string
	}{
		{"not yet started", "alice", wire.ShellRequest{Job: "1.0"}, wire.CodeConflict},
		{"someone else's job", "bob", wire.ShellRequest{Job: "1.0"}, wire.CodeForbidden},
		{"an idle job", "alice", wire.ShellRequest{Job: "1.1"}, wire.CodeConflict},
		{"no such job", "alice", wire.ShellRequest{Job: "1.9"}, wire.CodeNotFound},
		{"not a job id", "alice", wire.ShellRequest{Job: "1"}, wire.CodeBadRequest},
		{"a relative shell", "alice", wire.ShellRequest{Job: "1.0", ShellSpec: wire.ShellSpec{Shells: []string{"sh"}}}, wire.CodeBadRequest},
		{"too long a command", "alice", wire.ShellRequest{Job: "1.0", ShellSpec: wire.ShellSpec{Command: []string{strings.Repeat("x", wire.MaxShellCommand)}}}, wire.CodeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := h.client(tt.identity, auth.Write).Upgrade(context.Background(), wire.PathShell, wire.ShellProtocol, tt.req)
			if err == nil {
				conn.Close()
			}
			if !wire.IsCode(err, tt.code) {
				t.Errorf("shell %+v as %s: %v, want %s", tt.req, tt.identity, err, tt.code)
			}
		})
	}
	// Without the upgrade, the endpoint says what it needs.
	err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathShell, wire.ShellRequest{Job: "1.0"}, nil)
	if !wire.IsCode(err, wire.CodeBadRequest) || !strings.Contains(err.Error(), "needs a connection upgraded to kite-shell/1") {
		t.Errorf("a plain POST: %v", err)
	}
}
