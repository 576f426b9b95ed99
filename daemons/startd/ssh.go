package startd

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/wire"
)

// handleClaimShell starts a shell or command in the sandbox of the job a
// claim runs, for its schedd (condor_ssh_to_job), and carries the
// session's frames over the upgraded connection until the shell ends:
// the schedd has checked who asks; the claim's secret proves that the
// schedd runs the job here; the starter runs the shell as the job's user.
func (s *Server) handleClaimShell(w http.ResponseWriter, r *wire.Request) error {
	if err := r.WantsUpgrade(wire.ShellProtocol); err != nil {
		return err
	}
	var req wire.ClaimShell
	if err := r.Decode(&req); err != nil {
		return err
	}
	if err := req.Check(); err != nil {
		return wire.BadRequest("shell: %v", err)
	}
	run, err := s.claimedRun(req.ClaimID, "shell")
	if err != nil {
		return err
	}
	sh, err := run.Shell(req.ShellSpec)
	switch {
	case errors.Is(err, starter.ErrShellsFull):
		return wire.Unavailable("shell: %v", err)
	case err != nil:
		return wire.Conflict("shell: %v", err)
	}
	defer sh.Close()
	conn, err := r.Upgrade(w, wire.ShellProtocol)
	if err != nil {
		s.log.Warn("shell session not started", "err", err)
		return nil // the answer may be half written: nothing more to say
	}
	defer conn.Close()
	serveShell(conn, sh)
	return nil
}

// serveShell carries one session: the tool's input, resizes and end of
// input go to the shell; its outputs come back as frames, then how it
// ended. A tool that goes away, or sends a frame it may not, kills the
// shell.
func serveShell(conn io.ReadWriteCloser, sh *starter.Shell) {
	fw := wire.NewFrameWriter(conn)
	go func() {
		if err := shellInput(bufio.NewReaderSize(conn, 64<<10), sh); err != nil {
			fw.Write(wire.FrameError, []byte(truncate("shell input: "+err.Error(), 1000)))
		}
		sh.Close() // the tool is gone, or broke the protocol
		conn.Close()
	}()
	var wg sync.WaitGroup
	copyOut := func(r io.Reader, typ byte) {
		defer wg.Done()
		buf := make([]byte, wire.MaxFrameData)
		for {
			n, err := r.Read(buf)
			if n > 0 && fw.Write(typ, buf[:n]) != nil {
				sh.Close() // the tool stopped reading (or left): the shell ends
				return
			}
			if err != nil {
				return
			}
		}
	}
	wg.Add(1)
	go copyOut(sh.Output(), wire.FrameStdout)
	if e := sh.Errors(); e != nil {
		wg.Add(1)
		go copyOut(e, wire.FrameStderr)
	}
	wg.Wait()
	<-sh.Exited()
	ex, ended := sh.Result()
	if ended != "" {
		fw.Write(wire.FrameError, []byte(ended))
		return
	}
	fw.Write(wire.FrameExit, wire.ExitData(ex))
}

// shellInput applies the tool's frames to the shell until the tool
// closes the connection.
func shellInput(r io.Reader, sh *starter.Shell) error {
	buf := make([]byte, wire.MaxFrameData)
	inputClosed := false // the shell closed its input: the rest is dropped
	for {
		typ, data, err := wire.ReadFrame(r, buf)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		switch typ {
		case wire.FrameStdin:
			if !inputClosed {
				_, err := sh.Write(data)
				inputClosed = err != nil
			}
		case wire.FrameEOF:
			sh.CloseInput()
		case wire.FrameResize:
			rows, cols, err := wire.ParseResize(data)
			if err != nil {
				return err
			}
			sh.Resize(rows, cols)
		default:
			return errors.New("the tool sent a frame only the startd sends")
		}
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
