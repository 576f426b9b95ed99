package resources

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Idle measures how long the machine's users have left it alone, as
// HTCondor does on Unix: KeyboardIdle is the time since any terminal (tty,
// pty, /dev/pts/*) or console device was used; ConsoleIdle only counts
// the console devices and the keyboard and mouse interrupts
// (/proc/interrupts), so it is never below KeyboardIdle.
type Idle struct {
	// DevDir holds the terminals: DevDir/tty*, DevDir/pty*, DevDir/pts/*.
	DevDir string
	// ConsoleDevices are device files whose access time is console use.
	ConsoleDevices []string
	// Interrupts is the kernel's interrupt counts ("" for none).
	Interrupts string
	// Since is the answer when nothing tells: the machine's boot.
	Since time.Time

	mu         sync.Mutex
	lastCount  uint64
	lastChange time.Time
}

// NewIdle returns an idle detector for this machine.
func NewIdle(consoleDevices []string) *Idle {
	return &Idle{DevDir: "/dev", ConsoleDevices: consoleDevices, Interrupts: "/proc/interrupts", Since: BootTime()}
}

// Sample returns the keyboard and console idle times at now, in seconds.
func (d *Idle) Sample(now time.Time) (keyboard, console int64) {
	console = -1
	for _, dev := range d.ConsoleDevices {
		if t, ok := deviceUsed(dev); ok {
			console = minIdle(console, secondsSince(now, t))
		}
	}
	if t, ok := d.interruptUse(now); ok {
		console = minIdle(console, secondsSince(now, t))
	}
	keyboard = console
	for _, dev := range d.terminals() {
		if t, ok := deviceUsed(dev); ok {
			keyboard = minIdle(keyboard, secondsSince(now, t))
		}
	}
	if keyboard < 0 {
		keyboard = secondsSince(now, d.Since)
	}
	if console < 0 {
		console = keyboard
	}
	return keyboard, console
}

// minIdle is the smaller of two idle times, -1 standing for unknown.
func minIdle(a, b int64) int64 {
	if a < 0 || b < a {
		return b
	}
	return a
}

func secondsSince(now, t time.Time) int64 {
	if s := int64(now.Sub(t) / time.Second); s > 0 {
		return s
	}
	return 0
}

// terminals lists the tty and pty devices.
func (d *Idle) terminals() []string {
	var out []string
	entries, _ := os.ReadDir(d.DevDir)
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "tty") || strings.HasPrefix(n, "pty") {
			out = append(out, filepath.Join(d.DevDir, n))
		}
	}
	pts, _ := os.ReadDir(filepath.Join(d.DevDir, "pts"))
	for _, e := range pts {
		if e.Name() != "ptmx" {
			out = append(out, filepath.Join(d.DevDir, "pts", e.Name()))
		}
	}
	return out
}

// interruptUse returns when the keyboard and mouse interrupt counts last
// changed, or false when the machine has no such interrupts.
func (d *Idle) interruptUse(now time.Time) (time.Time, bool) {
	if d.Interrupts == "" {
		return time.Time{}, false
	}
	f, err := os.Open(d.Interrupts)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	count, ok := inputInterrupts(f)
	if !ok {
		return time.Time{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lastChange.IsZero() {
		d.lastChange = d.Since
	} else if count != d.lastCount {
		d.lastChange = now
	}
	d.lastCount = count
	return d.lastChange, true
}

// inputInterrupts sums the counts of the keyboard and mouse lines of
// /proc/interrupts (the i8042 controller, or lines naming a keyboard or a
// mouse).
func inputInterrupts(r io.Reader) (uint64, bool) {
	var sum uint64
	found := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.ToLower(sc.Text())
		if !strings.Contains(line, "i8042") && !strings.Contains(line, "keyboard") && !strings.Contains(line, "mouse") {
			continue
		}
		found = true
		fields := strings.Fields(line)
		for _, f := range fields[1:] {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				break // the controller's name follows the counts
			}
			sum += n
		}
	}
	return sum, found
}
