package sandbox

import (
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func newDir(t *testing.T) *Dir {
	t.Helper()
	d, err := Create(t.TempDir(), "slot1_1@host/1.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Remove() })
	return d
}

func TestCheckName(t *testing.T) {
	tests := []struct{ name, reason string }{
		{"", "an empty file name"},
		{"  ", "an empty file name"},
		{"/etc/passwd", "an absolute path leaves the sandbox"},
		{"../secret", `".." leaves the sandbox`},
		{"a/../../secret", `".." leaves the sandbox`},
		{"a/..", `".." leaves the sandbox`},
		{".", "names the sandbox itself"},
		{"./", "names the sandbox itself"},
		{"a\x00b", "a file name with a NUL byte"},
		{"out.txt", ""},
		{"sub/dir/out.txt", ""},
		{"./out.txt", ""},
		{"..hidden", ""},
	}
	for _, tt := range tests {
		err := CheckName(tt.name)
		var ee *EscapeError
		switch {
		case tt.reason == "" && err != nil:
			t.Errorf("%q refused: %v", tt.name, err)
		case tt.reason != "" && (!errors.As(err, &ee) || !strings.Contains(err.Error(), tt.reason)):
			t.Errorf("%q: got %v, want %q", tt.name, err, tt.reason)
		}
	}
}

// Writing an input file never leaves the sandbox: not by name, not
// through a link planted in it.
func TestCreateFileRefusesEscapes(t *testing.T) {
	d := newDir(t)
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	os.Symlink(victim, filepath.Join(d.Path, "abs"))
	os.Symlink(outside, filepath.Join(d.Path, "absdir"))
	os.Symlink("../..", filepath.Join(d.Path, "up"))
	os.Mkdir(filepath.Join(d.Path, "sub"), 0o755)
	os.Symlink("../../x", filepath.Join(d.Path, "sub", "up2"))
	tests := []struct{ name, want string }{
		{"/tmp/x", "an absolute path leaves the sandbox"},
		{"../x", `".." leaves the sandbox`},
		{"abs", "abs is a symbolic link to " + victim + ", outside the sandbox"},
		{"absdir/victim", "absdir is a symbolic link to " + outside + ", outside the sandbox"},
		{"up/x", "up is a symbolic link to ../.., outside the sandbox"},
		{"sub/up2", "sub/up2 is a symbolic link to ../../x, outside the sandbox"},
	}
	for _, tt := range tests {
		f, err := d.CreateFile(tt.name, 0o644)
		var ee *EscapeError
		if err == nil {
			f.Close()
		}
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `file "`+tt.name+`"`) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the file outside was written: %q", b)
	}
	f, err := d.CreateFile("in.txt", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// Reading an output file never leaves the sandbox either, and reads only
// regular files.
func TestOpenRefusesEscapes(t *testing.T) {
	d := newDir(t)
	os.WriteFile(filepath.Join(d.Path, "real.txt"), []byte("data"), 0o644)
	os.Symlink("real.txt", filepath.Join(d.Path, "alias"))
	os.Symlink("/etc/passwd", filepath.Join(d.Path, "passwd"))
	os.Mkdir(filepath.Join(d.Path, "dir"), 0o755)
	os.Symlink("..", filepath.Join(d.Path, "dir", "parent"))
	os.Symlink("../../../../../../etc", filepath.Join(d.Path, "dir", "etc"))
	syscall.Mkfifo(filepath.Join(d.Path, "fifo"), 0o644)
	for _, name := range []string{"real.txt", "alias", "dir/parent/real.txt", "./real.txt"} {
		f, err := d.Open(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "data" {
			t.Errorf("%s: read %q", name, b)
		}
	}
	tests := []struct{ name, want string }{
		{"passwd", "passwd is a symbolic link to /etc/passwd, outside the sandbox"},
		{"dir/etc/passwd", "dir/etc is a symbolic link to ../../../../../../etc, outside the sandbox"},
		{"dir/parent/../x", `".." leaves the sandbox`},
		{"dir", "is not a regular file (d"},
		{"fifo", "is not a regular file (p"},
		{"missing", `file "missing": no such file or directory`},
	}
	for _, tt := range tests {
		f, err := d.Open(tt.name)
		if err == nil {
			f.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}

// Removing a sandbox removes links, not what they point to.
func TestRemoveKeepsLinkTargets(t *testing.T) {
	d := newDir(t)
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep")
	os.WriteFile(keep, nil, 0o644)
	os.Symlink(outside, filepath.Join(d.Path, "link"))
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a link's target was removed: %v", err)
	}
	if _, err := os.Stat(d.Path); !os.IsNotExist(err) {
		t.Errorf("the sandbox is still there: %v", err)
	}
	if !strings.HasPrefix(filepath.Base(d.Path), "dir_slot1_1_host_1.0_") {
		t.Errorf("sandbox name %s", filepath.Base(d.Path))
	}
}

// Files made for a job belong to its user.
func TestOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root")
	}
	d, err := Create(t.TempDir(), "x", &Owner{UID: 65534, GID: 65534})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	f, err := d.CreateFile("in", 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, p := range []string{d.Path, filepath.Join(d.Path, "in")} {
		fi, _ := os.Stat(p)
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 65534 || st.Gid != 65534 {
			t.Errorf("%s belongs to %d:%d", p, st.Uid, st.Gid)
		}
	}
	if f, err := d.Open("in"); err != nil {
		t.Errorf("the job's own file: %v", err)
	} else {
		f.Close()
	}
	// A hard link to a file of another user (root here) is not sent back.
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("root's"), 0o600)
	if err := os.Link(secret, filepath.Join(d.Path, "stolen")); err != nil {
		t.Fatal(err)
	}
	_, err = d.Open("stolen")
	if err == nil || !strings.Contains(err.Error(), `file "stolen": belongs to uid 0, not to the job's user (uid 65534)`) {
		t.Errorf("a hard link to root's file: %v", err)
	}
}

func TestCheckReachable(t *testing.T) {
	top := t.TempDir()
	os.Chmod(top, 0o755)
	inner := filepath.Join(top, "a", "b")
	os.MkdirAll(inner, 0o755)
	if err := CheckReachable(inner, 0, 0); err != nil {
		t.Errorf("root: %v", err)
	}
	os.Chmod(filepath.Join(top, "a"), 0o700)
	if os.Geteuid() == 0 || os.Getuid() != 65534 {
		err := CheckReachable(inner, 65534, 65534)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(top, "a")+" (mode -rwx------) does not let uid 65534 reach") {
			t.Errorf("got %v", err)
		}
	}
}

// A sandbox is named dir_<tag>_<12 hex digits>, each character of the
// tag other than a letter, a digit or ._- made '_' (each byte of invalid
// UTF-8 too), in one allocation.
func TestSandboxName(t *testing.T) {
	for _, tc := range []struct{ tag, want string }{
		{"slot1_1_1.0", "dir_slot1_1_1.0_"},
		{"slot1@host/2", "dir_slot1_host_2_"},
		{"\u00e9-x", "dir__-x_"},
		{"a\xff\xfeb", "dir_a__b_"},
	} {
		got := sandboxName(tc.tag)
		suffix, ok := strings.CutPrefix(got, tc.want)
		if _, err := hex.DecodeString(suffix); !ok || err != nil || len(suffix) != 12 {
			t.Errorf("sandboxName(%q) = %q, want %s and 12 hex digits", tc.tag, got, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { sandboxName("slot1_1_1.0") }); n != 1 && !raceEnabled {
		t.Errorf("sandboxName: %v allocations, want 1", n)
	}
}
