package starter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/wire"
)

const sharedScript = `#!/bin/sh
echo "in $(pwd) scratch ${_CONDOR_SCRATCH_DIR:+set}"
read line
echo "stdin: $line"
echo "to stderr" >&2
echo made > made.txt
`

// Whether a job runs in place on a shared file system, as HTCondor
// decides it (ShouldTransferFiles and FileSystemDomain), and only for one
// instance as the startd's own user.
func TestSharedFileSystem(t *testing.T) {
	cases := []struct {
		name, job, machine string
		user               bool
		shared             bool
	}{
		{"if needed, same domain", `ShouldTransferFiles = "IF_NEEDED"; FileSystemDomain = "Lab"`, `FileSystemDomain = "lab"`, false, true},
		{"if needed, other domain", `ShouldTransferFiles = "IF_NEEDED"; FileSystemDomain = "lab"`, `FileSystemDomain = "elsewhere"`, false, false},
		{"if needed, no domain", `ShouldTransferFiles = "IF_NEEDED"`, `FileSystemDomain = "lab"`, false, false},
		{"no transfer", `ShouldTransferFiles = "NO"`, `FileSystemDomain = "elsewhere"`, false, true},
		{"always transfer", `ShouldTransferFiles = "YES"; FileSystemDomain = "lab"`, `FileSystemDomain = "lab"`, false, false},
		{"may replicate", `ShouldTransferFiles = "NO"; KiteReplicas = 1`, `FileSystemDomain = "lab"`, false, false},
		{"runs as a slot user", `ShouldTransferFiles = "NO"`, `FileSystemDomain = "lab"`, true, false},
		{"relative directory", `ShouldTransferFiles = "NO"; Iwd = "home"`, `FileSystemDomain = "lab"`, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Starter{job: Job{Ad: jobAd(t, "Iwd = \"/home/alice\"\n"+semis(c.job))}}
			s.cfg.MachineAd = jobAd(t, c.machine)
			if c.user {
				s.cfg.User = &User{UID: 1000, GID: 1000}
			}
			if got := s.sharedFS(); got != c.shared {
				t.Errorf("shared = %v, want %v", got, c.shared)
			}
		})
	}
}

// semis turns "a; b" into lines of old ClassAd syntax.
func semis(s string) string {
	out := []byte(s)
	for i := range out {
		if out[i] == ';' {
			out[i] = '\n'
		}
	}
	return string(out)
}

// A job on a shared file system runs in its directory with its standard
// files there; nothing is fetched or sent; the scratch sandbox is removed.
func TestSharedJobRunsInPlace(t *testing.T) {
	iwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(iwd, "job.sh"), []byte(sharedScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(iwd, "in.txt"), []byte("first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(iwd, "both.txt"), []byte("old content that must go\n"), 0o644)
	f := newFakeSchedd(nil)
	cfg := testConfig(t, f)
	cfg.MachineAd = jobAd(t, `FileSystemDomain = "lab"`)
	ad := jobAd(t, `Cmd = "job.sh"
Iwd = "`+iwd+`"
ShouldTransferFiles = "IF_NEEDED"
FileSystemDomain = "lab"
In = "in.txt"
Out = "both.txt"
Err = "`+filepath.Join(iwd, "both.txt")+`"`)
	s := run(t, cfg, ad)
	u := f.next(t)
	if u.Event == wire.EventStarted {
		u = f.next(t)
	}
	if u.Event != wire.EventExited || u.ExitCode != 0 {
		t.Fatalf("last event %+v", u)
	}
	<-s.Done()
	got, _ := os.ReadFile(filepath.Join(iwd, "both.txt"))
	want := "in " + iwd + " scratch set\nstdin: first line\nto stderr\n"
	if string(got) != want {
		t.Errorf("both.txt = %q, want %q", got, want)
	}
	if made, _ := os.ReadFile(filepath.Join(iwd, "made.txt")); string(made) != "made\n" {
		t.Errorf("made.txt = %q", made)
	}
	if len(f.outputs) != 0 {
		t.Errorf("files were sent: %v", f.outputNames())
	}
	if entries, _ := os.ReadDir(cfg.ExecuteDir); len(entries) != 0 {
		t.Errorf("the sandbox is still there: %v", entries)
	}
}

// A shared job's missing input holds it, naming the file.
func TestSharedJobMissingInput(t *testing.T) {
	iwd := t.TempDir()
	f := newFakeSchedd(nil)
	cfg := testConfig(t, f)
	ad := jobAd(t, `Cmd = "/bin/true"
Iwd = "`+iwd+`"
ShouldTransferFiles = "NO"
In = "absent.txt"`)
	s := run(t, cfg, ad)
	u := f.next(t)
	<-s.Done()
	if u.Event == wire.EventExited || !strings.Contains(u.Reason, filepath.Join(iwd, "absent.txt")) {
		t.Fatalf("event %+v, want a hold naming the input", u)
	}
}
