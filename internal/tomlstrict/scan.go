package tomlstrict

import (
	"strconv"
	"strings"
)

// Scan finds the positions in text, read from the file name. The TOML
// library reports positions only for syntax errors, and its key positions
// cannot tell the elements of an array of tables apart. Scan assumes the
// text parses; on anything it does not understand it stops, and At falls
// back to an enclosing key's position.
func Scan(file, text string) *Positions {
	p := &Positions{file: file, text: text, keys: map[string]Position{}, values: map[string]int{}}
	s := &scanner{src: text, line: 1, col: 1, pos: p, arrays: map[string]int{}, implicit: map[string]Position{}}
	s.document()
	for path, pos := range s.implicit {
		s.record(path, pos)
	}
	return p
}

// scanner walks a TOML text recording positions.
type scanner struct {
	src       string
	i         int
	line, col int
	pos       *Positions
	arrays    map[string]int      // array-of-tables path → elements so far
	table     string              // the current table's path
	implicit  map[string]Position // tables a header defines on the way ([a.b] defines a)
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

func (s *scanner) here() Position { return Position{File: s.pos.file, Line: s.line, Col: s.col} }

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
	p := s.here()
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
	path := s.resolve(keys, p)
	if array {
		n := s.arrays[path]
		s.arrays[path] = n + 1
		s.record(path, p)
		path = Index(path, n)
	}
	s.table = path
	s.record(path, p)
}

// resolve turns the dotted keys of a header at p into a path, stepping
// into the last element of arrays of tables on the way.
func (s *scanner) resolve(keys []string, p Position) string {
	path := ""
	for k, key := range keys {
		path = Join(path, key)
		if k == len(keys)-1 {
			break
		}
		if _, ok := s.implicit[path]; !ok {
			s.implicit[path] = p
		}
		if n, ok := s.arrays[path]; ok {
			path = Index(path, n-1)
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
	p := s.here()
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
		path = Join(path, k)
		s.record(path, p)
	}
	s.blank(false)
	if _, ok := s.pos.values[path]; !ok {
		s.pos.values[path] = s.i
	}
	s.value(path)
}

// value skips one value, recording the keys of inline tables and the
// elements of arrays under path.
func (s *scanner) value(path string) {
	switch s.peek() {
	case '"', '\'':
		s.str()
	case '[':
		s.array(path)
	case '{':
		s.inlineTable(path)
	default: // numbers, booleans, dates
		for !s.eof() && !strings.ContainsRune(",]}#\n", rune(s.peek())) {
			s.next()
		}
	}
}

// array reads [v, ...], recording each element under path.
func (s *scanner) array(path string) {
	s.next()
	for n := 0; ; n++ {
		s.blank(true)
		if s.eof() || s.peek() == ']' {
			break
		}
		s.record(Index(path, n), s.here())
		start := s.i
		s.value(Index(path, n))
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
}

// inlineTable reads { k = v, ... } at path.
func (s *scanner) inlineTable(path string) {
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
}

// quoted reads a quoted key and returns it unquoted.
func (s *scanner) quoted() string {
	start := s.i
	s.str()
	raw := s.src[start:s.i]
	q := raw[0]
	raw = strings.TrimSuffix(raw[1:], string(q))
	if q == '\'' {
		return raw
	}
	return unescape(raw)
}

// escapes are TOML's one-letter escapes in basic strings.
var escapes = map[byte]string{'b': "\b", 't': "\t", 'n': "\n", 'f': "\f", 'r': "\r", 'e': "\x1b", '"': `"`, '\\': `\`}

// unescape decodes the escapes of a basic string's content; the text has
// parsed, so they are valid.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		if e, ok := escapes[s[i]]; ok {
			b.WriteString(e)
			continue
		}
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
		if digits == 0 || i+digits >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		r, _ := strconv.ParseUint(s[i+1:i+1+digits], 16, 32)
		b.WriteRune(rune(r))
		i += digits
	}
	return b.String()
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
	if _, ok := s.pos.keys[path]; !ok {
		s.pos.keys[path] = p
	}
}

// Path returns the path of a dotted key as TOML writes it: `a."b.c"` is
// a.b.c, as Positions names it.
func Path(key string) string {
	s := &scanner{src: key, line: 1, col: 1, pos: &Positions{}}
	return strings.Join(s.keys(), ".")
}
