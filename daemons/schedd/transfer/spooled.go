package transfer

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/kite-sched/kite/daemons/schedd/queue"
)

// Spooled jobs' directories (condor_submit -spool) are under Files.Spool,
// in the schedd's state, which the jobs' owners cannot reach by path. So
// a file there is opened relative to Spool, opened by the schedd (an
// os.Root: nothing outside it is reached), and the rest of its path as
// the owner: the kernel still checks each step as the owner's. Files
// elsewhere are opened by path, as the owner.

// inSpool returns path relative to Spool, if it is under it.
func (f *Files) inSpool(path string) (string, bool) {
	if f.Spool == "" {
		return "", false
	}
	rel, err := filepath.Rel(f.Spool, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// AsOwner runs byPath(path) as the job's owner, or, for a path under
// Spool, inRoot(root, rel) as the owner with root the spool directory
// opened by the schedd and rel the path in it.
func (f *Files) AsOwner(v *queue.View, path string, byPath func(string) error, inRoot func(*os.Root, string) error) error {
	rel, ok := f.inSpool(path)
	if !ok {
		return f.asOwner(v, func() error { return byPath(path) })
	}
	root, err := os.OpenRoot(f.Spool)
	if err != nil {
		return err
	}
	defer root.Close()
	return f.asOwner(v, func() error { return inRoot(root, rel) })
}

// OpenFile opens a job's file as its owner.
func (f *Files) OpenFile(v *queue.View, path string, flag int, perm fs.FileMode) (*os.File, error) {
	var file *os.File
	err := f.AsOwner(v, path,
		func(p string) (err error) { file, err = os.OpenFile(p, flag, perm); return err },
		func(r *os.Root, rel string) (err error) { file, err = r.OpenFile(rel, flag, perm); return err })
	return file, err
}

// MkdirAll makes a directory of a job's files, and those above it, as
// its owner.
func (f *Files) MkdirAll(v *queue.View, dir string, perm fs.FileMode) error {
	return f.AsOwner(v, dir,
		func(p string) error { return os.MkdirAll(p, perm) },
		func(r *os.Root, rel string) error { return r.MkdirAll(rel, perm) })
}

// CreateTemp creates a new file beside path, named from its base name,
// as the job's owner; it returns the file and its path.
func (f *Files) CreateTemp(v *queue.View, path string) (*os.File, string, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		name := filepath.Join(dir, "."+base+".kite-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		file, err := f.OpenFile(v, name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if !os.IsExist(err) {
			return file, name, err
		}
	}
	return nil, "", fmt.Errorf("no free temporary name beside %s", path)
}

// Rename renames a job's file as its owner (from and to are in one
// directory).
func (f *Files) Rename(v *queue.View, from, to string) error {
	return f.AsOwner(v, from,
		func(p string) error { return os.Rename(p, to) },
		func(r *os.Root, rel string) error {
			relTo, ok := f.inSpool(to)
			if !ok {
				return fmt.Errorf("renaming %s: %s is not in the spool", from, to)
			}
			return r.Rename(rel, relTo)
		})
}

// Remove removes a job's file as its owner.
func (f *Files) Remove(v *queue.View, path string) error {
	return f.AsOwner(v, path,
		func(p string) error { return os.Remove(p) },
		func(r *os.Root, rel string) error { return r.Remove(rel) })
}
