package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A claim's jobs may run one after another in one sandbox: a job that
// leaves nothing in its sandbox but the files the starter wrote for it (its
// ads) hands it on to the claim's next job (Park, then Reuse), which gets
// those files rewritten (WriteFile). Making a directory and files and
// removing them costs far more on most file systems than renaming a
// directory, changing its mode and rewriting a file in place; for short
// jobs that run in their submit directory it is most of the work of
// running them. The next job still finds a sandbox that holds only its
// own ads.
//
// A parked sandbox keeps its name until the next job takes it; its mode
// says that no job uses it (ParkedMode), and it belongs to the startd
// meanwhile, so that nothing the job's user still runs can put files in
// it. A startd that starts again tells parked sandboxes (Parked) from
// those of jobs it lost.

// SparePrefix began the name of a parked sandbox in earlier versions,
// which renamed it when parked; a startd still removes such sandboxes
// left behind.
const SparePrefix = "spare_"

// ParkedMode is the mode of a parked sandbox: the sticky bit, which no
// sandbox in use has, marks it.
const ParkedMode = fs.ModeSticky | 0o700

// Park readies the sandbox of a job that is over for the next job of its
// claim, if it holds nothing but the files named keep: it is marked parked
// (ParkedMode, the startd's). Otherwise it returns why, and the sandbox is
// left as it was, to be removed.
func (d *Dir) Park(keep ...string) error {
	name, typ, err := d.stray(keep)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if name != "" {
		return fmt.Errorf("sandbox: the job left %s (%s) in it", name, typ)
	}
	if d.owner != nil { // first: its user may no longer change the mode
		if err := d.chown(os.Getuid(), os.Getgid()); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := d.chmod(ParkedMode); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}

// chown gives the sandbox directory to uid and gid: through the directory
// kept open, which saves looking its path up, else by its path.
func (d *Dir) chown(uid, gid int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.top == nil {
		return os.Lchown(d.Path, uid, gid)
	}
	return d.top.Chown(uid, gid)
}

// chmod sets the sandbox directory's mode as chown reaches it.
func (d *Dir) chmod(mode fs.FileMode) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.top == nil {
		return os.Chmod(d.Path, mode)
	}
	return d.top.Chmod(mode)
}

// Parked reports whether the sandbox directory fi describes is parked: no
// job uses it. A job's user may set the sticky bit of its sandbox but not
// give it to the startd, unless the job runs as the startd's user.
func Parked(fi fs.FileInfo) bool {
	if !fi.IsDir() || fi.Mode()&(fs.ModeSticky|fs.ModePerm) != ParkedMode {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}

// Reuse makes a parked sandbox the sandbox of a new job, named after tag
// as Create names one, for owner (nil: the startd); a sandbox parked for
// another owner is refused. It gets its owner and mode back, once renamed:
// a startd that starts again takes it for a spare until then.
func (d *Dir) Reuse(tag string, owner *Owner) error {
	if !sameOwner(d.owner, owner) {
		return errors.New("sandbox: parked for another user")
	}
	p := filepath.Join(filepath.Dir(d.Path), sandboxName(tag))
	if err := renameNew(d.Path, p); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	d.Path = p
	if err := d.chmod(0o700); err != nil { // before the chown: the startd's still
		return fmt.Errorf("sandbox: %w", err)
	}
	if owner != nil {
		if err := d.chown(owner.UID, owner.GID); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	return nil
}

func sameOwner(a, b *Owner) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// WriteFile writes data to the sandbox file name for the job to read,
// given to the sandbox's owner with mode perm. A regular file already
// there with no other link (a reused sandbox's ad) is rewritten in place;
// anything else there is replaced.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := CheckName(name); err != nil { // a link there is replaced, not followed
		return err
	}
	if done, err := d.rewrite(name, data, perm); done {
		return err
	}
	f, size, err := d.rewritable(name, perm)
	if err != nil {
		if err := d.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return d.wrap(name, err)
		}
		if f, err = d.CreateFile(name, perm); err != nil {
			return err
		}
		size = 0
	}
	_, err = f.WriteAt(data, 0)
	if err == nil && size > int64(len(data)) { // what is left of a longer text goes
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

// rewrite rewrites a file at the top of the sandbox in place as WriteFile
// does, with system calls alone: no os.File, which costs more than the
// writing of an ad, and ads are rewritten for every job. It reports false,
// having changed nothing, when the file is not one to rewrite in place
// (missing, a link, linked elsewhere, another's) or name is not at the top.
func (d *Dir) rewrite(name string, data []byte, perm fs.FileMode) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.top == nil || strings.ContainsRune(name, '/') {
		return false, nil
	}
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = syscall.Openat(int(d.top.Fd()), name, syscall.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return false, nil
	}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Nlink != 1 ||
		d.owner != nil && int(st.Uid) != d.owner.UID {
		syscall.Close(fd)
		return false, nil
	}
	if fs.FileMode(st.Mode).Perm() != perm.Perm() {
		err = syscall.Fchmod(fd, uint32(perm.Perm()))
	}
	for off := 0; err == nil && off < len(data); {
		var n int
		err = retryEINTR(func() (err error) {
			n, err = syscall.Pwrite(fd, data[off:], int64(off))
			return err
		})
		off += n
	}
	if err == nil && st.Size > int64(len(data)) { // what is left of a longer text goes
		err = syscall.Ftruncate(fd, int64(len(data)))
	}
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return true, d.wrap(name, err)
	}
	return true, nil
}

// retryEINTR calls f again while a signal interrupts it.
func retryEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}

// rewritable opens an existing file to rewrite it: a regular file with no
// other link, the owner's, with mode perm (restored if the job changed it).
// It returns the file's size.
func (d *Dir) rewritable(name string, perm fs.FileMode) (*os.File, int64, error) {
	f, err := d.root.OpenFile(name, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
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
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
