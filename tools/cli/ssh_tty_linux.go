package cli

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"

	"github.com/creack/pty"
)

// The local terminal of kite ssh_to_job: raw while the remote one runs,
// and its size sent along as it changes.

func termios(f *os.File, req uintptr, t *syscall.Termios) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(t))); errno != 0 {
		return errno
	}
	return nil
}

// ttyInput reports whether f is a terminal (TCGETS works on it; /dev/null,
// a character device too, is none).
func ttyInput(f *os.File) bool {
	var t syscall.Termios
	return termios(f, syscall.TCGETS, &t) == nil
}

// rawTerminal puts f in raw mode (each key goes through as typed, ^C
// included, for the remote terminal to handle) and returns how to undo it.
func rawTerminal(f *os.File) (func(), error) {
	var old syscall.Termios
	if err := termios(f, syscall.TCGETS, &old); err != nil {
		return nil, err
	}
	raw := old
	raw.Iflag &^= syscall.IGNBRK | syscall.BRKINT | syscall.PARMRK | syscall.ISTRIP | syscall.INLCR | syscall.IGNCR | syscall.ICRNL | syscall.IXON
	raw.Oflag &^= syscall.OPOST
	raw.Lflag &^= syscall.ECHO | syscall.ECHONL | syscall.ICANON | syscall.ISIG | syscall.IEXTEN
	raw.Cflag &^= syscall.CSIZE | syscall.PARENB
	raw.Cflag |= syscall.CS8
	raw.Cc[syscall.VMIN], raw.Cc[syscall.VTIME] = 1, 0
	if err := termios(f, syscall.TCSETS, &raw); err != nil {
		return nil, err
	}
	return func() { termios(f, syscall.TCSETS, &old) }, nil
}

// terminalSize is f's rows and columns (0, 0 if it will not say).
func terminalSize(f *os.File) (uint16, uint16) {
	ws, err := pty.GetsizeFull(f)
	if err != nil {
		return 0, 0
	}
	return ws.Rows, ws.Cols
}

// watchSize sends f's size each time the window changes, until stop.
func watchSize(f *os.File) (<-chan [2]uint16, func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	out := make(chan [2]uint16, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sig:
			}
			rows, cols := terminalSize(f)
			select {
			case out <- [2]uint16{rows, cols}:
			case <-done:
				return
			}
		}
	}()
	return out, func() { signal.Stop(sig); close(done) }
}
