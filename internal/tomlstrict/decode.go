// Package tomlstrict reads TOML files strictly and says where each
// problem is: a key nobody reads is an error, and every error is an
// *Error naming file:line:col and the key's path. The configuration
// (internal/config) and the simulator's scenarios (internal/sim) both read
// through it, so the two formats report problems alike.
//
// BurntSushi/toml parses; it reports positions only for syntax errors, so
// Scan finds where every key and array element is written. Decode reads a
// file into a struct (a fixed schema of typed values, layered over
// defaults); Reader walks a decoded document value by value, for formats
// whose values take several shapes (a number or a string with a unit; a
// number or a table) and whose every problem is reported in one run.
package tomlstrict

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/BurntSushi/toml"
)

// Decode decodes text, read from the file name, into v strictly: a key v
// has no field for is an "unknown key" error. Every error is an *Error (or
// several joined). It returns the keys decoded and where each is written.
func Decode(name, text string, v any) (toml.MetaData, *Positions, error) {
	md, err := toml.Decode(text, v)
	if err != nil {
		return md, nil, decodeError(name, text, err)
	}
	pos := Scan(name, text)
	var errs []error
	for _, k := range md.Undecoded() {
		errs = append(errs, &Error{Pos: pos.At(KeyPath(k)), Key: k.String(), Msg: "unknown key"})
	}
	return md, pos, errors.Join(errs...)
}

// Read parses text, read from the file name, into a document for a
// Reader to walk; the reader reports the keys nobody read. A syntax error
// is an *Error.
func Read(name, text string) (map[string]any, *Reader, error) {
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		return nil, nil, decodeError(name, text, err)
	}
	return doc, NewReader(Scan(name, text)), nil
}

// KeyPath is a key's path as Positions names it: its parts, unquoted,
// joined with dots.
func KeyPath(k toml.Key) string {
	path := ""
	for _, part := range k {
		path = Join(path, part)
	}
	return path
}

// decodeError turns a TOML decoding error into one naming file:line:col:
// syntax errors carry their position, and errors about a value (a wrong
// type) name the key, whose place Scan finds.
func decodeError(name, text string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" {
			msg = fmt.Sprintf("%s (key %s)", msg, pe.LastKey)
		}
		return &Error{Pos: Position{File: name, Line: pe.Position.Line, Col: pe.Position.Col}, Msg: msg}
	}
	m := valueErrorRE.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{Pos: Position{File: name}, Msg: err.Error()}
	}
	key, qerr := strconv.Unquote(m[2])
	if qerr != nil {
		key = m[2]
	}
	p, ok := Scan(name, text).Key(Path(key))
	if !ok {
		p = Position{File: name}
		p.Line, _ = strconv.Atoi(m[1])
	}
	return &Error{Pos: p, Key: key, Msg: m[3]}
}

// valueErrorRE reads the TOML library's errors about values:
// toml: line 2 (last key "collector.max_body_bytes"): incompatible types...
var valueErrorRE = regexp.MustCompile(`^toml: line (\d+) \(last key ("(?:[^"\\]|\\.)*")\): (.*)$`)
