//go:build !linux

package sandbox

import "os"

// renameNew renames a sandbox to a new name (os.Rename).
func renameNew(from, to string) error { return os.Rename(from, to) }
