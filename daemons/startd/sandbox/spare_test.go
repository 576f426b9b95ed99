package sandbox

import (
	"os"
	"path/filepath"
	"strings"
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

// TestParkAndReuse: a sandbox holding only its ads is parked under a
// spare's name and reused under a new job's name, its ads rewritten in
// place whatever their old length.
func TestParkAndReuse(t *testing.T) {
	exec := t.TempDir()
	d, err := Create(exec, "slot1_1.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	if err := d.WriteFile(".job.ad", []byte("a long first job ad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.Park(".job.ad", ".machine.ad"); err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(d.Path); !strings.HasPrefix(base, SparePrefix) {
		t.Fatalf("parked as %s", base)
	}
	if err := os.Chmod(d.Path, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := d.Reuse("slot1_1.1", nil); err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(d.Path); !strings.HasPrefix(base, Prefix+"slot1_1.1_") {
		t.Fatalf("reused as %s", base)
	}
	if fi, err := os.Stat(d.Path); err != nil || fi.Mode().Perm() != 0o700 {
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

// TestParkRefused: a sandbox the job left anything else in is not parked,
// nor renamed.
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
			before := d.Path
			if err := d.Park(".job.ad", ".machine.ad"); err == nil {
				t.Fatal("parked")
			}
			if d.Path != before {
				t.Errorf("renamed to %s", d.Path)
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
