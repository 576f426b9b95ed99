package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// A claim's jobs may run one after another in one sandbox: a job that
// leaves nothing in its sandbox but the files the starter wrote for it (its
// ads) hands it on to the claim's next job (Park, then Reuse), which gets
// those files rewritten (WriteFile). Making a directory and files and
// removing them costs far more on most file systems than renaming a
// directory and rewriting a file in place; for short jobs that run in their
// submit directory it is most of the work of running them. The next job
// still finds a sandbox that holds only its own ads.

// SparePrefix begins the name of a parked sandbox: one between two jobs of
// a claim, which no job uses.
const SparePrefix = "spare_"

// Park readies the sandbox of a job that is over for the next job of its
// claim, if it holds nothing but the files named keep: it is renamed to a
// spare's name. Otherwise it returns why, and the sandbox is left as it
// was, to be removed.
func (d *Dir) Park(keep ...string) error {
	entries, err := d.TopLevel()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	for _, e := range entries {
		if !slices.Contains(keep, e.Name()) || !e.Type().IsRegular() {
			return fmt.Errorf("sandbox: the job left %s (%s) in it", e.Name(), e.Type())
		}
	}
	return d.rename(SparePrefix + suffix())
}

// Reuse makes a parked sandbox the sandbox of a new job, named after tag,
// for owner (nil: the startd); a sandbox parked for another owner is
// refused. Its mode is restored should the last job have changed it.
func (d *Dir) Reuse(tag string, owner *Owner) error {
	if !sameOwner(d.owner, owner) {
		return errors.New("sandbox: parked for another user")
	}
	fi, err := d.root.Stat(".")
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(d.Path, 0o700); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	return d.rename(Prefix + strings.Map(safeRune, tag) + "_" + suffix())
}

func sameOwner(a, b *Owner) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// rename gives the sandbox a new name in its directory.
func (d *Dir) rename(name string) error {
	p := filepath.Join(filepath.Dir(d.Path), name)
	if err := os.Rename(d.Path, p); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	d.Path = p
	return nil
}

// suffix makes a sandbox's name unique.
func suffix() string {
	var rnd [6]byte
	rand.Read(rnd[:])
	return hex.EncodeToString(rnd[:])
}

// WriteFile writes data to the sandbox file name for the job to read,
// given to the sandbox's owner with mode perm. A regular file already
// there with no other link (a reused sandbox's ad) is rewritten in place;
// anything else there is replaced.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := CheckName(name); err != nil { // a link there is replaced, not followed
		return err
	}
	f, err := d.rewritable(name, perm)
	if err != nil {
		if err := d.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return d.wrap(name, err)
		}
		if f, err = d.CreateFile(name, perm); err != nil {
			return err
		}
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return d.wrap(name, err)
	}
	return nil
}

// rewritable opens an existing file to rewrite it: a regular file with no
// other link, the owner's, with mode perm (restored if the job changed it).
func (d *Dir) rewritable(name string, perm fs.FileMode) (*os.File, error) {
	f, err := d.root.OpenFile(name, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		st, _ := fi.Sys().(*syscall.Stat_t)
		switch {
		case !fi.Mode().IsRegular() || st == nil || st.Nlink != 1:
			err = errors.New("not a file of its own")
		case d.owner != nil && int(st.Uid) != d.owner.UID:
			err = errors.New("not the owner's")
		case fi.Mode().Perm() != perm:
			err = f.Chmod(perm)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
