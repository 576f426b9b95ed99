package config

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Show writes the effective configuration as TOML, each value followed by
// a comment saying where it came from. Each section's keys come under its
// header, then its tables of names ([negotiator.limits],
// [startd.sita.hosts], [startd.attributes], [startd.slot_types.NAME]),
// then its subsections. The output reads back as the same configuration.
func (c *Config) Show(w io.Writer) error {
	s := &shower{c: c, w: w}
	v := reflect.ValueOf(c).Elem()
	for i, f := range tomlFields(v.Type()) {
		if i > 0 {
			s.printf("\n")
		}
		s.section([]string{f.key}, v.Field(f.index))
	}
	return s.err
}

// shower writes Show's output, keeping the first write error.
type shower struct {
	c   *Config
	w   io.Writer
	err error
}

func (s *shower) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}

// tomlField is a struct field with its TOML key.
type tomlField struct {
	key   string
	index int
}

// tomlFields lists a struct type's fields that have a TOML key, in order.
func tomlFields(t reflect.Type) []tomlField {
	var out []tomlField
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name != "" && name != "-" && f.IsExported() {
			out = append(out, tomlField{name, i})
		}
	}
	return out
}

// isLeaf reports whether a value is one key's value (not a table).
func isLeaf(v reflect.Value) bool {
	if reflect.PointerTo(v.Type()).Implements(textUnmarshaler) {
		return true
	}
	return v.Kind() != reflect.Struct && v.Kind() != reflect.Map
}

// section writes a section: its keys, its tables, its subsections.
func (s *shower) section(path []string, v reflect.Value) {
	s.printf("[%s]\n", dotted(path))
	fields := tomlFields(v.Type())
	for _, f := range fields {
		if fv := v.Field(f.index); isLeaf(fv) {
			key := dotted(append(path, f.key))
			s.printf("%s = %s  # %s\n", f.key, tomlValue(fv), s.c.Origin(key))
		}
	}
	for _, f := range fields {
		if fv := v.Field(f.index); fv.Kind() == reflect.Map {
			s.table(append(slices.Clone(path), f.key), fv)
		}
	}
	for _, f := range fields {
		if fv := v.Field(f.index); !isLeaf(fv) && fv.Kind() == reflect.Struct {
			s.printf("\n")
			s.section(append(slices.Clone(path), f.key), fv)
		}
	}
}

// table writes a table of names: name = value, or for tables of
// structures ([startd.slot_types.NAME]) one table per name.
func (s *shower) table(path []string, m reflect.Value) {
	names := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		names = append(names, k.String())
	}
	slices.Sort(names)
	if m.Type().Elem().Kind() == reflect.Struct {
		for _, n := range names {
			s.printf("\n[%s]  # %s\n", dotted(append(slices.Clone(path), n)), s.origin(append(slices.Clone(path), n)))
			s.structKeys(m.MapIndex(reflect.ValueOf(n)))
		}
		return
	}
	s.printf("\n[%s]", dotted(path))
	if len(names) == 0 {
		s.printf("  # empty\n")
		return
	}
	s.printf("\n")
	for _, n := range names {
		s.printf("%s = %s  # %s\n", quoteKey(n), tomlValue(m.MapIndex(reflect.ValueOf(n))), s.origin(append(slices.Clone(path), n)))
	}
}

// structKeys writes the set keys of a table of a structure type (a slot
// type's count, shares, ...).
func (s *shower) structKeys(v reflect.Value) {
	for _, f := range tomlFields(v.Type()) {
		fv := v.Field(f.index)
		if sh, ok := fv.Interface().(Share); ok {
			if sh.IsSet() {
				s.printf("%s = %s\n", f.key, strconv.Quote(sh.Text))
			}
			continue
		}
		if !fv.IsZero() {
			s.printf("%s = %s\n", f.key, tomlValue(fv))
		}
	}
}

// origin says where a key of a table came from: the file, or a default.
func (s *shower) origin(path []string) Origin {
	if o, ok := s.c.origins[toml.Key(path).String()]; ok {
		return o
	}
	return s.c.Origin(dotted(path))
}

// dotted joins a key's parts, quoting those that need it.
func dotted(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = quoteKey(p)
	}
	return strings.Join(parts, ".")
}

// quoteKey writes a key bare when TOML allows, else quoted.
func quoteKey(k string) string {
	if k == "" || strings.IndexFunc(k, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		return strconv.Quote(k)
	}
	return k
}

// tomlValue writes a value as TOML: strings quoted, durations as their
// text, numbers as they are with reals keeping a decimal point, lists in
// brackets.
func tomlValue(v reflect.Value) string {
	if m, ok := v.Interface().(interface{ MarshalText() ([]byte, error) }); ok {
		b, _ := m.MarshalText()
		return strconv.Quote(string(b))
	}
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Float32, reflect.Float64:
		return tomlFloat(v.Float())
	case reflect.Slice:
		items := make([]string, v.Len())
		for i := range items {
			items[i] = tomlValue(v.Index(i))
		}
		return "[" + strings.Join(items, ", ") + "]"
	case reflect.Map:
		var items []string
		for _, k := range v.MapKeys() {
			items = append(items, quoteKey(k.String())+" = "+tomlValue(v.MapIndex(k)))
		}
		slices.Sort(items)
		return "{ " + strings.Join(items, ", ") + " }"
	}
	return fmt.Sprint(v.Interface())
}

// tomlFloat writes a real so that TOML reads it back as a real.
func tomlFloat(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}
