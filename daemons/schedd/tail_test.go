package schedd

import (
	"context"
	"testing"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// condor_tail (HTCondor's manual, man-pages/condor_tail.rst) reads a
// running job's files: the schedd answers only the job's owner or an
// administrator, only for a job whose process runs, and only for a named
// file the job sends back (its transfer_output_files); everything else is
// refused before any startd is asked.
func TestTailRefusals(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/sleep\ntransfer_output_files = out.dat\nqueue 2\n")
	if a := h.matchFirst(t, startd); a != "c1 1.0" {
		t.Fatal(a)
	}
	stdout := wire.FileRange{Stream: wire.StreamStdout, Offset: -1, Max: 1024}
	tests := []struct {
		name     string
		identity string
		job      string
		rng      wire.FileRange
		code     string
	}{
		{"not yet started", "alice", "1.0", stdout, wire.CodeConflict},
		{"someone else's job", "bob", "1.0", stdout, wire.CodeForbidden},
		{"an idle job", "alice", "1.1", stdout, wire.CodeConflict},
		{"no such job", "alice", "1.9", stdout, wire.CodeNotFound},
		{"not a job id", "alice", "1", stdout, wire.CodeBadRequest},
		{"a file not sent back", "alice", "1.0", wire.FileRange{Name: "secret.txt", Max: 10}, wire.CodeForbidden},
		{"too much", "alice", "1.0", wire.FileRange{Stream: wire.StreamStdout, Max: wire.MaxFileChunk + 1}, wire.CodeBadRequest},
		{"no file", "alice", "1.0", wire.FileRange{Max: 10}, wire.CodeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := wire.TailRequest{Job: tt.job, FileRange: tt.rng}
			err := h.client(tt.identity, auth.Write).Call(context.Background(), "POST", wire.PathTail, req, nil)
			if !wire.IsCode(err, tt.code) {
				t.Errorf("tail %+v as %s: %v, want %s", req, tt.identity, err, tt.code)
			}
		})
	}
}
