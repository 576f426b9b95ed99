package starter

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/internal/wire"
)

// condor_tail reads a running job's files (HTCondor's manual,
// man-pages/condor_tail.rst: "the last bytes of a file in the sandbox of a
// running job", at most -maxbytes per read). The job writes its files and
// exits; its last event waits, so its sandbox is still there while the
// test reads it, and nothing depends on timing.
func TestReadFile(t *testing.T) {
	job := "#!/bin/sh\nprintf 'hello world'\nprintf oops >&2\necho data > data.txt\n" +
		"ln -s /etc/passwd link\nln -s data.txt inlink\nmkdir sub\nmkfifo fifo\n"
	f := newFakeSchedd(map[string]string{"/j.sh": job})
	cfg := testConfig(t, f)
	ended, release := make(chan wire.JobUpdate, 1), make(chan struct{})
	cfg.Report = func(ctx context.Context, u wire.JobUpdate) error {
		if u.Event == wire.EventStarted {
			return nil
		}
		ended <- u
		<-release
		return nil
	}
	s := run(t, cfg, jobAd(t, "Cmd = \"/j.sh\"\nOut = \"job.out\"\nErr = \"job.err\"\nTransferOutput = \"data.txt\""))
	defer close(release)
	if u := <-ended; u.Event != wire.EventExited || u.ExitCode != 0 {
		t.Fatalf("the job did not run: %+v", u)
	}
	std := func(stream string, offset int64, max int) wire.FileRange {
		return wire.FileRange{Stream: stream, Offset: offset, Max: max}
	}
	file := func(name string) wire.FileRange { return wire.FileRange{Name: name, Offset: 0, Max: 100} }
	tests := []struct {
		name   string
		rng    wire.FileRange
		want   string
		offset int64
		escape bool // refused as leaving the sandbox or not a regular file
		absent bool
	}{
		{name: "the last bytes of stdout", rng: std(wire.StreamStdout, -1, 5), want: "world", offset: 6},
		{name: "stdout from an offset", rng: std(wire.StreamStdout, 2, 3), want: "llo", offset: 2},
		{name: "at the end", rng: std(wire.StreamStdout, 11, 3), want: "", offset: 11},
		{name: "past the end: the file shrank", rng: std(wire.StreamStdout, 40, 4), want: "orld", offset: 7},
		{name: "stderr", rng: std(wire.StreamStderr, -1, 1024), want: "oops"},
		{name: "a file", rng: file("data.txt"), want: "data\n"},
		{name: "a link inside", rng: file("inlink"), want: "data\n"},
		{name: "dot dot", rng: file("../x"), escape: true},
		{name: "absolute", rng: file("/etc/passwd"), escape: true},
		{name: "a link out", rng: file("link"), escape: true},
		{name: "a directory", rng: file("sub"), escape: true},
		{name: "a fifo", rng: file("fifo"), escape: true},
		{name: "missing", rng: file("nope"), absent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ReadFile(tt.rng)
			var escape *sandbox.EscapeError
			switch {
			case tt.escape:
				if !errors.As(err, &escape) {
					t.Fatalf("read %+v: %v, want it refused", tt.rng, err)
				}
			case tt.absent:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("read %+v: %v, want not found", tt.rng, err)
				}
			case err != nil:
				t.Fatal(err)
			case string(got.Data) != tt.want || got.Offset != tt.offset:
				t.Errorf("read %+v: %q at %d, want %q at %d", tt.rng, got.Data, got.Offset, tt.want, tt.offset)
			}
		})
	}
	for _, bad := range []wire.FileRange{
		{Stream: wire.StreamStdout, Max: 0},
		{Stream: wire.StreamStdout, Max: wire.MaxFileChunk + 1},
		{Stream: "stdin", Max: 10},
		{Stream: wire.StreamStdout, Name: "x", Max: 10},
		{Max: 10},
		{Stream: wire.StreamStdout, Offset: -2, Max: 10},
	} {
		if _, err := s.ReadFile(bad); err == nil {
			t.Errorf("read %+v: no error", bad)
		}
	}
}

// A job whose submit file names no output has none to read.
func TestReadFileNoOutput(t *testing.T) {
	f := newFakeSchedd(map[string]string{"/j.sh": "#!/bin/sh\necho lost\n"})
	cfg := testConfig(t, f)
	ended, release := make(chan wire.JobUpdate, 1), make(chan struct{})
	cfg.Report = func(ctx context.Context, u wire.JobUpdate) error {
		if u.Event != wire.EventStarted {
			ended <- u
			<-release
		}
		return nil
	}
	s := run(t, cfg, jobAd(t, `Cmd = "/j.sh"`))
	defer close(release)
	<-ended
	if _, err := s.ReadFile(wire.FileRange{Stream: wire.StreamStdout, Offset: -1, Max: 10}); err == nil {
		t.Error("a job without output: read stdout")
	}
}

// A job on a shared file system has its files read where it writes them,
// in its own directory, with the same refusals.
func TestReadFileShared(t *testing.T) {
	iwd := t.TempDir()
	job := "#!/bin/sh\nprintf 'shared out'\necho data > data.txt\nln -s /etc/passwd link\n"
	if err := os.WriteFile(filepath.Join(iwd, "job.sh"), []byte(job), 0o755); err != nil {
		t.Fatal(err)
	}
	f := newFakeSchedd(nil)
	cfg := testConfig(t, f)
	ended, release := make(chan wire.JobUpdate, 1), make(chan struct{})
	cfg.Report = func(ctx context.Context, u wire.JobUpdate) error {
		if u.Event != wire.EventStarted {
			ended <- u
			<-release
		}
		return nil
	}
	s := run(t, cfg, jobAd(t, "Cmd = \"job.sh\"\nIwd = \""+iwd+"\"\nShouldTransferFiles = \"NO\"\nOut = \"out.txt\""))
	defer close(release)
	if u := <-ended; u.Event != wire.EventExited || u.ExitCode != 0 {
		t.Fatalf("the job did not run: %+v", u)
	}
	if got, err := s.ReadFile(wire.FileRange{Stream: wire.StreamStdout, Offset: -1, Max: 3}); err != nil || string(got.Data) != "out" {
		t.Errorf("stdout: %q %v, want \"out\"", got.Data, err)
	}
	if got, err := s.ReadFile(wire.FileRange{Name: "data.txt", Max: 100}); err != nil || string(got.Data) != "data\n" {
		t.Errorf("data.txt: %q %v", got.Data, err)
	}
	if _, err := s.ReadFile(wire.FileRange{Stream: wire.StreamStderr, Offset: -1, Max: 3}); err == nil {
		t.Error("read the stderr of a job that has none")
	}
	for _, name := range []string{"link", "../x", "/etc/passwd"} {
		var escape *sandbox.EscapeError
		if _, err := s.ReadFile(wire.FileRange{Name: name, Max: 100}); !errors.As(err, &escape) {
			t.Errorf("%s: %v, want it refused", name, err)
		}
	}
}
