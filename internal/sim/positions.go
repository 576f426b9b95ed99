package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Position is a place in a scenario file.
type Position struct {
	File      string
	Line, Col int
}

func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// keyPositions finds where each key and array element of a TOML text is
// written, so that errors about values can name file:line:col. Paths join
// keys with dots and number elements of arrays (of tables, or inline) from
// 0: "machines[1].failure.changes[0].at". The TOML library reports
// positions only for syntax errors, and its key positions cannot tell the
// elements of an array of tables apart. The text has already parsed, so
// the scanner may assume it is well formed; on anything it does not
// understand it stops, and callers fall back to a parent's position.
func keyPositions(text string) map[string]Position {
	s := &scanner{src: text, line: 1, col: 1, out: map[string]Position{}, arrays: map[string]int{}}
	s.document()
	return s.out
}

type scanner struct {
	src       string
	i         int
	line, col int
	out       map[string]Position
	arrays    map[string]int // array-of-tables path → elements so far
	table     string         // the current table's path
}

func (s *scanner) eof() bool { return s.i >= len(s.src) }

func (s *scanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.src[s.i]
}

func (s *scanner) next() byte {
	c := s.src[s.i]
	s.i++
	if c == '\n' {
		s.line++
		s.col = 1
	} else if c < 0x80 || c >= 0xC0 { // count runes, not continuation bytes
		s.col++
	}
	return c
}

func (s *scanner) pos() Position { return Position{Line: s.line, Col: s.col} }

// blank skips spaces and tabs, and with newlines also line ends and
// comments.
func (s *scanner) blank(newlines bool) {
	for !s.eof() {
		switch c := s.peek(); {
		case c == ' ' || c == '\t' || c == '\r':
			s.next()
		case c == '#':
			for !s.eof() && s.peek() != '\n' {
				s.next()
			}
		case c == '\n' && newlines:
			s.next()
		default:
			return
		}
	}
}

func (s *scanner) document() {
	for {
		s.blank(true)
		if s.eof() {
			return
		}
		start := s.i
		if s.peek() == '[' {
			s.header()
		} else {
			s.keyValue(s.table)
		}
		if s.i == start { // not understood: stop rather than loop
			return
		}
	}
}

// header reads [table] or [[array]].
func (s *scanner) header() {
	p := s.pos()
	s.next()
	array := s.peek() == '['
	if array {
		s.next()
	}
	keys := s.keys()
	s.blank(false)
	for !s.eof() && s.peek() == ']' {
		s.next()
	}
	path := s.resolve(keys)
	if array {
		n := s.arrays[path]
		s.arrays[path] = n + 1
		s.record(path, p)
		path = index(path, n)
	}
	s.table = path
	s.record(path, p)
}

// resolve turns dotted keys into a path, stepping into the last element
// of arrays of tables on the way.
func (s *scanner) resolve(keys []string) string {
	path := ""
	for k, key := range keys {
		path = join(path, key)
		if n, ok := s.arrays[path]; ok && k < len(keys)-1 {
			path = index(path, n-1)
		}
	}
	return path
}

// keys reads a dotted key: bare or quoted parts.
func (s *scanner) keys() []string {
	var out []string
	for {
		s.blank(false)
		switch c := s.peek(); {
		case c == '"' || c == '\'':
			out = append(out, s.quoted())
		case bareKeyChar(c):
			start := s.i
			for !s.eof() && bareKeyChar(s.peek()) {
				s.next()
			}
			out = append(out, s.src[start:s.i])
		default:
			return out
		}
		s.blank(false)
		if s.peek() != '.' {
			return out
		}
		s.next()
	}
}

func bareKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// keyValue reads key = value in the table at path.
func (s *scanner) keyValue(table string) {
	p := s.pos()
	keys := s.keys()
	if len(keys) == 0 {
		return
	}
	s.blank(false)
	if s.peek() != '=' {
		return
	}
	s.next()
	path := table
	for _, k := range keys {
		path = join(path, k)
		s.record(path, p)
	}
	s.blank(false)
	s.record(path+"=", s.pos()) // where the value starts
	s.value(path)
}

// value skips one value, recording the keys of inline tables and the
// elements of arrays under path.
func (s *scanner) value(path string) {
	switch c := s.peek(); c {
	case '"', '\'':
		s.str()
	case '[':
		s.next()
		for n := 0; ; n++ {
			s.blank(true)
			if s.eof() || s.peek() == ']' {
				break
			}
			s.record(index(path, n), s.pos())
			start := s.i
			s.value(index(path, n))
			s.blank(true)
			if s.peek() == ',' {
				s.next()
			} else if s.i == start {
				return
			}
		}
		if !s.eof() {
			s.next()
		}
	case '{':
		s.next()
		for {
			s.blank(true)
			if s.eof() || s.peek() == '}' {
				break
			}
			start := s.i
			s.keyValue(path)
			s.blank(true)
			if s.peek() == ',' {
				s.next()
			} else if s.i == start {
				return
			}
		}
		if !s.eof() {
			s.next()
		}
	default: // numbers, booleans, dates
		for !s.eof() && !strings.ContainsRune(",]}#\n", rune(s.peek())) {
			s.next()
		}
	}
}

// quoted reads a quoted key and returns it unquoted (escapes are rare in
// keys; a basic string's are decoded by strconv when possible).
func (s *scanner) quoted() string {
	start := s.i
	s.str()
	raw := s.src[start:s.i]
	if raw[0] == '\'' {
		return strings.Trim(raw, "'")
	}
	if u, err := strconv.Unquote(raw); err == nil {
		return u
	}
	return strings.Trim(raw, `"`)
}

// str skips a string of any of TOML's four kinds.
func (s *scanner) str() {
	q := s.next()
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(s.src[s.i:], triple[:2]) { // a multi-line string
		s.next()
		s.next()
		for !s.eof() && !strings.HasPrefix(s.src[s.i:], triple) {
			if s.next() == '\\' && q == '"' && !s.eof() {
				s.next()
			}
		}
		for k := 0; k < 5 && !s.eof() && s.peek() == q; k++ { // the end, and up to two quotes of content
			s.next()
		}
		return
	}
	for !s.eof() {
		c := s.next()
		if c == q || c == '\n' {
			return
		}
		if c == '\\' && q == '"' && !s.eof() {
			s.next()
		}
	}
}

// record keeps the first position seen for a path.
func (s *scanner) record(path string, p Position) {
	if _, ok := s.out[path]; !ok {
		s.out[path] = p
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, n int) string { return path + "[" + strconv.Itoa(n) + "]" }
