//go:build !linux

package sandbox

import (
	"io/fs"
	"slices"
)

// stray returns the first entry at the top of the sandbox that is not a
// regular file named in keep; "" when there is none.
func (d *Dir) stray(keep []string) (string, fs.FileMode, error) {
	entries, err := d.TopLevel()
	if err != nil {
		return "", 0, err
	}
	for _, e := range entries {
		if !slices.Contains(keep, e.Name()) || !e.Type().IsRegular() {
			return e.Name(), e.Type(), nil
		}
	}
	return "", 0, nil
}
