package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// A later definition of a name (in any case) replaces the earlier one in
// place, keeping the first spelling and position, in every syntax and at
// every size: the small records' table and the large records' hashed one.
// (HTCondor manual, "ClassAd Syntax": attribute names are case-insensitive.)
func TestRedefinition(t *testing.T) {
	for _, n := range []int{1, 3, 31, 32, 33, 64, 300} {
		// Names a0..a(n-1), then every third one again in upper case.
		type def struct{ name, value string }
		var defs []def
		for i := range n {
			defs = append(defs, def{fmt.Sprintf("a%d", i), fmt.Sprint(i)})
		}
		for i := 0; i < n; i += 3 {
			defs = append(defs, def{fmt.Sprintf("A%d", i), fmt.Sprint(1000 + i)})
		}
		want := make([]string, n)
		for i := range n {
			v := i
			if i%3 == 0 {
				v = 1000 + i
			}
			want[i] = fmt.Sprintf("a%d = %d", i, v)
		}
		var newSyntax, oldSyntax, json strings.Builder
		newSyntax.WriteString("[ ")
		json.WriteString("{")
		for i, d := range defs {
			if i > 0 {
				newSyntax.WriteString("; ")
				json.WriteString(", ")
			}
			fmt.Fprintf(&newSyntax, "%s = %s", d.name, d.value)
			fmt.Fprintf(&oldSyntax, "%s = %s\n", d.name, d.value)
			fmt.Fprintf(&json, "%q: %s", d.name, d.value)
		}
		newSyntax.WriteString(" ]")
		json.WriteString("}")
		parsers := map[string]func() (*ast.Record, error){
			"new":    func() (*ast.Record, error) { return ParseRecord(newSyntax.String()) },
			"nested": func() (*ast.Record, error) { return nestedRecord(newSyntax.String()) },
			"old":    func() (*ast.Record, error) { return ParseOld(oldSyntax.String()) },
			"json":   func() (*ast.Record, error) { return ParseJSON([]byte(json.String())) },
		}
		for syntax, parse := range parsers {
			r, err := parse()
			if err != nil {
				t.Fatalf("%d attributes, %s syntax: %v", n, syntax, err)
			}
			got := make([]string, len(r.Attrs))
			for i, a := range r.Attrs {
				got[i] = a.Name + " = " + ast.String(a.Value)
			}
			if strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Errorf("%d attributes, %s syntax:\n got %v\nwant %v", n, syntax, got, want)
			}
		}
	}
}

// nestedRecord parses src as the middle record of a list inside records,
// so that the outer records' attributes are gathered around it.
func nestedRecord(src string) (*ast.Record, error) {
	r, err := ParseRecord("[ x = 1; y = { 1, [ z = 2 ], " + src + ", [ w = 3 ] }; x = 4 ]")
	if err != nil {
		return nil, err
	}
	if len(r.Attrs) != 2 || ast.String(r.Attrs[0].Value) != "4" {
		return nil, fmt.Errorf("outer record is %s", ast.String(r))
	}
	l := r.Attrs[1].Value.(*ast.List)
	if len(l.Elems) != 4 || ast.String(l.Elems[1]) != "[ z = 2 ]" || ast.String(l.Elems[3]) != "[ w = 3 ]" {
		return nil, fmt.Errorf("list is %s", ast.String(l))
	}
	return l.Elems[2].(*ast.Record), nil
}

// A parse that fails part-way leaves nothing behind for the next parse,
// which works in the same pooled scratch.
func TestParseAfterError(t *testing.T) {
	for _, bad := range []string{
		"[ a = 1; b = { 1, 2, [ c = ",
		"[ a = f(1, 2, [ b = 1; c = 2 ] ",
		"[ a = 1; b = 2; c = 3 +",
	} {
		if _, err := ParseRecord(bad); err == nil {
			t.Fatalf("%q parsed", bad)
		}
		r, err := ParseRecord("[ d = { 1, f(2, 3) }; e = [ g = 4 ] ]")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ast.String(r), `[ d = { 1,f(2,3) }; e = [ g = 4 ] ]`; got != want {
			t.Errorf("after %q: got %s, want %s", bad, got, want)
		}
	}
}
