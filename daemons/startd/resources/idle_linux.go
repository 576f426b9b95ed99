package resources

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// deviceUsed returns a device file's last access. Devices that share
// /dev/null's major number (memory devices) say nothing about users.
func deviceUsed(path string) (time.Time, bool) {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil || st.Atim.Sec == 0 {
		return time.Time{}, false
	}
	if major, ok := nullMajor(); ok && st.Mode&syscall.S_IFMT == syscall.S_IFCHR && devMajor(st.Rdev) == major {
		return time.Time{}, false
	}
	return time.Unix(st.Atim.Sec, st.Atim.Nsec), true
}

// nullMajor is /dev/null's major device number, when it is a device.
func nullMajor() (uint64, bool) {
	var st syscall.Stat_t
	if syscall.Stat("/dev/null", &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFCHR {
		return 0, false
	}
	return devMajor(st.Rdev), true
}

func devMajor(rdev uint64) uint64 { return (rdev>>8)&0xfff | (rdev>>32)&^0xfff }

// BootTime returns when the machine booted, from /proc/uptime.
func BootTime() time.Time {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Now()
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return time.Now()
	}
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return time.Now()
	}
	return time.Now().Add(-time.Duration(up * float64(time.Second)))
}
