package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// kite ssh_to_job drives the local terminal: it finds one (a file or
// /dev/null is none), puts it in raw mode for the remote terminal and
// back, and sends its size as the window changes.
func TestLocalTerminal(t *testing.T) {
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no terminals here: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	file, _ := os.Create(filepath.Join(t.TempDir(), "f"))
	defer file.Close()
	if !ttyInput(tty) || ttyInput(devnull) || ttyInput(file) {
		t.Errorf("ttyInput: terminal %v, /dev/null %v, file %v", ttyInput(tty), ttyInput(devnull), ttyInput(file))
	}

	restore, err := rawTerminal(tty)
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Termios
	termios(tty, syscall.TCGETS, &st)
	if st.Lflag&(syscall.ECHO|syscall.ICANON|syscall.ISIG) != 0 || st.Oflag&syscall.OPOST != 0 {
		t.Errorf("raw mode keeps echo, lines or signals: lflag %#x oflag %#x", st.Lflag, st.Oflag)
	}
	restore()
	termios(tty, syscall.TCGETS, &st)
	if st.Lflag&(syscall.ECHO|syscall.ICANON) != syscall.ECHO|syscall.ICANON {
		t.Errorf("not restored: lflag %#x", st.Lflag)
	}

	pty.Setsize(master, &pty.Winsize{Rows: 30, Cols: 100})
	if rows, cols := terminalSize(tty); rows != 30 || cols != 100 {
		t.Errorf("size %d×%d, want 30×100", rows, cols)
	}
	sizes, stop := watchSize(tty)
	defer stop()
	pty.Setsize(master, &pty.Winsize{Rows: 40, Cols: 120})
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	if got := <-sizes; got != [2]uint16{40, 120} {
		t.Errorf("after SIGWINCH: %v, want [40 120]", got)
	}
}
