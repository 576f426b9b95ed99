package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// checkText refuses a request whose strings are not all UTF-8: JSON
// carries UTF-8 text only, and encoding/json would send U+FFFD in place
// of each bad byte, so that a tool would change what its user typed
// without a word. The error names the field and the byte's offset.
func checkText(v any) error {
	if bad := checkValue(reflect.ValueOf(v)); bad != nil {
		return bad.err("request")
	}
	return nil
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// badText is a string that is not UTF-8, and where it is: the steps to it
// from the request, innermost first (".Field", "[3]", " key"). They are
// put together only for the error, so that checking a request allocates
// nothing.
type badText struct {
	s     string
	steps []string
}

func (b *badText) err(root string) error {
	slices.Reverse(b.steps)
	path := root + strings.Join(b.steps, "")
	i := invalidUTF8([]byte(b.s))
	return fmt.Errorf("%s: byte 0x%02x at offset %d is not valid UTF-8 (requests are JSON, which carries UTF-8 text only)", path, b.s[i], i)
}

// in notes one more step out from the bad string, returning b.
func (b *badText) in(step string) *badText {
	b.steps = append(b.steps, step)
	return b
}

func checkValue(v reflect.Value) *badText {
	if !v.IsValid() || v.Type().Implements(marshaler) {
		return nil // the type encodes itself
	}
	switch v.Kind() {
	case reflect.String:
		return checkString(v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkValue(v.Elem())
	case reflect.Struct:
		for _, f := range exportedFields(v.Type()) {
			if bad := checkValue(v.Field(f.index)); bad != nil {
				return bad.in("." + f.name)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes are sent as base64
		}
		for i := range v.Len() {
			if bad := checkValue(v.Index(i)); bad != nil {
				return bad.in(fmt.Sprintf("[%d]", i))
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			k := it.Key()
			if k.Kind() == reflect.String {
				if bad := checkString(k.String()); bad != nil {
					return bad.in(" key")
				}
			}
			if bad := checkValue(it.Value()); bad != nil {
				return bad.in(fmt.Sprintf("[%v]", k))
			}
		}
	}
	return nil
}

func checkString(s string) *badText {
	if utf8.ValidString(s) {
		return nil
	}
	return &badText{s: s}
}

// field is an exported field of a struct type: its index and name.
type field struct {
	index int
	name  string
}

// fieldsOf caches exportedFields (reflect.Type.Field allocates).
var fieldsOf sync.Map // reflect.Type -> []field

// exportedFields returns the exported fields of struct type t.
func exportedFields(t reflect.Type) []field {
	if fs, ok := fieldsOf.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			fs = append(fs, field{i, f.Name})
		}
	}
	fieldsOf.Store(t, fs)
	return fs
}
