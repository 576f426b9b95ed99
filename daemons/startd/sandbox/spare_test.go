package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestParkAndReuse: a sandbox holding only its ads is parked under its
// name, marked by its mode, and reused for the next job, renamed for it,
// with its mode back, its ads rewritten in place whatever their old
// length.
func TestParkAndReuse(t *testing.T) {
	exec := t.TempDir()
	d, err := Create(exec, "slot1_1.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	path := d.Path
	if err := d.WriteFile(".job.ad", []byte("a long first job ad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d.Path, 0o777); err != nil { // the job's doing
		t.Fatal(err)
	}
	if isParked(t, d.Path) {
		t.Fatal("a sandbox in use reads as parked")
	}
	if err := d.Park(".job.ad", ".machine.ad"); err != nil {
		t.Fatal(err)
	}
	if d.Path != path || !isParked(t, d.Path) {
		t.Fatalf("parked as %s, parked: %v", d.Path, isParked(t, d.Path))
	}
	if err := d.Reuse("slot1_1.1", nil); err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(d.Path); !strings.HasPrefix(base, Prefix+"slot1_1.1_") {
		t.Fatalf("reused as %s", base)
	}
	if fi, err := os.Stat(d.Path); err != nil || fi.Mode()&(fs.ModePerm|fs.ModeSticky) != 0o700 || isParked(t, d.Path) {
		t.Fatalf("mode after reuse: %v %v", fi.Mode(), err)
	}
	for _, content := range []string{"short\n", "a much longer second job ad than the first\n"} {
		if err := d.WriteFile(".job.ad", []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, filepath.Join(d.Path, ".job.ad")); got != content {
			t.Errorf("got %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(exec)
	if len(entries) != 1 {
		t.Errorf("execute directory holds %d entries, want the one sandbox", len(entries))
	}
}

// isParked reports whether the directory at p reads as parked.
func isParked(t *testing.T, p string) bool {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return Parked(fi)
}

// TestParkedMode: only a directory of the startd's with the parked mode
// is parked; a job's sticky sandbox of another mode, or a file, is not.
func TestParkedMode(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		mode fs.FileMode
		file bool
		want bool
	}{
		{ParkedMode, false, true},
		{0o700, false, false},
		{fs.ModeSticky | 0o755, false, false},
		{ParkedMode, true, false},
	} {
		p := filepath.Join(dir, fmt.Sprintf("%v_%v", tc.mode, tc.file))
		var err error
		if tc.file {
			err = os.WriteFile(p, nil, 0o600)
		} else {
			err = os.Mkdir(p, 0o700)
		}
		if err == nil {
			err = os.Chmod(p, tc.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := isParked(t, p); got != tc.want {
			t.Errorf("%v (file %v): parked %v, want %v", tc.mode, tc.file, got, tc.want)
		}
	}
}

// TestParkRefused: a sandbox the job left anything else in is not parked,
// nor marked.
func TestParkRefused(t *testing.T) {
	for name, leave := range map[string]func(dir string) error{
		"a file":      func(dir string) error { return os.WriteFile(filepath.Join(dir, "out"), nil, 0o644) },
		"a directory": func(dir string) error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) },
		"a link named like an ad": func(dir string) error {
			return os.Symlink("/etc/passwd", filepath.Join(dir, ".machine.ad"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			d := newDir(t)
			if err := leave(d.Path); err != nil {
				t.Fatal(err)
			}
			if err := d.Park(".job.ad", ".machine.ad"); err == nil {
				t.Fatal("parked")
			}
			if isParked(t, d.Path) {
				t.Error("marked parked")
			}
		})
	}
}

// TestReuseOtherOwner: a sandbox parked for one user is not given to
// another's job.
func TestReuseOtherOwner(t *testing.T) {
	d := newDir(t)
	if err := d.Park(); err != nil {
		t.Fatal(err)
	}
	if err := d.Reuse("slot1_2.0", &Owner{UID: 4242, GID: 4242}); err == nil {
		t.Error("reused for another user")
	}
}

// TestParkOwned: a job's user's sandbox is the startd's while parked, so
// that nothing its user still runs can put files in it, and its user's
// again when reused.
func TestParkOwned(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving files away needs root")
	}
	owner := &Owner{UID: 4242, GID: 4243}
	d, err := Create(t.TempDir(), "slot1_1.0", owner)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	for _, step := range []struct {
		do       func() error
		uid, gid int
		parked   bool
	}{
		{func() error { return d.Park() }, 0, 0, true},
		{func() error { return d.Reuse("slot1_1.1", owner) }, owner.UID, owner.GID, false},
	} {
		if err := step.do(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(d.Path)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != step.uid || int(st.Gid) != step.gid || Parked(fi) != step.parked {
			t.Errorf("owned by %d:%d, parked %v; want %d:%d, %v", st.Uid, st.Gid, Parked(fi), step.uid, step.gid, step.parked)
		}
	}
}

// TestWriteFileReplacesLinks: an ad's name the job made a link (symbolic,
// or hard to a file elsewhere) is replaced, never written through.
func TestWriteFileReplacesLinks(t *testing.T) {
	d := newDir(t)
	outside := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(outside, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(d.Path, ".job.ad")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(d.Path, ".machine.ad")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".job.ad", ".machine.ad"} {
		if err := d.WriteFile(name, []byte("ad"), 0o644); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := readFile(t, filepath.Join(d.Path, name)); got != "ad" {
			t.Errorf("%s: got %q", name, got)
		}
	}
	if got := readFile(t, outside); got != "keep me" {
		t.Errorf("the file outside became %q", got)
	}
}

// TestTopLevelAgain: each listing of a sandbox, which keeps it open,
// shows what is in it now.
func TestTopLevelAgain(t *testing.T) {
	d := newDir(t)
	for _, step := range []struct {
		change func() error
		want   string
	}{
		{func() error { return nil }, ""},
		{func() error { return os.WriteFile(filepath.Join(d.Path, "a"), nil, 0o644) }, "a"},
		{func() error { return os.Mkdir(filepath.Join(d.Path, "b"), 0o755) }, "a b/"},
		{func() error { return os.Remove(filepath.Join(d.Path, "a")) }, "b/"},
	} {
		if err := step.change(); err != nil {
			t.Fatal(err)
		}
		entries, err := d.TopLevel()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() {
				n += "/"
			}
			names = append(names, n)
		}
		slices.Sort(names)
		if got := strings.Join(names, " "); got != step.want {
			t.Errorf("listed %q, want %q", got, step.want)
		}
	}
}

// TestWriteFileInPlace: an ad rewritten in place is the same file, with
// the new text whatever the old one's length, and the mode given back
// should the job have changed it.
func TestWriteFileInPlace(t *testing.T) {
	d := newDir(t)
	p := filepath.Join(d.Path, ".job.ad")
	if err := d.WriteFile(".job.ad", []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"a longer second text\n", "short\n", ""} {
		if err := os.Chmod(p, 0o600); err != nil { // the job's doing
			t.Fatal(err)
		}
		if err := d.WriteFile(".job.ad", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		after, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(before, after) || after.Mode().Perm() != 0o644 {
			t.Errorf("after writing %q: same file %v, mode %v", text, os.SameFile(before, after), after.Mode())
		}
		if got := readFile(t, p); got != text {
			t.Errorf("got %q, want %q", got, text)
		}
	}
}

// TestRenameNewRefusesTaken: a parked sandbox is renamed only to a name
// nothing has, as os.Rename refuses a directory there; neither side
// changes when the name is taken.
func TestRenameNewRefusesTaken(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "from")
	if err := os.Mkdir(from, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, taken := range []struct {
		name string
		make func(string) error
	}{
		{"empty directory", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"file", func(p string) error { return os.WriteFile(p, []byte("x"), 0o600) }},
	} {
		to := filepath.Join(dir, taken.name)
		if err := taken.make(to); err != nil {
			t.Fatal(err)
		}
		if err := renameNew(from, to); err == nil {
			t.Errorf("renamed over a %s", taken.name)
		}
		if _, err := os.Stat(from); err != nil {
			t.Errorf("after renaming over a %s: %v", taken.name, err)
		}
	}
	to := filepath.Join(dir, "new")
	if err := renameNew(from, to); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(to); err != nil {
		t.Error(err)
	}
}
