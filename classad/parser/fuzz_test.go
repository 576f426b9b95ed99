package parser

import (
	"bufio"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// seeds holds one sample per syntax feature, plus the expressions of the
// first reference commands.
func seeds(f *testing.F) {
	for _, s := range []string{
		`1 + 2 * 3`, `-7 % 3`, `2.5e-3`, `.5`, `"a\"b\\c\n\101"`, `'quoted name'`, `a.b[1]`,
		`MY.x =?= TARGET.y`, `a is b isnt c`, `x ?: y ? 1 : 2`, `~5 << 2 >>> 1 >> 1`,
		`[ a = 1; b = { 1, "x", [ c = a ] } ]`, `.root + parent.x`, `f(g(1), {}, [])`,
		`TRUE && undefined || error`, `// c` + "\n" + `/* d */ 1`, `-9223372036854775808`,
		`strcat("a", b)[0]`, `(((1)))`, `x ? : y`, `a ?: -1`,
	} {
		f.Add(s)
	}
	file, err := os.Open("../testdata/conformance/public.in")
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 0; n < 40 && sc.Scan(); n++ {
		if rest, ok := strings.CutPrefix(sc.Text(), "EXPR "); ok {
			f.Add(rest)
		}
	}
}

// hasNonFinite reports whether e holds an infinite or NaN literal, which
// prints as real("INF") and so re-parses as a call.
func hasNonFinite(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(x ast.Expr) bool {
		if l, ok := x.(*ast.Literal); ok && l.Kind == ast.RealLit && (math.IsInf(l.Real, 0) || math.IsNaN(l.Real)) {
			found = true
		}
		return !found
	})
	return found
}

// FuzzParseExpr: nothing panics, and printing a parsed expression then
// parsing the text gives the same tree.
func FuzzParseExpr(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		printed := ast.String(e)
		again, err := ParseExpr(printed)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", src, printed, err)
		}
		if ast.String(again) != printed {
			t.Fatalf("%q printed as %q, then as %q", src, printed, ast.String(again))
		}
		if !hasNonFinite(e) && !ast.Equal(e, again) {
			t.Fatalf("%q: tree changed through %q", src, printed)
		}
	})
}

// FuzzParseOld: the old syntax never panics, and an ad printed in it
// parses back to the same ad.
func FuzzParseOld(f *testing.F) {
	f.Add("A = 1\nB = \"x\\\"y\"\n# comment\nC = A + B\n")
	f.Add("Requirements = (TARGET.Memory >= 10) && stringListMember(\"a\", L)\n")
	f.Fuzz(func(t *testing.T, src string) {
		r, err := ParseOld(src)
		if err != nil {
			return
		}
		var b []byte
		for _, a := range r.Attrs {
			b = ast.AppendOldAttr(b, a.Name, a.Value)
			b = append(b, '\n')
		}
		again, err := ParseOld(string(b))
		if err != nil {
			// Old-syntax strings cannot hold a newline or end in a
			// backslash; such values do not round-trip (nor in HTCondor).
			if strings.ContainsAny(src, "\\\n\r") {
				return
			}
			t.Fatalf("%q printed as %q, which does not parse: %v", src, b, err)
		}
		if !hasNonFinite(r) && ast.String(again) != ast.String(r) {
			t.Fatalf("%q: %s became %s", src, ast.String(r), ast.String(again))
		}
	})
}

// FuzzParseJSON: JSON never panics, and an ad written as JSON reads back
// the same.
func FuzzParseJSON(f *testing.F) {
	f.Add(`{"a": 1, "b": "x", "c": [1, {"d": null}], "e": "\/Expr(a + 1)\/", "f": 2.5}`)
	f.Add(`{"Requirements": "\/Expr(TARGET.Memory >= 2048)\/", "Owner": "alice"}`)
	f.Fuzz(func(t *testing.T, src string) {
		r, err := ParseJSON([]byte(src))
		if err != nil {
			return
		}
		out := ast.AppendJSON(nil, r, false)
		again, err := ParseJSON(out)
		if err != nil {
			t.Fatalf("%q written as %q, which does not parse: %v", src, out, err)
		}
		if got := string(ast.AppendJSON(nil, again, false)); got != string(out) {
			t.Fatalf("%q: %s became %s", src, out, got)
		}
	})
}
