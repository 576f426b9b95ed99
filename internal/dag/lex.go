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
	text   string
	file   string
	pieces []piece
	one    [1]piece // pieces of a line not continued
}

// pos returns the file position of a byte offset in the logical text.
func (l *logical) pos(off int) Pos {
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

// fields splits a logical line at spaces and tabs.
func (l *logical) fields() []token {
	var out []token
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

// lines reads the physical lines of one file.
type lines struct {
	file string
	src  []string
	next int // index of the next physical line
}

func newLines(file string, src []byte) *lines {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	return &lines{file: file, src: strings.Split(text, "\n")}
}

// logical returns the next logical line that is neither blank nor a
// comment, or false at the end of the file.
func (r *lines) logical() (*logical, bool) {
	for r.next < len(r.src) {
		if raw := r.src[r.next]; !strings.HasSuffix(raw, "\\") { // the common case: one line
			r.next++
			if t := strings.TrimSpace(raw); t == "" || t[0] == '#' {
				continue
			}
			l := &logical{text: raw, file: r.file}
			l.pieces = l.one[:1]
			l.one[0] = piece{off: 0, line: r.next, col: 1}
			return l, true
		}
		l := &logical{file: r.file}
		var b strings.Builder
		for r.next < len(r.src) {
			raw := r.src[r.next]
			r.next++
			l.pieces = append(l.pieces, piece{off: b.Len(), line: r.next, col: 1})
			cont := strings.HasSuffix(raw, "\\")
			if cont {
				raw = raw[:len(raw)-1]
			}
			b.WriteString(raw)
			if !cont {
				break
			}
		}
		l.text = b.String()
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		return l, true
	}
	return nil, false
}

// raw returns the next physical line as it is, with its number, for the
// body of an inline submit description.
func (r *lines) raw() (string, int, bool) {
	if r.next >= len(r.src) {
		return "", 0, false
	}
	r.next++
	return r.src[r.next-1], r.next, true
}

// keyword normalizes a command word: upper case, '-' as '_'.
func keyword(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '-' || c >= 'a' && c <= 'z' || c >= 0x80 {
			return strings.ReplaceAll(strings.ToUpper(s), "-", "_")
		}
	}
	return s // already upper case, as most are
}
