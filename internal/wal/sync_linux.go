package wal

import (
	"os"
	"syscall"
)

// fdatasync flushes the file's data, and its size only if it changed
// (appends within the written space leave it as it was).
func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
