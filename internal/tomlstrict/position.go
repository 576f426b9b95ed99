package tomlstrict

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Position is a place in a TOML file.
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

// Error is a problem with one value of a TOML file: where, which key
// (its path, e.g. machines[1].speed) and what.
type Error struct {
	Pos Position
	Key string
	Msg string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.File != "" {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Join appends a key to a path: Join("pool", "interval") is
// "pool.interval".
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index names element n of the array at path: "machines[1]".
func Index(path string, n int) string { return path + "[" + strconv.Itoa(n) + "]" }

// Positions knows where each key and array element of a TOML text is
// written. Paths join keys with dots, unquoted, and number the elements
// of arrays (of tables, or inline) from 0:
// "machines[1].failure.changes[0].at".
type Positions struct {
	file   string
	text   string
	keys   map[string]Position // where each path's key or header starts
	values map[string]int      // the byte offset where each key's value starts
}

// Key returns where the key or table header at path is written.
func (p *Positions) Key(path string) (Position, bool) {
	pos, ok := p.keys[path]
	return pos, ok
}

// At returns where path is written, or else where the nearest enclosing
// key is, or else just the file.
func (p *Positions) At(path string) Position {
	for {
		if pos, ok := p.keys[path]; ok {
			return pos
		}
		k := strings.LastIndexAny(path, ".[")
		if k < 0 {
			return Position{File: p.file}
		}
		path = path[:k]
	}
}

// Value returns where the value of the key at path starts.
func (p *Positions) Value(path string) (Position, bool) {
	i, ok := p.values[path]
	if !ok {
		return Position{}, false
	}
	return p.position(i), true
}

// InString returns where byte off of the string value of the key at path
// is written, decoding TOML escapes on the way: it places a mistake found
// inside a string, such as an expression's syntax error.
func (p *Positions) InString(path string, off int) (Position, bool) {
	i, ok := p.values[path]
	if !ok {
		return Position{}, false
	}
	var quote string
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(p.text[i:], q) {
			quote = q
			break
		}
	}
	if quote == "" {
		return Position{}, false
	}
	i += len(quote)
	if len(quote) == 3 { // a line break right after the delimiter is not part of the value
		i += len(p.text[i:]) - len(strings.TrimPrefix(strings.TrimPrefix(p.text[i:], "\r"), "\n"))
	}
	for off > 0 {
		if i >= len(p.text) || p.text[i] == '\n' && len(quote) == 1 {
			return Position{}, false
		}
		used, decoded := stringStep(p.text[i:], quote[0])
		i += used
		off -= decoded
	}
	return p.position(i), true
}

// stringStep returns how many source bytes the next character of a string
// takes and how many bytes it decodes to.
func stringStep(rest string, quote byte) (used, decoded int) {
	if quote == '\'' || rest[0] != '\\' || len(rest) < 2 {
		return 1, 1
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[rest[1]]
	if digits == 0 || len(rest) < 2+digits {
		return 2, 1
	}
	r, err := strconv.ParseUint(rest[2:2+digits], 16, 32)
	if err != nil || utf8.RuneLen(rune(r)) < 0 {
		return 2 + digits, 3 // invalid: TOML refused it already
	}
	return 2 + digits, utf8.RuneLen(rune(r))
}

// position turns a byte offset of the text into a line and a column (in
// characters).
func (p *Positions) position(i int) Position {
	before := p.text[:i]
	start := strings.LastIndexByte(before, '\n') + 1
	return Position{File: p.file, Line: strings.Count(before, "\n") + 1, Col: utf8.RuneCountInString(before[start:]) + 1}
}

// Alias places path where other is written: for values that a program
// writes into the document (a varied key takes its value from a list).
func (p *Positions) Alias(path, other string) { p.keys[path] = p.At(other) }

// All yields every path with where its key is written, in no order.
func (p *Positions) All() iter.Seq2[string, Position] {
	return func(yield func(string, Position) bool) {
		for path, pos := range p.keys {
			if !yield(path, pos) {
				return
			}
		}
	}
}
