package dag

import (
	"strings"
)

// A DAG file is read as logical lines: a physical line that ends in a
// backslash goes on with the next one (the backslash and the line break
// are dropped). Each logical line keeps where its physical pieces start,
// so that a column in the joined text maps back to the file.

// piece is where a physical line's part of a logical line starts.
type piece struct {
	off  int // in the logical text
	line int // physical line, 1-based
	col  int // 1-based column of off in that line
}

// logical is one logical line.
type logical struct {
	text string
	file string
	line int // the physical line it starts on
	// pieces are where each physical line starts, for a continued line;
	// nil for a line of one piece.
	pieces []piece
}

// pos returns the file position of a byte offset in the logical text.
func (l *logical) pos(off int) Pos {
	if len(l.pieces) == 0 {
		return Pos{File: l.file, Line: l.line, Col: 1 + off}
	}
	p := l.pieces[0]
	for _, q := range l.pieces[1:] {
		if q.off > off {
			break
		}
		p = q
	}
	return Pos{File: l.file, Line: p.line, Col: p.col + off - p.off}
}

// token is a word of a logical line.
type token struct {
	text string
	off  int
}

// fields splits a logical line at spaces and tabs, appending to buf.
func (l *logical) fields(buf []token) []token {
	out := buf[:0]
	s := l.text
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		start := i
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' {
			i++
		}
		if i > start {
			out = append(out, token{s[start:i], start})
		}
	}
	return out
}

// lines reads the physical lines of one file: those between line breaks
// ("\n" or "\r\n"), the text after the last one included.
type lines struct {
	file string
	text string
	off  int  // where the next physical line starts
	end  bool // the last physical line has been read
	n    int  // physical lines read
	cur  logical
}

func newLines(file string, src []byte) *lines {
	return &lines{file: file, text: string(src)}
}

// physical returns the next physical line and its number.
func (r *lines) physical() (string, int, bool) {
	if r.end {
		return "", 0, false
	}
	r.n++
	rest := r.text[r.off:]
	i := strings.IndexByte(rest, '\n')
	if i < 0 {
		r.end = true
		return rest, r.n, true
	}
	r.off += i + 1
	return strings.TrimSuffix(rest[:i], "\r"), r.n, true
}

// logical returns the next logical line that is neither blank nor a
// comment, or false at the end of the file. The line is valid until the
// next call: keep a copy of what must outlive it.
func (r *lines) logical() (*logical, bool) {
	for {
		raw, n, ok := r.physical()
		if !ok {
			return nil, false
		}
		l := &r.cur
		*l = logical{text: raw, file: r.file, line: n}
		if strings.HasSuffix(raw, "\\") {
			r.continued(l)
		}
		if t := strings.TrimSpace(l.text); t == "" || t[0] == '#' {
			continue
		}
		return l, true
	}
}

// continued joins l's first physical line, which ends in a backslash,
// with those that follow it.
func (r *lines) continued(l *logical) {
	var b strings.Builder
	raw := l.text
	l.pieces = []piece{{off: 0, line: l.line, col: 1}}
	for {
		cont := strings.HasSuffix(raw, "\\")
		if cont {
			raw = raw[:len(raw)-1]
		}
		b.WriteString(raw)
		if !cont {
			break
		}
		next, n, ok := r.physical()
		if !ok {
			break
		}
		l.pieces = append(l.pieces, piece{off: b.Len(), line: n, col: 1})
		raw = next
	}
	l.text = b.String()
}

// raw returns the next physical line as it is, with its number, for the
// body of an inline submit description.
func (r *lines) raw() (string, int, bool) { return r.physical() }

// keyword normalizes a command word: upper case, '-' as '_'.
func keyword(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '-' || c >= 'a' && c <= 'z' || c >= 0x80 {
			return strings.ReplaceAll(strings.ToUpper(s), "-", "_")
		}
	}
	return s // already upper case, as most are
}
