package parser

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// attrsOf prints attributes one per line, each with its name's hash
// checked against ast.FoldHash (hashes may be nil).
func attrsOf(t *testing.T, attrs []ast.Attr, hashes []uint32) string {
	t.Helper()
	if hashes != nil && len(hashes) != len(attrs) {
		t.Fatalf("%d hashes for %d attributes", len(hashes), len(attrs))
	}
	var b strings.Builder
	for i, a := range attrs {
		if hashes != nil && hashes[i] != ast.FoldHash(a.Name) {
			t.Errorf("hash of %q is %#x, want %#x", a.Name, hashes[i], ast.FoldHash(a.Name))
		}
		fmt.Fprintf(&b, "%d %s = %s\n", a.At, a.Name, ast.String(a.Value))
	}
	return b.String()
}

// ParseRecordAttrs gives what ParseRecord gives, attributes or error,
// with every option: its fast path reads a whole record only, and
// counts the same nesting (HTCondor manual, "ClassAd Syntax": an ad is a
// record, names case-insensitive, a later definition replacing the
// earlier one).
func TestParseRecordAttrs(t *testing.T) {
	sources := []string{
		`[ a = 1; b = a + 1 ]`,
		`[]`,
		`[ a = 1; ]`,
		` /* c */ [ A = 1; b = [ c = { 1, [ d = 2 ] } ]; a = 3 ]  // end`,
		`[ a = (1); b = ((2)) ]`,
		`[ a = -(-1) ]`,
		`[ a = 1 ].a`,
		`[ a = 1 ] + 1`,
		`[ a = 1 ] [ b = 2 ]`,
		`([ a = 1 ])`,
		`1`,
		``,
		`[ a = 1`,
		`[ a = ; b = 2 ]`,
		`[ true = 1 ]`,
		`[ a = "x ]`,
		"[ a = 1;\n  b = 2 +\n]",
	}
	options := []struct {
		name string
		opts []Option
	}{
		{"none", nil},
		{"file name", []Option{Filename("job.ad")}},
		{"depth 1", []Option{WithLimits(Limits{Depth: 1})}},
		{"depth 2", []Option{WithLimits(Limits{Depth: 2})}},
		{"depth 3", []Option{WithLimits(Limits{Depth: 3})}},
		{"depth 4", []Option{WithLimits(Limits{Depth: 4})}},
		{"tokens 6", []Option{WithLimits(Limits{Tokens: 6})}},
		{"bytes 12", []Option{WithLimits(Limits{Bytes: 12})}},
	}
	for _, src := range sources {
		for _, o := range options {
			want, wantErr := ParseRecord(src, o.opts...)
			var got string
			err := ParseRecordAttrs(src, func(attrs []ast.Attr, hashes []uint32) {
				got = attrsOf(t, attrs, hashes)
			}, o.opts...)
			if !reflect.DeepEqual(err, wantErr) {
				t.Errorf("%q, %s: got error %v, want %v", src, o.name, err, wantErr)
				continue
			}
			if wantErr == nil && got != attrsOf(t, want.Attrs, nil) {
				t.Errorf("%q, %s: got\n%s\nwant\n%s", src, o.name, got, attrsOf(t, want.Attrs, nil))
			}
		}
	}
}

// ParseJSONAttrs gives what ParseJSON gives.
func TestParseJSONAttrs(t *testing.T) {
	for _, src := range []string{
		`{"a": 1, "B": "x", "r": "\/Expr(a + 1)\/", "A": 2}`,
		` {} `,
		`{"l": [1, {"x": 2, "X": 3}], "o": {"p": null}}`,
		`{"a": 1} {"b": 2}`,
		`{"a": 1`,
		`{"a": 1, }`,
		`{"": 1}`,
		`{"r": "\/Expr(a +)\/"}`,
		`[{"a": 1}]`,
		``,
	} {
		want, wantErr := ParseJSON([]byte(src))
		var got string
		err := ParseJSONAttrs([]byte(src), func(attrs []ast.Attr, hashes []uint32) {
			got = attrsOf(t, attrs, hashes)
		})
		if !reflect.DeepEqual(err, wantErr) {
			t.Errorf("%q: got error %v, want %v", src, err, wantErr)
			continue
		}
		if wantErr == nil && got != attrsOf(t, want.Attrs, nil) {
			t.Errorf("%q: got\n%s\nwant\n%s", src, got, attrsOf(t, want.Attrs, nil))
		}
	}
}

// JSON parses that fail part-way, at any nesting, leave the pooled
// scratch's definitions clean for the next parse.
func TestJSONParseAfterError(t *testing.T) {
	for _, bad := range []string{
		`{"a": 1, "b": {"c": 2, "d": `,
		`{"a": {"b": {"c": {"d": 1}}}, "e": [1, {"f": `,
		`{"a": "\/Expr([ x = 1; y = )\/"}`,
	} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Fatalf("%q parsed", bad)
		}
		if _, _, err := ParseJSONArray([]byte(`[{"a": {"z": 0}}, ` + bad + `]`)); err == nil {
			t.Fatalf("array with %q parsed", bad)
		}
		r, err := ParseJSON([]byte(`{"a": 1, "b": {"c": 2, "C": 3}, "A": {"d": 4}}`))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ast.String(r), `[ a = [ d = 4 ]; b = [ c = 3 ] ]`; got != want {
			t.Errorf("after %q: got %s, want %s", bad, got, want)
		}
	}
}

// FuzzParseAttrs: ParseRecordAttrs and ParseJSONAttrs give what
// ParseRecord and ParseJSON give, for any input.
func FuzzParseAttrs(f *testing.F) {
	seeds(f)
	f.Add(`[ a = 1; b = [ c = 2 ]; A = 3 ]`)
	f.Add(`{"a": 1, "b": "\/Expr(x + 1)\/", "A": [1, {"c": 2}]}`)
	f.Fuzz(func(t *testing.T, src string) {
		for _, s := range []string{src, "[ a = " + src + " ]", "[ " + src + " ]"} {
			want, wantErr := ParseRecord(s, WithLimits(Limits{Depth: 20}))
			var got string
			err := ParseRecordAttrs(s, func(attrs []ast.Attr, hashes []uint32) {
				got = attrsOf(t, attrs, hashes)
			}, WithLimits(Limits{Depth: 20}))
			if !reflect.DeepEqual(err, wantErr) {
				t.Fatalf("%q: got error %v, want %v", s, err, wantErr)
			}
			if wantErr == nil && got != attrsOf(t, want.Attrs, nil) {
				t.Fatalf("%q: got\n%s\nwant\n%s", s, got, attrsOf(t, want.Attrs, nil))
			}
		}
		want, wantErr := ParseJSON([]byte(src))
		var got string
		err := ParseJSONAttrs([]byte(src), func(attrs []ast.Attr, hashes []uint32) {
			got = attrsOf(t, attrs, hashes)
		})
		if !reflect.DeepEqual(err, wantErr) {
			t.Fatalf("%q: got error %v, want %v", src, err, wantErr)
		}
		if wantErr == nil && got != attrsOf(t, want.Attrs, nil) {
			t.Fatalf("%q: got\n%s\nwant\n%s", src, got, attrsOf(t, want.Attrs, nil))
		}
	})
}
