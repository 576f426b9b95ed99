package config

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// leaf is one settable value of the configuration.
type leaf struct {
	v reflect.Value
}

// walkLeaves calls f for every leaf value of c with its dotted key. Maps
// (free-form tables) are not leaves.
func walkLeaves(c *Config, f func(path string, l leaf)) {
	walkStruct(reflect.ValueOf(c).Elem(), "", f)
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func walkStruct(v reflect.Value, prefix string, f func(string, leaf)) {
	t := v.Type()
	for i := range t.NumField() {
		field := t.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("toml"), ",")
		if name == "" || name == "-" || !field.IsExported() {
			continue
		}
		fv := v.Field(i)
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		switch {
		case reflect.PointerTo(fv.Type()).Implements(textUnmarshaler):
			f(path, leaf{fv})
		case fv.Kind() == reflect.Struct:
			walkStruct(fv, path, f)
		case fv.Kind() == reflect.Map:
		default:
			f(path, leaf{fv})
		}
	}
}

// set parses s into the leaf: strings as they are, lists separated by
// commas, numbers, booleans and durations as in TOML.
func (l leaf) set(s string) error {
	if u, ok := l.v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return u.UnmarshalText([]byte(s))
	}
	switch l.v.Kind() {
	case reflect.String:
		l.v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("invalid boolean %q (use true or false)", s)
		}
		l.v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("invalid integer %q", s)
		}
		l.v.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("invalid number %q", s)
		}
		l.v.SetFloat(x)
	case reflect.Slice:
		var items []string
		for _, it := range strings.Split(s, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		l.v.Set(reflect.ValueOf(items))
	case reflect.Interface: // startd.gpus: a count, a list of ids, or a word
		l.v.Set(reflect.ValueOf(anyFromText(s)))
	default:
		return fmt.Errorf("cannot be set from text")
	}
	return nil
}

// anyFromText reads a key that takes several types from text: an integer,
// a list when there is a comma ("GPU-a,GPU-b"), else a string.
func anyFromText(s string) any {
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		return n
	}
	if strings.Contains(s, ",") {
		items := []any{}
		for _, it := range strings.Split(s, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		return items
	}
	return s
}

// EnvName returns the environment variable that overrides a key:
// "collector.listen" is KITE_COLLECTOR_LISTEN.
func EnvName(key string) string {
	return "KITE_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// applyEnv lays environment overrides over c.
func (c *Config) applyEnv(lookup func(string) (string, bool)) error {
	var err error
	walkLeaves(c, func(path string, l leaf) {
		name := EnvName(path)
		s, ok := lookup(name)
		if !ok || err != nil {
			return
		}
		if e := l.set(s); e != nil {
			err = &Error{Key: name, Msg: e.Error()}
			return
		}
		c.origins[path] = Origin{Source: "env", Name: name}
	})
	return err
}

// Set overrides one key from the command line: "collector.listen" to
// "127.0.0.1:9618", say.
func (c *Config) Set(key, value string) error {
	found := false
	var err error
	walkLeaves(c, func(path string, l leaf) {
		if path != key {
			return
		}
		found = true
		if e := l.set(value); e != nil {
			err = &Error{Key: key, Msg: e.Error()}
			return
		}
		c.origins[path] = Origin{Source: "flag"}
	})
	if !found {
		return &Error{Key: key, Msg: "unknown key"}
	}
	return err
}
