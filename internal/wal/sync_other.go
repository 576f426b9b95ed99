//go:build !linux

package wal

import "os"

// fdatasync flushes the file; where there is no fdatasync, with its
// metadata.
func fdatasync(f *os.File) error { return f.Sync() }
