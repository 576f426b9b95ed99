package starter

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// A root startd moves file:// URLs as the job's user: the job may read
// and write by URL only what its user may (the security model: any file a
// root daemon opens for a job is opened as the job's user).
func TestFileURLsAsTheJobsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	open := t.TempDir()
	for p := filepath.Dir(open); p != os.TempDir() && p != "/"; p = filepath.Dir(p) {
		os.Chmod(p, 0o755) // the test's temporary directories are private
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	readable, secret := filepath.Join(open, "readable.txt"), filepath.Join(open, "secret.txt")
	os.WriteFile(readable, []byte("for everyone\n"), 0o644)
	os.WriteFile(secret, []byte("root only\n"), 0o600)
	rootDir := filepath.Join(open, "root-only")
	os.Mkdir(rootDir, 0o700)

	tests := []struct {
		name, ad string
		event    string
		code     int
		reason   string
	}{
		{"readable input", `TransferInput = "file://` + readable + `"`, wire.EventExited, 0, ""},
		{"root's input", `TransferInput = "file://` + secret + `"`, wire.EventHeld, attr.HoldTransferInput, "permission denied"},
		{"output into an open directory", `OutputDestination = "file://` + open + `"`, wire.EventExited, 0, ""},
		{"output into root's directory", `OutputDestination = "file://` + rootDir + `"`, wire.EventHeld, attr.HoldTransferOutput, "permission denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeSchedd(map[string]string{"/job.sh": "#!/bin/sh\ncat *.txt > copy.out 2>/dev/null; echo ok > made.out\n"})
			cfg := testConfig(t, f)
			for p := cfg.ExecuteDir; p != os.TempDir() && p != "/"; p = filepath.Dir(p) {
				os.Chmod(p, 0o755)
			}
			cfg.User = &User{Name: "nobody", UID: 65534, GID: 65534}
			cfg.Plugins = xferplugin.NewSet()
			run(t, cfg, jobAd(t, "Cmd = \"/job.sh\"\n"+tc.ad))
			u := f.next(t)
			if u.Event == wire.EventStarted {
				u = f.next(t)
			}
			if u.Event != tc.event || u.HoldCode != tc.code || !strings.Contains(u.Reason, tc.reason) {
				t.Fatalf("got %s %d %q, want %s %d %q", u.Event, u.HoldCode, u.Reason, tc.event, tc.code, tc.reason)
			}
			if tc.name == "readable input" && f.outputs["copy.out"] != "for everyone\n" {
				t.Errorf("the job read %q from its URL input", f.outputs["copy.out"])
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(open, "made.out")); err != nil || string(b) != "ok\n" {
		t.Errorf("made.out in the open directory: %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(open, "made.out")); err != nil || fi.Sys().(*syscall.Stat_t).Uid != 65534 {
		t.Errorf("made.out is not the job's user's: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rootDir, "made.out")); err == nil {
		t.Errorf("a file was written into root's directory")
	}
}
