package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
)

// A shell in a running job's sandbox, condor_ssh_to_job: the tool asks
// the schedd, which checks that the caller owns the job (or administers
// the pool) and that it runs, then asks the startd that runs it, with
// the job's claim, to start the shell or command as the job's user in
// its sandbox with its environment. Both requests are HTTP/1.1 upgrades
// (101 Switching Protocols to ShellProtocol); the connections then carry
// frames, which the schedd passes between the tool and the startd
// without reading them. The claim id and the startd's address never leave
// the schedd. docs/protocol/schedd.md and startd.md describe the
// endpoints.
const (
	// PathShell is POST at the schedd, upgraded: a shell or command in a
	// running job's sandbox (ShellRequest, then frames; WRITE, the job's
	// owner or an administrator).
	PathShell = "/v1/jobs/shell"
	// PathClaimShell is POST at the startd, upgraded: a shell or command
	// in the sandbox of the job a claim runs (ClaimShell, then frames;
	// DAEMON).
	PathClaimShell = "/v1/claims/shell"
	// ShellProtocol is the Upgrade header's protocol of both.
	ShellProtocol = "kite-shell/1"
)

// Limits of a shell request: a command line of at most MaxShellArgs
// words and MaxShellCommand bytes, a terminal name of at most 64 bytes,
// at most 16 shells to try.
const (
	MaxShellArgs    = 256
	MaxShellCommand = 64 << 10
	maxTermName     = 64
	maxShells       = 16
)

// ShellSpec is what to run: a command, or (none) the job's shell; with a
// terminal (TTY) of Rows × Cols named Term, or with pipes.
type ShellSpec struct {
	Command []string `json:"command,omitempty"`
	// Shells are the shells to try, in order (condor_ssh_to_job -shells):
	// the first the machine has runs; none: the job's SHELL, else /bin/sh.
	Shells []string `json:"shells,omitempty"`
	TTY    bool     `json:"tty,omitempty"`
	Term   string   `json:"term,omitempty"`
	Rows   uint16   `json:"rows,omitempty"`
	Cols   uint16   `json:"cols,omitempty"`
}

// Check refuses a spec over the limits or with a terminal name that is
// not a plain word.
func (s ShellSpec) Check() error {
	size := 0
	for _, a := range s.Command {
		size += len(a) + 1
	}
	switch {
	case len(s.Command) > MaxShellArgs:
		return fmt.Errorf("the command has %d words: at most %d", len(s.Command), MaxShellArgs)
	case size > MaxShellCommand:
		return fmt.Errorf("the command is %d bytes long: at most %d", size, MaxShellCommand)
	case len(s.Term) > maxTermName:
		return fmt.Errorf("terminal name longer than %d bytes", maxTermName)
	case strings.IndexFunc(s.Term, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' || r == '=' }) >= 0:
		return fmt.Errorf("terminal name %q: printable characters, no spaces", s.Term)
	case slicesHasNUL(s.Command):
		return errors.New("the command holds a NUL byte")
	case len(s.Shells) > maxShells:
		return fmt.Errorf("%d shells to try: at most %d", len(s.Shells), maxShells)
	}
	for _, sh := range s.Shells {
		if !strings.HasPrefix(sh, "/") || len(sh) > 1024 || strings.IndexByte(sh, 0) >= 0 {
			return fmt.Errorf("shell %q: give an absolute path", sh)
		}
	}
	return nil
}

func slicesHasNUL(words []string) bool {
	for _, w := range words {
		if strings.IndexByte(w, 0) >= 0 {
			return true
		}
	}
	return false
}

// ShellRequest asks a schedd for a shell in a running job's sandbox.
type ShellRequest struct {
	Job string `json:"job"` // cluster.proc
	ShellSpec
}

// ClaimShell asks a startd for a shell in the sandbox of the job a claim
// runs.
type ClaimShell struct {
	ClaimID string `json:"claim_id"`
	ShellSpec
}

// The frames of a shell session. Each is a type byte, a 4-byte
// big-endian length and that many bytes. The tool sends stdin, EOF and
// window sizes; the startd sends stdout, stderr, and last exit or error.
const (
	FrameStdin  byte = 'i' // bytes for the shell's input
	FrameEOF    byte = 'c' // the tool's input ended (no data)
	FrameResize byte = 'w' // the terminal's size: rows, cols (2 × uint16)
	FrameStdout byte = 'o' // the shell's output (or its terminal's)
	FrameStderr byte = 'e' // the shell's error output (pipes only)
	FrameExit   byte = 'x' // the shell ended: a ShellExit, as JSON
	FrameError  byte = '!' // the session failed: a message
)

// MaxFrameData bounds the data of one frame; control frames (resize,
// exit, error) are far smaller, each bounded by its own type.
const MaxFrameData = 32 << 10

// maxControl is the most bytes of each control frame.
var maxControl = map[byte]int{FrameEOF: 0, FrameResize: 4, FrameExit: 256, FrameError: 1024}

// ShellExit is how the shell or command ended.
type ShellExit struct {
	Code   int `json:"code"`             // its exit code
	Signal int `json:"signal,omitempty"` // the signal that killed it; 0: none
}

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, typ byte, data []byte) error {
	if len(data) > frameLimit(typ) {
		return fmt.Errorf("frame %q of %d bytes: at most %d", typ, len(data), frameLimit(typ))
	}
	var hdr [5]byte
	hdr[0] = typ
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(data)))
	if _, err := w.Write(append(hdr[:], data...)); err != nil {
		return err
	}
	return nil
}

