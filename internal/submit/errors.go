package submit

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kite-sched/kite/internal/errlist"
)

// Error is a problem in a submit description, at the line (and, when a
// ClassAd expression inside fails to parse, the column) it was found.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem has no line
	Col  int // 1-based byte column; 0 when unknown
	Msg  string
}

// Error returns "file:line:col: msg", leaving out the parts that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is the errors Parse found, in file order.
type ErrorList = errlist.List[*Error]

// maxErrors bounds how many errors Parse reports.
const maxErrors = 10

// Warning is a questionable but accepted line, such as a command Kite does
// not know. Warnings are returned, never printed.
type Warning struct {
	File string
	Line int
	Msg  string
}

// String returns "file:line: msg".
func (w Warning) String() string {
	if w.Line == 0 {
		return w.File + ": " + w.Msg
	}
	return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
}

// pos is where a value starts in a submit file (the file itself, or one
// it includes). A value continued over several lines keeps one pos per
// physical piece, so that a column inside the joined value can be mapped
// back to the file.
type pos struct {
	File      string // empty in pieces: the span's file applies
	Line, Col int
}

// span maps offsets in a logical (joined) value back to file positions.
type span struct {
	file   string // the file the value was written in
	pieces []piece
}

// piece is a run of a logical value that came from one physical line.
type piece struct {
	off int // offset in the logical value where the piece starts
	at  pos // position in the file of that offset
}

// at returns the file position of byte off of the logical value.
func (s span) at(off int) pos {
	if len(s.pieces) == 0 {
		return pos{File: s.file}
	}
	p := s.pieces[0]
	for _, q := range s.pieces[1:] {
		if q.off > off {
			break
		}
		p = q
	}
	return pos{File: s.file, Line: p.at.Line, Col: p.at.Col + off - p.off}
}

// line returns the line the value starts on.
func (s span) line() int { return s.at(0).Line }

// where returns the file and line the value starts on, without a column.
func (s span) where() pos {
	p := s.at(0)
	p.Col = 0
	return p
}

// from returns the span of the text that starts at byte off of this one.
func (s span) from(off int) span {
	out := span{file: s.file, pieces: []piece{{off: 0, at: s.at(off)}}}
	for _, p := range s.pieces {
		if p.off > off {
			out.pieces = append(out.pieces, piece{off: p.off - off, at: p.at})
		}
	}
	return out
}

// checkUTF8 refuses text that is not UTF-8, naming the file, line and
// column of the first bad byte: the ads a submit sends are JSON, which is
// UTF-8, and the schedd refuses anything else.
func checkUTF8(file string, data []byte) *Error {
	if utf8.Valid(data) {
		return nil
	}
	i := 0
	for i < len(data) {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	col := i - (bytes.LastIndexByte(data[:i], '\n') + 1) + 1
	return &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("byte 0x%02x is not valid UTF-8 (submit files are UTF-8 text)", data[i])}
}
