// Package sandbox keeps a job's files inside its directory. A job's
// sandbox is a fresh directory under the startd's execute directory; the
// startd reaches files in it only through an os.Root, so that neither a
// name from the job ad (absolute, with "..") nor a symbolic link the job
// made can lead it outside, and every refusal names the file.
//
// The job may run as another user than the startd: files the startd
// creates for it are given to that user (Owner).
package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Owner is the account a sandbox's files belong to.
type Owner struct {
	UID, GID int
}

// EscapeError refuses a file name that would leave the sandbox.
type EscapeError struct {
	Name   string // as the job ad gives it
	Reason string
}

// Error names the file and why it is refused.
func (e *EscapeError) Error() string { return fmt.Sprintf("file %q: %s", e.Name, e.Reason) }

// Dir is one job's sandbox.
type Dir struct {
	// Path is the sandbox's directory.
	Path  string
	root  *os.Root
	owner *Owner

	mu  sync.Mutex
	top *os.File // the directory, open for TopLevel
}

// Prefix begins the name of every sandbox in the execute directory.
const Prefix = "dir_"

// Create makes a new sandbox in executeDir, named after tag (a slot or
// job name) and a random suffix, readable only by owner (nil: the startd).
func Create(executeDir, tag string, owner *Owner) (*Dir, error) {
	p := filepath.Join(executeDir, sandboxName(tag))
	if err := os.Mkdir(p, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	d := &Dir{Path: p, owner: owner}
	if owner != nil {
		if err := os.Lchown(p, owner.UID, owner.GID); err != nil {
			os.Remove(p)
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	root, err := os.OpenRoot(p)
	if err != nil {
		os.Remove(p)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	d.root = root
	// Open for listing before any job can change it; not through the
	// root, whose listings stat every entry.
	if d.top, err = os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0); err != nil {
		d.Remove()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return d, nil
}

// sandboxName is a new name for a sandbox: tag and a random suffix.
func sandboxName(tag string) string {
	var rnd [6]byte
	rand.Read(rnd[:])
	var suffix [2 * len(rnd)]byte
	hex.Encode(suffix[:], rnd[:])
	var b strings.Builder // one allocation: a sandbox is named for every job
	b.Grow(len(Prefix) + len(tag) + 1 + len(suffix))
	b.WriteString(Prefix)
	for _, r := range tag {
		b.WriteRune(safeRune(r))
	}
	b.WriteByte('_')
	b.Write(suffix[:])
	return b.String()
}

// safeRune keeps letters, digits and ._- of a tag.
func safeRune(r rune) rune {
	if r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
		return r
	}
	return '_'
}

// Remove deletes the sandbox and everything in it; links are removed,
// never followed.
func (d *Dir) Remove() error {
	d.mu.Lock()
	if d.top != nil {
		d.top.Close()
		d.top = nil
	}
	d.mu.Unlock()
	d.root.Close()
	return os.RemoveAll(d.Path)
}

// CheckName refuses a name from a job ad that could not stay inside a
// sandbox: empty, absolute, or with a ".." component.
func CheckName(name string) error {
	switch {
	case name == "" || strings.TrimSpace(name) == "":
		return &EscapeError{name, "an empty file name"}
	case strings.ContainsRune(name, 0):
		return &EscapeError{name, "a file name with a NUL byte"}
	case path.IsAbs(name) || filepath.IsAbs(name):
		return &EscapeError{name, "an absolute path leaves the sandbox"}
	}
	for _, part := range strings.Split(filepath.ToSlash(name), "/") {
		if part == ".." {
			return &EscapeError{name, `".." leaves the sandbox`}
		}
	}
	if c := path.Clean(filepath.ToSlash(name)); c == "." {
		return &EscapeError{name, "names the sandbox itself, not a file in it"}
	}
	return nil
}

// CreateFile creates (or truncates) a regular file for the job to read,
// given to the sandbox's owner.
func (d *Dir) CreateFile(name string, perm fs.FileMode) (*os.File, error) {
	if err := d.check(name); err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return nil, d.wrap(name, err)
	}
	if d.owner != nil {
		if err := f.Chown(d.owner.UID, d.owner.GID); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// Open opens a regular file of the sandbox for reading. Links are
// followed only while they stay inside; directories, devices and pipes
// are refused, and so are files the sandbox's owner does not own.
func (d *Dir) Open(name string) (*os.File, error) {
	if err := d.check(name); err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, d.wrap(name, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = d.readable(name, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readable refuses what the job should not hand back: anything but a
// regular file, and, when the job runs as its own user, a file that user
// does not own (a hard link to someone else's file).
func (d *Dir) readable(name string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &EscapeError{name, fmt.Sprintf("is not a regular file (%s)", fi.Mode().Type())}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if d.owner != nil && ok && int(st.Uid) != d.owner.UID {
		return &EscapeError{name, fmt.Sprintf("belongs to uid %d, not to the job's user (uid %d)", st.Uid, d.owner.UID)}
	}
	return nil
}

// Files lists the files name stands for: itself, or for a directory every
// file below it, in order. Links below a directory are listed, not
// followed: opening them checks where they lead.
func (d *Dir) Files(name string) ([]string, error) {
	if err := d.check(name); err != nil {
		return nil, err
	}
	fi, err := d.root.Stat(name)
	if err != nil {
		return nil, d.wrap(name, err)
	}
	if !fi.IsDir() {
		return []string{name}, nil
	}
	return d.walk(path.Clean(filepath.ToSlash(name)))
}

// walk lists the files below directory dir.
func (d *Dir) walk(dir string) ([]string, error) {
	f, err := d.root.Open(dir)
	if err != nil {
		return nil, d.wrap(dir, err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, d.wrap(dir, err)
	}
	var out []string
	for _, e := range entries {
		child := path.Join(dir, e.Name())
		if !e.IsDir() {
			out = append(out, child)
			continue
		}
		below, err := d.walk(child)
		if err != nil {
			return nil, err
		}
		out = append(out, below...)
	}
	return out, nil
}

// TopLevel returns the entries at the top of the sandbox. The directory
// stays open from one listing to the next: a sandbox a claim's jobs share
// is listed at the end of each.
func (d *Dir) TopLevel() ([]fs.DirEntry, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.top == nil {
		return nil, fmt.Errorf("sandbox: %s was removed", d.Path)
	}
	if _, err := d.top.Seek(0, io.SeekStart); err != nil { // from the start again
		return nil, err
	}
	return d.top.ReadDir(-1)
}

// check refuses bad names and links that lead out, with a clear reason.
func (d *Dir) check(name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return d.followLinks(name, name, 0)
}

// followLinks resolves the links along p inside the sandbox, refusing
// one that points out. orig is the name as given, for errors.
func (d *Dir) followLinks(orig, p string, depth int) error {
	if depth > 40 {
		return &EscapeError{orig, "too many levels of symbolic links"}
	}
	parts := strings.Split(path.Clean(filepath.ToSlash(p)), "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		fi, err := d.root.Lstat(prefix)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue // missing parts are created or reported later
		}
		target, err := d.root.Readlink(prefix)
		if err != nil {
			return d.wrap(orig, err)
		}
		if path.IsAbs(target) {
			return &EscapeError{orig, fmt.Sprintf("%s is a symbolic link to %s, outside the sandbox", prefix, target)}
		}
		next := path.Join(path.Dir(prefix), target)
		if next == ".." || strings.HasPrefix(next, "../") {
			return &EscapeError{orig, fmt.Sprintf("%s is a symbolic link to %s, outside the sandbox", prefix, target)}
		}
		rest := append([]string{next}, parts[i+1:]...)
		return d.followLinks(orig, strings.Join(rest, "/"), depth+1)
	}
	return nil
}

// wrap names the file in an error of the os.Root.
func (d *Dir) wrap(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if strings.Contains(err.Error(), "escapes") {
		return &EscapeError{name, "leads outside the sandbox"}
	}
	return fmt.Errorf("file %q: %w", name, err)
}

// CheckReachable reports whether a user can reach dir: every directory
// from the root down must let uid (or gid) search it. A job's user must
// reach its sandbox under the execute directory.
func CheckReachable(dir string, uid, gid int) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !searchable(fi, uid, gid) {
			return fmt.Errorf("%s (mode %s) does not let uid %d reach %s", p, fi.Mode().Perm(), uid, abs)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// searchable reports whether uid or gid may search a directory.
func searchable(fi fs.FileInfo, uid, gid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || uid == 0 {
		return true
	}
	perm := fi.Mode().Perm()
	switch {
	case int(st.Uid) == uid:
		return perm&0o100 != 0
	case int(st.Gid) == gid:
		return perm&0o010 != 0
	}
	return perm&0o001 != 0
}
