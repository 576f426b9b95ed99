package tomlstrict

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Reader reads typed values out of a document decoded into map[string]any,
// strictly: each table reports the keys nobody asked for, and every
// problem is an *Error at the value's position. Errors accumulate (each
// once) so that one run shows them all.
type Reader struct {
	pos  *Positions
	errs []error
	seen map[string]bool // error texts, to report each once
}

// NewReader returns a reader placing its errors with pos.
func NewReader(pos *Positions) *Reader { return &Reader{pos: pos} }

// Positions returns where the document's keys are written.
func (r *Reader) Positions() *Positions { return r.pos }

// Errorf reports a problem with the value at path.
func (r *Reader) Errorf(path, format string, args ...any) {
	r.Report(&Error{Pos: r.pos.At(path), Key: path, Msg: fmt.Sprintf(format, args...)})
}

// Report adds an error placed by the caller, unless it was reported
// before.
func (r *Reader) Report(e *Error) {
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if !r.seen[e.Error()] {
		r.seen[e.Error()] = true
		r.errs = append(r.errs, e)
	}
}

// Err returns the errors reported so far, joined.
func (r *Reader) Err() error { return errors.Join(r.errs...) }

// Table is one TOML table being read.
type Table struct {
	r    *Reader
	path string
	m    map[string]any
	used map[string]bool
}

// Table starts reading the table m, found at path ("" for the document).
func (r *Reader) Table(path string, m map[string]any) *Table {
	return &Table{r: r, path: path, m: m, used: map[string]bool{}}
}

// Reader returns the reader the table reports to.
func (t *Table) Reader() *Reader { return t.r }

// Path returns the table's path.
func (t *Table) Path() string { return t.path }

// Key returns the path of key k of the table.
func (t *Table) Key(k string) string { return Join(t.path, k) }

// Errorf reports a problem with key k of the table, or with the table
// itself when k is "".
func (t *Table) Errorf(k, format string, args ...any) {
	path := t.path
	if k != "" {
		path = t.Key(k)
	}
	t.r.Errorf(path, format, args...)
}

// Get returns the raw value of key k and marks it read.
func (t *Table) Get(k string) (any, bool) {
	if t == nil {
		return nil, false
	}
	v, ok := t.m[k]
	if ok {
		t.used[k] = true
	}
	return v, ok
}

// Peek returns the raw value of key k without marking it read.
func (t *Table) Peek(k string) (any, bool) {
	if t == nil {
		return nil, false
	}
	v, ok := t.m[k]
	return v, ok
}

// Has says whether the table holds key k.
func (t *Table) Has(k string) bool {
	_, ok := t.Peek(k)
	return ok
}

// Keys returns the table's keys, sorted.
func (t *Table) Keys() []string {
	if t == nil {
		return nil
	}
	keys := make([]string, 0, len(t.m))
	for k := range t.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// MarkRead marks key k read without reading it.
func (t *Table) MarkRead(k string) {
	if t != nil {
		t.used[k] = true
	}
}

// Done reports the keys of the table nobody read.
func (t *Table) Done() {
	for _, k := range t.Keys() {
		if !t.used[k] {
			t.Errorf(k, "unknown key")
		}
	}
}

// Str reads a string; def applies when the key is absent (or wrong).
func (t *Table) Str(k, def string) string {
	v, ok := t.Get(k)
	if !ok {
		return def
	}
	s, ok := v.(string)
	if !ok {
		t.Errorf(k, "want a string, got %s", Describe(v))
		return def
	}
	return s
}

// OneOf reads a string that must be one of choices.
func (t *Table) OneOf(k, def string, choices ...string) string {
	s := t.Str(k, def)
	if !slices.Contains(choices, s) {
		t.Errorf(k, "%q: must be one of %s", s, strings.Join(choices, ", "))
		return def
	}
	return s
}

// Bool reads true or false.
func (t *Table) Bool(k string, def bool) bool {
	v, ok := t.Get(k)
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		t.Errorf(k, "want true or false, got %s", Describe(v))
		return def
	}
	return b
}

// Number reads an integer or a float.
func (t *Table) Number(k string, def float64) float64 {
	v, ok := t.Get(k)
	if !ok {
		return def
	}
	f, ok := ToFloat(v)
	if !ok {
		t.Errorf(k, "want a number, got %s", Describe(v))
		return def
	}
	return f
}

// NumberIn reads a number that must lie in [lo, hi].
func (t *Table) NumberIn(k string, def, lo, hi float64) float64 {
	f := t.Number(k, def)
	if !(f >= lo && f <= hi) {
		t.Errorf(k, "%g: must be between %g and %g", f, lo, hi)
		return def
	}
	return f
}

// Positive reads a number that must be > 0 (and finite).
func (t *Table) Positive(k string, def float64) float64 {
	f := t.Number(k, def)
	if t.Has(k) && !(f > 0 && !math.IsInf(f, 0)) {
		t.Errorf(k, "%g: must be a positive number", f)
		return def
	}
	return f
}

// Int reads an integer that must lie in [lo, hi].
func (t *Table) Int(k string, def, lo, hi int) int {
	v, ok := t.Get(k)
	if !ok {
		return def
	}
	n, ok := v.(int64)
	if !ok {
		t.Errorf(k, "want an integer, got %s", Describe(v))
		return def
	}
	if n < int64(lo) || n > int64(hi) {
		t.Errorf(k, "%d: must be between %d and %d", n, lo, hi)
		return def
	}
	return int(n)
}

// Sub returns the table at key k, or nil when it is absent. A nil *Table
// reads as empty.
func (t *Table) Sub(k string) *Table {
	v, ok := t.Get(k)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Errorf(k, "want a table, got %s", Describe(v))
		return nil
	}
	return t.r.Table(t.Key(k), m)
}

// Tables returns the elements of an array of tables (or an inline array
// of inline tables) at key k.
func (t *Table) Tables(k string) []*Table {
	v, ok := t.Get(k)
	if !ok {
		return nil
	}
	var out []*Table
	switch a := v.(type) {
	case []map[string]any:
		for i, m := range a {
			out = append(out, t.r.Table(Index(t.Key(k), i), m))
		}
	case []any:
		for i, e := range a {
			m, ok := e.(map[string]any)
			if !ok {
				t.r.Errorf(Index(t.Key(k), i), "want a table, got %s", Describe(e))
				continue
			}
			out = append(out, t.r.Table(Index(t.Key(k), i), m))
		}
	default:
		t.Errorf(k, "want an array of tables, got %s", Describe(v))
	}
	return out
}

// Array returns the elements of an array at key k.
func (t *Table) Array(k string) []any {
	v, ok := t.Get(k)
	if !ok {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		t.Errorf(k, "want an array, got %s", Describe(v))
		return nil
	}
	return a
}

// Numbers returns an array of numbers at key k.
func (t *Table) Numbers(k string) []float64 {
	var out []float64
	for i, e := range t.Array(k) {
		f, ok := ToFloat(e)
		if !ok {
			t.r.Errorf(Index(t.Key(k), i), "want a number, got %s", Describe(e))
			continue
		}
		out = append(out, f)
	}
	return out
}

// Strings returns an array of strings at key k.
func (t *Table) Strings(k string) []string {
	var out []string
	for i, e := range t.Array(k) {
		s, ok := e.(string)
		if !ok {
			t.r.Errorf(Index(t.Key(k), i), "want a string, got %s", Describe(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

// ToFloat returns a TOML integer or float as a float64.
func ToFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// Describe names a TOML value's kind for errors: `the string "x"`,
// "the number 3", "a table".
func Describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case int64, float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}
