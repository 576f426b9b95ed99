package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// checkText refuses a request whose strings are not all UTF-8: JSON
// carries UTF-8 text only, and encoding/json would send U+FFFD in place
// of each bad byte, so that a tool would change what its user typed
// without a word. The error names the field and the byte's offset.
func checkText(v any) error {
	return checkValue(reflect.ValueOf(v), "request")
}

var marshaler = reflect.TypeFor[json.Marshaler]()

func checkValue(v reflect.Value, path string) error {
	if !v.IsValid() || v.Type().Implements(marshaler) {
		return nil // the type encodes itself
	}
	switch v.Kind() {
	case reflect.String:
		return checkString(v.String(), path)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkValue(v.Elem(), path)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				if err := checkValue(v.Field(i), path+"."+f.Name); err != nil {
					return err
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes are sent as base64
		}
		for i := range v.Len() {
			if err := checkValue(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			k := it.Key()
			if k.Kind() == reflect.String {
				if err := checkString(k.String(), path+" key"); err != nil {
					return err
				}
			}
			if err := checkValue(it.Value(), fmt.Sprintf("%s[%v]", path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkString(s, path string) error {
	if utf8.ValidString(s) {
		return nil
	}
	i := invalidUTF8([]byte(s))
	return fmt.Errorf("%s: byte 0x%02x at offset %d is not valid UTF-8 (requests are JSON, which carries UTF-8 text only)", path, s[i], i)
}