// frameLimit is the most bytes a frame of type typ carries; -1 for a
// type that is no frame's.
func frameLimit(typ byte) int {
	if n, ok := maxControl[typ]; ok {
		return n
	}
	switch typ {
	case FrameStdin, FrameStdout, FrameStderr:
		return MaxFrameData
	}
	return -1
}

// ReadFrame reads one frame into buf (which must hold MaxFrameData
// bytes) and returns its type and data, a slice of buf. A type that is
// no frame's, or a length over the type's bound, is an error: the
// session ends rather than reads it.
func ReadFrame(r io.Reader, buf []byte) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	typ, n := hdr[0], binary.BigEndian.Uint32(hdr[1:])
	limit := frameLimit(typ)
	switch {
	case limit < 0:
		return 0, nil, fmt.Errorf("unknown frame type 0x%02x", typ)
	case n > uint32(limit):
		return 0, nil, fmt.Errorf("frame %q of %d bytes: at most %d", typ, n, limit)
	}
	data := buf[:n]
	if _, err := io.ReadFull(r, data); err != nil {
		return 0, nil, fmt.Errorf("frame %q cut off: %w", typ, err)
	}
	return typ, data, nil
}

// ResizeData is a resize frame's data.
func ResizeData(rows, cols uint16) []byte {
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, rows), cols)
}

// ParseResize reads a resize frame's data.
func ParseResize(data []byte) (rows, cols uint16, err error) {
	if len(data) != 4 {
		return 0, 0, fmt.Errorf("resize frame of %d bytes: want 4", len(data))
	}
	return binary.BigEndian.Uint16(data), binary.BigEndian.Uint16(data[2:]), nil
}

// ExitData is an exit frame's data.
func ExitData(e ShellExit) []byte {
	b, _ := json.Marshal(e) // two ints: cannot fail
	return b
}

// Upgrade sends in as JSON to path and, once the daemon switches the
// connection to protocol (101), returns the connection. A refusal is
// the *Error the daemon sent, as for Call. The connection lives until
// closed (or ctx is done).
func (cl *Client) Upgrade(ctx context.Context, path, protocol string, in any) (io.ReadWriteCloser, error) {
	body, err := encode(in)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", cl.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", protocol)
	resp, err := cl.send(req)
	if err != nil {
		return nil, err
	}
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if resp.StatusCode != http.StatusSwitchingProtocols || !ok || !strings.EqualFold(resp.Header.Get("Upgrade"), protocol) {
		resp.Body.Close()
		return nil, fmt.Errorf("POST %s: the daemon answered %s, not a switch to %s", path, resp.Status, protocol)
	}
	return rwc, nil
}

// Upgraded is the connection of a request a RawHandler switched to
// another protocol: reads come through the server's buffer; each write
// has StallTimeout to go through, so that a peer that stops reading is
// cut off rather than hold the daemon's goroutines.
type Upgraded struct {
	net.Conn
	r io.Reader
}

func (u *Upgraded) Read(p []byte) (int, error) { return u.r.Read(p) }

func (u *Upgraded) Write(p []byte) (int, error) {
	u.Conn.SetWriteDeadline(time.Now().Add(StallTimeout))
	return u.Conn.Write(p)
}

