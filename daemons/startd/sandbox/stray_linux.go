package sandbox

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"syscall"
)

// stray returns the first entry at the top of the sandbox, in the order
// TopLevel lists them, that is not a regular file named in keep; "" when
// there is none. Every claim's job's sandbox is checked so when it ends
// (Park): the directory entries are read into a buffer on the stack and
// compared there, with none of the allocations of a listing.
func (d *Dir) stray(keep []string) (name string, typ fs.FileMode, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.top == nil {
		return "", 0, fmt.Errorf("sandbox: %s was removed", d.Path)
	}
	fd := int(d.top.Fd())
	if _, err := syscall.Seek(fd, 0, 0); err != nil { // from the start again, as TopLevel
		return "", 0, err
	}
	var buf [4096]byte
	for {
		var n int
		if err := retryEINTR(func() (err error) { n, err = syscall.ReadDirent(fd, buf[:]); return err }); err != nil {
			return "", 0, err
		}
		if n <= 0 {
			return "", 0, nil
		}
		if name, typ, err := d.strayIn(buf[:n], keep); name != "" || err != nil {
			return name, typ, err
		}
	}
}

// strayIn looks through a buffer of linux_dirent64 records for a stray
// entry (stray).
func (d *Dir) strayIn(buf []byte, keep []string) (string, fs.FileMode, error) {
	const nameAt = 19 // d_ino 8, d_off 8, d_reclen 2, d_type 1
	for off := 0; off+nameAt <= len(buf); {
		reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
		if reclen < nameAt || off+reclen > len(buf) {
			return "", 0, fmt.Errorf("sandbox: a directory entry of %d bytes", reclen)
		}
		rec := buf[off : off+reclen]
		off += reclen
		name := rec[nameAt:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if string(name) == "." || string(name) == ".." {
			continue
		}
		typ, known := direntType(rec[18])
		if !known { // as os.ReadDir learns it
			fi, err := d.root.Lstat(string(name))
			if err != nil {
				return "", 0, err
			}
			typ = fi.Mode().Type()
		}
		if typ != 0 || !kept(name, keep) {
			return string(name), typ, nil
		}
	}
	return "", 0, nil
}

// kept reports whether name is one of keep.
func kept(name []byte, keep []string) bool {
	for _, k := range keep {
		if string(name) == k {
			return true
		}
	}
	return false
}

// direntType is the type of a file as a directory entry gives it, as
// os.DirEntry.Type gives it; false when the file system did not say.
func direntType(t byte) (fs.FileMode, bool) {
	switch t {
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	}
	return 0, false
}
