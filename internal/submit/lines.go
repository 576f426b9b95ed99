package submit

import "strings"

// reader splits a submit file into physical lines and joins them into
// logical lines: blank lines and lines starting with '#' are skipped, and a
// line ending in a backslash continues on the next line (whose leading
// white space is dropped; comment lines inside a continuation are skipped).
type reader struct {
	src  string
	off  int // offset of the next unread physical line
	line int // number of the last physical line read
}

// logical is one logical line: its text, trimmed, and where each of its
// physical pieces starts.
type logical struct {
	text string
	sp   span
}

// physical returns the next physical line without its line break (and
// carriage return), and its 1-based number.
func (r *reader) physical() (string, int, bool) {
	if r.off >= len(r.src) {
		return "", 0, false
	}
	end := strings.IndexByte(r.src[r.off:], '\n')
	var text string
	if end < 0 {
		text, r.off = r.src[r.off:], len(r.src)
	} else {
		text, r.off = r.src[r.off:r.off+end], r.off+end+1
	}
	r.line++
	return strings.TrimSuffix(text, "\r"), r.line, true
}

// isBlank reports whether c is white space within a line.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

// trimLeft returns s without leading white space and how many bytes went.
func trimLeft(s string) (string, int) {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return s[i:], i
}

// trimSpace trims white space at both ends.
func trimSpace(s string) string {
	s, _ = trimLeft(s)
	for len(s) > 0 && isBlank(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// isComment reports whether a left-trimmed line is a comment.
func isComment(s string) bool { return strings.HasPrefix(s, "#") }

// next returns the next logical line.
func (r *reader) next() (logical, bool) {
	for {
		text, n, ok := r.physical()
		if !ok {
			return logical{}, false
		}
		body, skip := trimLeft(text)
		if body == "" || isComment(body) {
			continue
		}
		var b strings.Builder
		l := logical{sp: span{pieces: []piece{{off: 0, at: pos{Line: n, Col: skip + 1}}}}}
		body = trimSpace(body)
		more := strings.HasSuffix(body, `\`)
		b.WriteString(strings.TrimSuffix(body, `\`))
		for more {
			more = r.continuation(&b, &l.sp)
		}
		l.text = trimSpace(b.String())
		return l, true
	}
}

// continuation reads the line that continues a logical line, skipping
// comment lines, appends it to b and records where it starts. It reports
// whether that line itself ends in a backslash.
func (r *reader) continuation(b *strings.Builder, sp *span) bool {
	for {
		text, n, ok := r.physical()
		if !ok {
			return false
		}
		body, skip := trimLeft(text)
		if isComment(body) {
			continue
		}
		body = trimSpace(body)
		sp.pieces = append(sp.pieces, piece{off: b.Len(), at: pos{Line: n, Col: skip + 1}})
		more := strings.HasSuffix(body, `\`)
		b.WriteString(strings.TrimSuffix(body, `\`))
		return more
	}
}