// WantsUpgrade refuses a request that does not ask to switch to
// protocol: a handler checks it before doing anything for the request.
func (r *Request) WantsUpgrade(protocol string) error {
	if !strings.EqualFold(r.HTTP.Header.Get("Upgrade"), protocol) || !headerHas(r.HTTP.Header, "Connection", "upgrade") {
		return BadRequest("this endpoint needs a connection upgraded to %s (Connection: Upgrade, Upgrade: %s)", protocol, protocol)
	}
	return nil
}

// headerHas reports whether a comma-separated header holds token.
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// Upgrade switches the connection of r, which asked for protocol, to
// it: it answers 101 and hands over the connection, with no deadlines.
// Before it, errors are answers as usual; after it, the caller owns the
// connection and closes it.
func (r *Request) Upgrade(w http.ResponseWriter, protocol string) (*Upgraded, error) {
	if err := r.WantsUpgrade(protocol); err != nil {
		return nil, err
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("upgrade to %s: %w", protocol, err)
	}
	conn.SetDeadline(time.Time{})
	hdr := "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + protocol + "\r\n\r\n"
	conn.SetWriteDeadline(time.Now().Add(StallTimeout))
	if _, err := io.WriteString(conn, hdr); err != nil {
		conn.Close()
		return nil, fmt.Errorf("upgrade to %s: %w", protocol, err)
	}
	var rd io.Reader = conn
	if n := brw.Reader.Buffered(); n > 0 {
		rd = io.MultiReader(io.LimitReader(brw.Reader, int64(n)), conn)
	}
	return &Upgraded{Conn: conn, r: rd}, nil
}

// FrameWriter writes whole frames from several goroutines.
type FrameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewFrameWriter returns a FrameWriter on w.
func NewFrameWriter(w io.Writer) *FrameWriter { return &FrameWriter{w: w} }

// Write writes one frame.
func (f *FrameWriter) Write(typ byte, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return WriteFrame(f.w, typ, data)
}

// ShellIO is the tool's side of a session: its input, outputs and the
// sizes its terminal takes.
type ShellIO struct {
	Stdin          io.Reader // nil: none
	Stdout, Stderr io.Writer
	Resize         <-chan [2]uint16 // rows, cols; nil: never resized
}

// RunShell carries a session over conn, the tool's side, until the
// shell ends, and returns how it ended; ctx done closes the session.
// conn is closed on return. A goroutine reading Stdin may outlive the
// call, blocked in its read.
func RunShell(ctx context.Context, conn io.ReadWriteCloser, o ShellIO) (ShellExit, error) {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	fw := NewFrameWriter(conn)
	done := make(chan struct{})
	defer close(done)
	go sendInput(fw, o.Stdin, done)
	if o.Resize != nil {
		go func() {
			for {
				select {
				case <-done:
					return
				case sz := <-o.Resize:
					if fw.Write(FrameResize, ResizeData(sz[0], sz[1])) != nil {
						return
					}
				}
			}
		}()
	}
	ex, err := readOutput(bufio.NewReaderSize(conn, 64<<10), o)
	if err != nil && ctx.Err() != nil {
		return ex, ctx.Err()
	}
	return ex, err
}

// sendInput sends in as stdin frames, then EOF, until done.
func sendInput(fw *FrameWriter, in io.Reader, done <-chan struct{}) {
	if in != nil {
		buf := make([]byte, MaxFrameData)
		for {
			n, err := in.Read(buf)
			if n > 0 && fw.Write(FrameStdin, buf[:n]) != nil {
				return
			}
			if err != nil {
				break
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}
	fw.Write(FrameEOF, nil)
}

// readOutput writes the shell's output frames to o until its exit frame.
func readOutput(r io.Reader, o ShellIO) (ShellExit, error) {
	buf := make([]byte, MaxFrameData)
	for {
		typ, data, err := ReadFrame(r, buf)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
			return ShellExit{}, errors.New("the session ended before the shell did (the job may have ended)")
		}
		if err != nil {
			return ShellExit{}, err
		}
		switch typ {
		case FrameStdout:
			_, err = o.Stdout.Write(data)
		case FrameStderr:
			_, err = o.Stderr.Write(data)
		case FrameExit:
			var ex ShellExit
			if err := json.Unmarshal(data, &ex); err != nil {
				return ShellExit{}, fmt.Errorf("bad exit frame: %w", err)
			}
			return ex, nil
		case FrameError:
			return ShellExit{}, errors.New(string(data))
		default:
			return ShellExit{}, fmt.Errorf("unexpected frame %q from the startd", typ)
		}
		if err != nil {
			return ShellExit{}, err
		}
	}
}
