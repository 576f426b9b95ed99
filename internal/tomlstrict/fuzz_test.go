package tomlstrict

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzScan checks that every key and array element of a text that parses
// has a position in the text, that reading it never panics, and that every
// error is an *Error.
func FuzzScan(f *testing.F) {
	for _, pattern := range []string{"../../configs/*.toml", "../../configs/examples/*.toml", "../../examples/sim/*.toml"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(string(data))
			}
		}
	}
	f.Add("a = 1\n[t]\n  b = [\n 1,\n 2 ]\nc = \"\"\"\nx = 1\n\"\"\"\n\"quoted.k\" = 2\n[[arr]]\nd.e = 3\n")
	f.Add("[[m]]\nf = { c = [ { at = 1 },\n  { at = 2 } ] }\n'q k' = '''\nx'''\n[m.s]\nd = 1979-05-27T07:32:00Z\n")
	f.Fuzz(func(t *testing.T, text string) {
		pos := Scan("f.toml", text) // must not panic, even on text that does not parse
		var doc map[string]any
		if _, err := toml.Decode(text, &doc); err != nil {
			return
		}
		lines := strings.Count(text, "\n") + 1
		walk("", doc, func(path string, v any) {
			p, ok := pos.Key(path)
			if !ok || p.Line < 1 || p.Line > lines || p.Col < 1 {
				t.Fatalf("%s at %v (%v) in\n%s", path, p, ok, text)
			}
			if s, isStr := v.(string); isStr {
				for _, off := range []int{0, len(s) / 2, len(s), len(s) + 1} {
					pos.InString(path, off) // must not panic
				}
			}
		})
		_, r, err := Read("f.toml", text)
		if err != nil {
			t.Fatalf("Read refused what toml.Decode took: %v", err)
		}
		top := r.Table("", doc)
		top.Done()
		checkErrors(t, r.Err())
		var d document
		_, _, err = Decode("f.toml", text, &d)
		checkErrors(t, err)
	})
}

// walk calls f with the path and value of every key and array element of
// a decoded document.
func walk(path string, v any, f func(string, any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			f(Join(path, k), e)
			walk(Join(path, k), e, f)
		}
	case []map[string]any:
		for i, e := range x {
			f(Index(path, i), e)
			walk(Index(path, i), e, f)
		}
	case []any:
		for i, e := range x {
			f(Index(path, i), e)
			walk(Index(path, i), e, f)
		}
	}
}

// checkErrors fails unless every error joined in err is an *Error with a
// file.
func checkErrors(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var se *Error
		if !errors.As(e, &se) || se.Pos.File != "f.toml" {
			t.Fatalf("error without a position: %v", fmt.Sprint(e))
		}
	}
}
