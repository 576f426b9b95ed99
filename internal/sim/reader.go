package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Error is a problem with one value of a scenario file.
type Error struct {
	Pos Position
	Key string // the value's path, e.g. machines[1].speed
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

// reader reads typed values out of a decoded TOML document, strictly:
// each table reports the keys nobody asked for, and every problem is an
// Error at the value's position. Errors accumulate so that one run shows
// them all.
type reader struct {
	file string
	pos  map[string]Position
	errs []error
	seen map[string]bool // error texts, to report each once
}

func (r *reader) at(path string) Position {
	for p := path; ; {
		if pos, ok := r.pos[p]; ok {
			pos.File = r.file
			return pos
		}
		k := strings.LastIndexAny(p, ".[")
		if k < 0 {
			return Position{File: r.file}
		}
		p = p[:k]
	}
}

func (r *reader) errorf(path, format string, args ...any) {
	e := &Error{Pos: r.at(path), Key: path, Msg: fmt.Sprintf(format, args...)}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if !r.seen[e.Error()] {
		r.seen[e.Error()] = true
		r.errs = append(r.errs, e)
	}
}

func (r *reader) err() error { return errors.Join(r.errs...) }

// table is one TOML table being read.
type table struct {
	r    *reader
	path string
	m    map[string]any
	used map[string]bool
}

func (r *reader) table(path string, m map[string]any) *table {
	return &table{r: r, path: path, m: m, used: map[string]bool{}}
}

func (t *table) key(k string) string { return join(t.path, k) }

// get returns the raw value of key and marks it read.
func (t *table) get(k string) (any, bool) {
	if t == nil {
		return nil, false
	}
	v, ok := t.m[k]
	if ok {
		t.used[k] = true
	}
	return v, ok
}

func (t *table) has(k string) bool {
	if t == nil {
		return false
	}
	_, ok := t.m[k]
	return ok
}

// done reports the keys of the table nobody read.
func (t *table) done() {
	if t == nil {
		return
	}
	var unknown []string
	for k := range t.m {
		if !t.used[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		t.r.errorf(t.key(k), "unknown key")
	}
}

func (t *table) str(k, def string) string {
	v, ok := t.get(k)
	if !ok {
		return def
	}
	s, ok := v.(string)
	if !ok {
		t.r.errorf(t.key(k), "want a string, got %s", describe(v))
		return def
	}
	return s
}

// oneOf reads a string that must be one of choices.
func (t *table) oneOf(k, def string, choices ...string) string {
	s := t.str(k, def)
	if !slices.Contains(choices, s) {
		t.r.errorf(t.key(k), "%q: must be one of %s", s, strings.Join(choices, ", "))
		return def
	}
	return s
}

func (t *table) boolean(k string, def bool) bool {
	v, ok := t.get(k)
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		t.r.errorf(t.key(k), "want true or false, got %s", describe(v))
		return def
	}
	return b
}

// number reads an integer or float.
func (t *table) number(k string, def float64) float64 {
	v, ok := t.get(k)
	if !ok {
		return def
	}
	f, ok := toFloat(v)
	if !ok {
		t.r.errorf(t.key(k), "want a number, got %s", describe(v))
		return def
	}
	return f
}

// numberIn reads a number that must lie in [lo, hi].
func (t *table) numberIn(k string, def, lo, hi float64) float64 {
	f := t.number(k, def)
	if !(f >= lo && f <= hi) {
		t.r.errorf(t.key(k), "%g: must be between %g and %g", f, lo, hi)
		return def
	}
	return f
}

// positive reads a number that must be > 0.
func (t *table) positive(k string, def float64) float64 {
	f := t.number(k, def)
	if t.has(k) && !(f > 0 && !math.IsInf(f, 0)) {
		t.r.errorf(t.key(k), "%g: must be a positive number", f)
		return def
	}
	return f
}

func (t *table) integer(k string, def, lo, hi int) int {
	v, ok := t.get(k)
	if !ok {
		return def
	}
	n, ok := v.(int64)
	if !ok {
		t.r.errorf(t.key(k), "want an integer, got %s", describe(v))
		return def
	}
	if n < int64(lo) || n > int64(hi) {
		t.r.errorf(t.key(k), "%d: must be between %d and %d", n, lo, hi)
		return def
	}
	return int(n)
}

// duration reads seconds: a number, or a string with a unit ("90s",
// "16m", "1.5h", "2d", "1h30m").
func (t *table) duration(k string, def float64) float64 {
	v, ok := t.get(k)
	if !ok {
		return def
	}
	d, err := toDuration(v)
	if err != nil {
		t.r.errorf(t.key(k), "%v", err)
		return def
	}
	return d
}

// nonNegDuration reads a duration that must not be negative.
func (t *table) nonNegDuration(k string, def float64) float64 {
	d := t.duration(k, def)
	if d < 0 {
		t.r.errorf(t.key(k), "must not be negative")
		return def
	}
	return d
}

func toDuration(v any) (float64, error) {
	if f, ok := toFloat(v); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("%g is not a duration", f)
		}
		return f, nil
	}
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("want a duration (seconds, or a string such as \"90s\", \"16m\", \"2d\"), got %s", describe(v))
	}
	return parseDuration(s)
}

