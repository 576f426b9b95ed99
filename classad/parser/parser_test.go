package parser

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// tree prints e with every operation in parentheses, so that a test shows
// how the parser grouped it.
func tree(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Binary:
		return fmt.Sprintf("(%s %s %s)", tree(x.X), x.Op, tree(x.Y))
	case *ast.Unary:
		return fmt.Sprintf("(%s%s)", x.Op, tree(x.X))
	case *ast.Cond:
		return fmt.Sprintf("(%s ? %s : %s)", tree(x.Cond), tree(x.Then), tree(x.Else))
	case *ast.Paren:
		return fmt.Sprintf("[%s]", tree(x.X))
	case *ast.Select:
		return fmt.Sprintf("%s.%s", tree(x.X), x.Name)
	case *ast.Index:
		return fmt.Sprintf("%s[%s]", tree(x.X), tree(x.Index))
	case *ast.Call:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = tree(a)
		}
		return fmt.Sprintf("%s(%s)", x.Name, strings.Join(args, ", "))
	}
	return ast.String(e)
}

func TestPrecedence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1 + 2 * 3", "(1 + (2 * 3))"},
		{"10 - 2 - 3", "((10 - 2) - 3)"},
		{"a || b && c", "(a || (b && c))"},
		{"a && b || c", "((a && b) || c)"},
		{"a | b ^ c & d", "(a | (b ^ (c & d)))"},
		{"a == b < c", "(a == (b < c))"},
		{"a << 1 + 2", "(a << (1 + 2))"},
		{"a < b << 2", "(a < (b << 2))"},
		{"-a * b", "((-a) * b)"},
		{"!a && b", "((!a) && b)"},
		{"- - 1", "(-(-1))"},
		{"a is b == c", "((a is b) == c)"},
		{"a isnt b", "(a isnt b)"},
		{"a =?= b && c =!= d", "((a is b) && (c isnt d))"},
		{"a ? b : c ? d : e", "(a ? b : (c ? d : e))"},
		{"a || b ? c : d", "((a || b) ? c : d)"},
		{"x ?: y", "(x ?: y)"},
		{"a ?: b ? c : d", "((a ?: b) ? c : d)"},
		{"a + b ?: c", "(a + (b ?: c))"},
		{"a ?: b ?: c", "((a ?: b) ?: c)"},
		{"x ? : y", "(x ?: y)"},
		{"x ?: -1", "(x ?: (-1))"},
		{"x ?: TARGET.a.b", "(x ?: TARGET.a.b)"},
		{"MY.x.y[1]", "MY.x.y[1]"},
		{"f(1, g(2), a + b)[0]", "f(1, g(2), (a + b))[0]"},
		{"(a + b) * c", "([(a + b)] * c)"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"-2 - -3", "((-2) - (-3))"},
		{"a.b.c", "a.b.c"},
		{".a + b", "(.a + b)"},
	}
	for _, tt := range tests {
		e, err := ParseExpr(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got := tree(e); got != tt.want {
			t.Errorf("%q parsed as %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestLiterals(t *testing.T) {
	tests := []struct {
		in   string
		kind ast.LitKind
		want any
	}{
		{"42", ast.IntLit, int64(42)},
		{"0", ast.IntLit, int64(0)},
		{"9223372036854775807", ast.IntLit, int64(math.MaxInt64)},
		{"2.5", ast.RealLit, 2.5},
		{"1e3", ast.RealLit, 1000.0},
		{"1.5E-2", ast.RealLit, 0.015},
		{".5", ast.RealLit, 0.5},
		{"5.", ast.RealLit, 5.0},
		{"1e309", ast.RealLit, math.Inf(1)},
		{"TRUE", ast.BoolLit, true},
		{"False", ast.BoolLit, false},
		{"UNDEFINED", ast.UndefinedLit, nil},
		{"Error", ast.ErrorLit, nil},
		{`"a\"b"`, ast.StringLit, `a"b`},
		{`"tab\there\n"`, ast.StringLit, "tab\there\n"},
		{`"back\\slash"`, ast.StringLit, `back\slash`},
		{`"\101\x"`, ast.StringLit, "Ax"},
		{`"quote \' ok"`, ast.StringLit, "quote ' ok"},
		{`"été"`, ast.StringLit, "été"},
		{`""`, ast.StringLit, ""},
	}
	for _, tt := range tests {
		e, err := ParseExpr(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		l, ok := e.(*ast.Literal)
		if !ok || l.Kind != tt.kind {
			t.Errorf("%q: got %T %v, want literal kind %d", tt.in, e, ast.String(e), tt.kind)
			continue
		}
		var got any
		switch l.Kind {
		case ast.IntLit:
			got = l.Int
		case ast.RealLit:
			got = l.Real
		case ast.BoolLit:
			got = l.Bool
		case ast.StringLit:
			got = l.Str
		}
		if got != tt.want {
			t.Errorf("%q: got %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

// TestSyntaxErrors checks that errors say where and what.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1 +", "1:4: expected an expression, found end of input"},
		{"(1", `1:3: expected ")" to close "(" at 1:1, found end of input`},
		{"[a = ]", `1:6: expected an expression, found "]"`},
		{"1 2", `1:3: unexpected "2" after the end of the expression`},
		{"2 ** 3", `1:4: expected an expression, found "*"`},
		{"010", `1:1: invalid number "010"`},
		{"0x10", `1:1: invalid number "0x10"`},
		{"12abc", `1:1: invalid number "12abc"`},
		{`"abc`, "1:1: string not terminated"},
		{`"a\0"`, "1:3: string contains an escaped NUL byte"},
		{"a @ b", `1:3: unexpected character '@'`},
		{"/* open", "1:1: comment not terminated"},
		{"f(1,", "1:5: expected an expression, found end of input"},
		{"{1, 2", `1:6: expected "}" to close "{" at 1:1, found end of input`},
		{"[a = 1; true = 2]", `1:9: expected an attribute name in record, found "true"`},
		{"a.1", `1:2: unexpected ".1" after the end of the expression`},
		{"x ?: -y", `1:7: expected a number after "-" on the right of ?:, found "y"`},
		{"is", `1:1: expected an expression, found operator "is"`},
		{"9223372036854775808", "1:1: integer 9223372036854775808 is out of range"},
		{"a ?", "1:4: expected an expression, found end of input"},
		{"a ? b", `1:6: expected ":" to close "?" at 1:3, found end of input`},
		{"\n\n  x = = 1", `3:5: unexpected "=" after the end of the expression`},
	}
	for _, tt := range tests {
		_, err := ParseExpr(tt.in)
		if err == nil {
			t.Errorf("%q: no error, want %q", tt.in, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %q, want %q", tt.in, err, tt.want)
		}
	}
}

func TestErrorCaret(t *testing.T) {
	_, err := ParseRecord("[\n  a = 1;\n  b = (a +\n]", Filename("job.ad"))
	want := "job.ad:4:1: expected an expression, found \"]\"\n    ]\n    ^"
	if err == nil || err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	pe := err.(*Error)
	if pe.Line != 4 || pe.Column != 1 || pe.Filename != "job.ad" {
		t.Errorf("position %s:%d:%d", pe.Filename, pe.Line, pe.Column)
	}
}

func TestNestingLimit(t *testing.T) {
	deep := strings.Repeat("(", MaxDepth+1) + "1" + strings.Repeat(")", MaxDepth+1)
	if _, err := ParseExpr(deep); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("deep nesting: got %v", err)
	}
	ok := strings.Repeat("(", MaxDepth/2-1) + "1" + strings.Repeat(")", MaxDepth/2-1)
	if _, err := ParseExpr(ok); err != nil {
		t.Errorf("moderate nesting: %v", err)
	}
	neg := strings.Repeat("-", MaxDepth+1) + "1"
	if _, err := ParseExpr(neg); err == nil {
		t.Error("deeply nested unary operators parsed")
	}
}

func TestRecords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[]", "[  ]"},
		{"[a = 1]", "[ a = 1 ]"},
		{"[a = 1;]", "[ a = 1 ]"},
		{"[ a = 1; b = a + 1 ]", "[ a = 1; b = a + 1 ]"},
		{"[ x = 1; y = 2; X = x * 2 ]", "[ x = x * 2; y = 2 ]"},
		{"[ 'odd name' = 1; b = 'odd name' ]", "[ 'odd name' = 1; b = 'odd name' ]"},
		{"[ r = [ s = { 1, [ t = 2 ] } ] ]", "[ r = [ s = { 1,[ t = 2 ] } ] ]"},
		{"// comment\n[ a = /* inline */ 1 ]", "[ a = 1 ]"},
	}
	for _, tt := range tests {
		r, err := ParseRecord(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got := ast.String(r); got != tt.want {
			t.Errorf("%q printed as %s, want %s", tt.in, got, tt.want)
		}
	}
	if _, err := ParseRecord("1 + 2"); err == nil {
		t.Error("ParseRecord accepted an expression that is not an ad")
	}
}

// TestManyAttributes checks redefinition in large records, which use a
// hash index.
func TestManyAttributes(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		fmt.Fprintf(&b, "A%d = %d; ", i, i)
	}
	b.WriteString("a50 = -1; a99 = -2 ]")
	r, err := ParseRecord(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Attrs) != 100 {
		t.Fatalf("%d attributes, want 100", len(r.Attrs))
	}
	if got := ast.String(r.Attrs[50].Value); r.Attrs[50].Name != "A50" || got != "-1" {
		t.Errorf("A50 = %s (name %s)", got, r.Attrs[50].Name)
	}
	if got := ast.String(r.Attrs[99].Value); got != "-2" {
		t.Errorf("A99 = %s", got)
	}
}

func TestOldSyntax(t *testing.T) {
	src := `# a job, as condor_q -long prints it
MyType = "Job"
Owner = "alice"
Iwd = "C:\jobs\run"
Quote = "say \"hi\""

Requirements = (TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64")
RequestMemory = 2048
`
	r, err := ParseOld(src, Filename("job.long"))
	if err != nil {
		t.Fatal(err)
	}
	want := `[ MyType = "Job"; Owner = "alice"; Iwd = "C:\\jobs\\run"; Quote = "say \"hi\""; ` +
		`Requirements = (TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64"); RequestMemory = 2048 ]`
	if got := ast.String(r); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	_, err = ParseOld("A = 1\nB = (1 +\nC = 3\n", Filename("bad.long"))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.long:2:9: expected an expression, found end of line") {
		t.Errorf("error %v", err)
	}
	if _, err := ParseOld("true = 1\n"); err == nil {
		t.Error("a reserved word named an attribute")
	}
}

func TestParseAdDetectsSyntax(t *testing.T) {
	for _, src := range []string{"[ a = 1; b = 2 ]", "  // c\n[ a = 1; b = 2 ]", "a = 1\nb = 2\n"} {
		r, err := ParseAd(src)
		if err != nil || len(r.Attrs) != 2 {
			t.Errorf("%q: %v %v", src, r, err)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	src := `[ a = 1; b = -2.5; c = "x\ny\"z"; d = undefined; e = error; f = { 1,a + 1,[ x = 2 ] }; ` +
		`g = a * 2; h = 100.0; i = real("INF"); j = -7; k = true; l = 0.0 ]`
	r, err := ParseRecord(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, indent := range []bool{false, true} {
		data := ast.AppendJSON(nil, r, indent)
		back, err := ParseJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		want := `[ a = 1; b = -2.500000000000000E+00; c = "x\ny\"z"; d = undefined; e = error; f = { 1,a + 1,[ x = 2 ] }; ` +
			`g = a * 2; h = 1.000000000000000E+02; i = real("INF"); j = -7; k = true; l = 0.0 ]`
		if got := ast.String(back); got != want {
			t.Errorf("indent %v: got %s\nwant %s", indent, got, want)
		}
	}
	want := `{"a": 1,"b": -2.5,"c": "x\ny\"z","d": null,"e": "\/Expr(error)\/","f": [1,"\/Expr(a + 1)\/",{"x": 2}],` +
		`"g": "\/Expr(a * 2)\/","h": 100.0,"i": "\/Expr(real(\"INF\"))\/","j": -7,"k": true,"l": 0.0}`
	if got := string(ast.AppendJSON(nil, r, false)); got != want {
		t.Errorf("json:\n got %s\nwant %s", got, want)
	}
}

func TestJSONErrors(t *testing.T) {
	for _, in := range []string{`[1]`, `{"a": }`, `{"a": "\/Expr(1 +)\/"}`, `{"": 1}`, `{"a": 1} x`, strings.Repeat(`{"a":`, 600)} {
		if _, err := ParseJSON([]byte(in)); err == nil {
			t.Errorf("%.40q: no error", in)
		}
	}
}

func TestParseJSONArray(t *testing.T) {
	data := []byte(` [ {"a": 1}, {"b": "x", "c": [1, 2]} ,{} ] `)
	recs, raws, err := ParseJSONArray(data)
	if err != nil || len(recs) != 3 {
		t.Fatalf("%v %v", recs, err)
	}
	for i, want := range []string{`{"a": 1}`, `{"b": "x", "c": [1, 2]}`, `{}`} {
		if string(raws[i]) != want {
			t.Errorf("raw %d = %q, want %q", i, raws[i], want)
		}
	}
	for _, bad := range []string{`{"a": 1}`, `[{"a": 1} {"b": 2}]`, `[{"a": 1}] x`, `[`} {
		if _, _, err := ParseJSONArray([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if recs, _, err := ParseJSONArray([]byte("[]")); err != nil || len(recs) != 0 {
		t.Errorf("empty array: %v %v", recs, err)
	}
}
