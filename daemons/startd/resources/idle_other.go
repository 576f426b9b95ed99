//go:build !linux

package resources

import (
	"os"
	"time"
)

// deviceUsed returns a device file's last change: access times are not
// read portably.
func deviceUsed(path string) (time.Time, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// BootTime is unknown here: it returns the time of the call.
func BootTime() time.Time { return time.Now() }