// parseDuration reads Go's duration syntax plus days ("2d", "1d12h").
func parseDuration(s string) (float64, error) {
	txt := strings.TrimSpace(s)
	days := 0.0
	if i := strings.IndexByte(txt, 'd'); i >= 0 {
		n, err := strconv.ParseFloat(txt[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		days, txt = n, txt[i+1:]
		if txt == "" {
			return days * 86400, nil
		}
	}
	d, err := time.ParseDuration(txt)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (use a number of seconds or a unit: \"90s\", \"16m\", \"1.5h\", \"2d\")", s)
	}
	return days*86400 + d.Seconds(), nil
}

// sub returns the table at key, or nil when it is absent.
func (t *table) sub(k string) *table {
	v, ok := t.get(k)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.r.errorf(t.key(k), "want a table, got %s", describe(v))
		return nil
	}
	return t.r.table(t.key(k), m)
}

// tables returns the elements of an array of tables (or an inline array
// of inline tables) at key.
func (t *table) tables(k string) []*table {
	v, ok := t.get(k)
	if !ok {
		return nil
	}
	var out []*table
	switch a := v.(type) {
	case []map[string]any:
		for i, m := range a {
			out = append(out, t.r.table(index(t.key(k), i), m))
		}
	case []any:
		for i, e := range a {
			m, ok := e.(map[string]any)
			if !ok {
				t.r.errorf(index(t.key(k), i), "want a table, got %s", describe(e))
				continue
			}
			out = append(out, t.r.table(index(t.key(k), i), m))
		}
	default:
		t.r.errorf(t.key(k), "want an array of tables, got %s", describe(v))
	}
	return out
}

// array returns the elements of an array at key.
func (t *table) array(k string) []any {
	v, ok := t.get(k)
	if !ok {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		t.r.errorf(t.key(k), "want an array, got %s", describe(v))
		return nil
	}
	return a
}

// numbers returns an array of numbers at key.
func (t *table) numbers(k string) []float64 {
	var out []float64
	for i, e := range t.array(k) {
		f, ok := toFloat(e)
		if !ok {
			t.r.errorf(index(t.key(k), i), "want a number, got %s", describe(e))
			continue
		}
		out = append(out, f)
	}
	return out
}

// strings returns an array of strings at key.
func (t *table) strs(k string) []string {
	var out []string
	for i, e := range t.array(k) {
		s, ok := e.(string)
		if !ok {
			t.r.errorf(index(t.key(k), i), "want a string, got %s", describe(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// describe names a TOML value's kind for errors.
func describe(v any) string {
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
