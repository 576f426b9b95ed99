package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// strayOf is what stray finds, by TopLevel's listing: the first entry
// that is not a regular file named in keep.
func strayOf(t *testing.T, d *Dir, keep []string) (string, fs.FileMode) {
	t.Helper()
	entries, err := d.TopLevel()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type() != 0 || !strings.Contains(" "+strings.Join(keep, " ")+" ", " "+e.Name()+" ") {
			return e.Name(), e.Type()
		}
	}
	return "", 0
}

// A sandbox is parked only when the job left nothing in it but its ads
// (Park): stray finds what else is there as a listing of the sandbox
// does, whatever it is and however many entries there are.
func TestStray(t *testing.T) {
	ads := []string{".job.ad", ".machine.ad"}
	many := append([]string(nil), ads...) // ads and 300 files: some 20 KiB of entries, several reads
	for i := range 300 {
		many = append(many, fmt.Sprintf("%s%03d", strings.Repeat("n", 40), i))
	}
	files := func(names []string) func(dir string) error {
		return func(dir string) error {
			for _, n := range names {
				if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	file := func(name string) func(dir string) error {
		return func(dir string) error { return os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644) }
	}
	tests := []struct {
		name  string
		keep  []string // the ads when nil
		leave []func(dir string) error
		want  string // the stray's name, "" for none
	}{
		{"nothing", nil, nil, ""},
		{"the ads", nil, []func(string) error{file(".job.ad"), file(".machine.ad")}, ""},
		{"a file besides", nil, []func(string) error{file(".job.ad"), file("out.txt")}, "out.txt"},
		{"a name that begins like an ad's", nil, []func(string) error{file(".job.ad.old")}, ".job.ad.old"},
		{"a directory named like an ad", nil, []func(string) error{func(dir string) error { return os.Mkdir(filepath.Join(dir, ".job.ad"), 0o755) }}, ".job.ad"},
		{"a link named like an ad", nil, []func(string) error{func(dir string) error {
			return os.Symlink("/etc/passwd", filepath.Join(dir, ".machine.ad"))
		}}, ".machine.ad"},
		{"a pipe", nil, []func(string) error{func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600) }}, "fifo"},
		{"entries past one read of the directory", many, []func(string) error{files(many)}, ""},
		{"a stray among them", many, []func(string) error{files(many), file("stray")}, "stray"},
		{"many strays", nil, []func(string) error{files(many)}, "(any of the 300)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keep := tc.keep
			if keep == nil {
				keep = ads
			}
			d := newDir(t)
			for _, leave := range tc.leave {
				if err := leave(d.Path); err != nil {
					t.Fatal(err)
				}
			}
			for range 2 { // the directory read again from its start
				name, typ, err := d.stray(keep)
				if err != nil {
					t.Fatal(err)
				}
				wantName, wantType := strayOf(t, d, keep)
				if name != wantName || typ != wantType {
					t.Errorf("stray %q (%v), a listing finds %q (%v)", name, typ, wantName, wantType)
				}
				if (name == "") != (tc.want == "") || !strings.HasPrefix(tc.want, "(") && name != tc.want {
					t.Errorf("stray %q, want %q", name, tc.want)
				}
			}
		})
	}
	d := newDir(t)
	d.Remove()
	if _, _, err := d.stray(ads); err == nil {
		t.Error("a removed sandbox has no stray and no error")
	}
}
