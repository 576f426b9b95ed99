package wire

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// The frames of a shell session are bounded by type: a peer cannot make
// the other side buffer more than MaxFrameData, nor send a control frame
// of more than its few bytes, nor a type no frame has.
func TestReadFrameBounds(t *testing.T) {
	frame := func(typ byte, n uint32, data string) []byte {
		b := append([]byte{typ}, binary.BigEndian.AppendUint32(nil, n)...)
		return append(b, data...)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		err  string // "" reads the frame
	}{
		{"stdin", frame(FrameStdin, 2, "ls"), ""},
		{"resize", frame(FrameResize, 4, "\x00\x18\x00\x50"), ""},
		{"eof", frame(FrameEOF, 0, ""), ""},
		{"unknown type", frame('z', 0, ""), "unknown frame type 0x7a"},
		{"data over the bound", frame(FrameStdout, MaxFrameData+1, ""), "at most 32768"},
		{"resize too long", frame(FrameResize, 5, "12345"), "at most 4"},
		{"eof with data", frame(FrameEOF, 1, "x"), "at most 0"},
		{"huge exit", frame(FrameExit, 1<<31, ""), "at most 256"},
		{"cut off", frame(FrameStdin, 10, "abc"), "cut off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := make([]byte, MaxFrameData)
			_, _, err := ReadFrame(bytes.NewReader(tc.in), buf)
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

// What WriteFrame writes, ReadFrame reads; WriteFrame refuses what
// ReadFrame would.
func TestFrameRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFrame(&b, FrameResize, ResizeData(24, 80)); err != nil {
		t.Fatal(err)
	}
	if err := WriteFrame(&b, FrameExit, ExitData(ShellExit{Code: 3})); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, MaxFrameData)
	typ, data, err := ReadFrame(&b, buf)
	rows, cols, perr := ParseResize(data)
	if err != nil || perr != nil || typ != FrameResize || rows != 24 || cols != 80 {
		t.Errorf("resize: %q %d×%d %v %v", typ, rows, cols, err, perr)
	}
	if typ, data, err = ReadFrame(&b, buf); err != nil || typ != FrameExit || string(data) != `{"code":3}` {
		t.Errorf("exit: %q %s %v", typ, data, err)
	}
	if err := WriteFrame(&b, FrameStdout, make([]byte, MaxFrameData+1)); err == nil {
		t.Error("an oversized frame was written")
	}
}

// A shell request is bounded: its command, its terminal's name, the
// shells it names.
func TestShellSpecCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec ShellSpec
		err  string
	}{
		{"a shell", ShellSpec{TTY: true, Term: "xterm-256color", Rows: 24, Cols: 80}, ""},
		{"a command", ShellSpec{Command: []string{"ls", "-l"}, Shells: []string{"/bin/bash"}}, ""},
		{"too many words", ShellSpec{Command: make([]string, MaxShellArgs+1)}, "at most 256"},
		{"too long", ShellSpec{Command: []string{strings.Repeat("x", MaxShellCommand)}}, "bytes long"},
		{"a NUL", ShellSpec{Command: []string{"a\x00b"}}, "NUL"},
		{"a term with a space", ShellSpec{Term: "x term"}, "no spaces"},
		{"a relative shell", ShellSpec{Shells: []string{"bash"}}, "absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Check()
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}
