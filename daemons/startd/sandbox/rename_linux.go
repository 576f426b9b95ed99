package sandbox

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNew renames a sandbox to a new name, as os.Rename does, refusing
// a name already taken. The kernel refuses it (RENAME_NOREPLACE): no
// look-up of the new name first, as os.Rename makes. A file system
// without that flag gets os.Rename.
func renameNew(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return os.Rename(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
