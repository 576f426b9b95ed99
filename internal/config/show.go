package config

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// Show writes the effective configuration as TOML, each value followed by
// a comment saying where it came from.
func (c *Config) Show(w io.Writer) error {
	section := ""
	var err error
	walkLeaves(c, func(path string, l leaf) {
		if err != nil {
			return
		}
		i := strings.LastIndexByte(path, '.')
		sec, key := path[:i], path[i+1:]
		if sec != section {
			if section != "" {
				fmt.Fprintln(w)
			}
			section = sec
			_, err = fmt.Fprintf(w, "[%s]\n", sec)
		}
		_, err = fmt.Fprintf(w, "%s = %s  # %s\n", key, tomlValue(l.v), c.Origin(path))
	})
	return err
}

func tomlValue(v reflect.Value) string {
	if m, ok := v.Interface().(interface{ MarshalText() ([]byte, error) }); ok {
		b, _ := m.MarshalText()
		return strconv.Quote(string(b))
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Slice:
		items := make([]string, v.Len())
		for i := range items {
			items[i] = tomlValue(v.Index(i))
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	return fmt.Sprint(v.Interface())
}
