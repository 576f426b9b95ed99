package envargs

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitArgsV2(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"", []string{}, ""},
		{"a b  c", []string{"a", "b", "c"}, ""},
		{" \ta\n\rb ", []string{"a", "b"}, ""},
		{"'a b' c", []string{"a b", "c"}, ""},
		{"'it''s'", []string{"it's"}, ""},
		{"a''b", []string{"ab"}, ""},
		{"''", []string{""}, ""},
		{"'' ''", []string{"", ""}, ""},
		{`a"b\c`, []string{`a"b\c`}, ""},
		{"ab'c d'e fg", []string{"abc de", "fg"}, ""},
		{"x 'y z'w v", []string{"x", "y zw", "v"}, ""},
		{"pre 'q' post'q2' 'q3'tail end", []string{"pre", "q", "postq2", "q3tail", "end"}, ""},
		{"A=1 B='two words' C=3", []string{"A=1", "B=two words", "C=3"}, ""},
		{"'a", nil, "unbalanced quote starting here: 'a"},
		{"x 'a''", nil, "unbalanced quote"},
	}
	for _, tt := range tests {
		got, err := SplitArgsV2(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("SplitArgsV2(%q) error = %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || !reflect.DeepEqual(got, tt.want)):
			t.Errorf("SplitArgsV2(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// A token without quotes is a piece of the string: splitting a job's
// environment allocates only the list.
func TestSplitArgsV2Allocations(t *testing.T) {
	s := "ANALYSIS_MODE=full INPUT_DIR=/data/run42 OMP_NUM_THREADS=1 PATH=/usr/local/bin:/usr/bin:/bin"
	if n := testing.AllocsPerRun(100, func() { SplitArgsV2(s) }); n > 3 {
		t.Errorf("SplitArgsV2 of 4 plain tokens: %v allocations, want at most 3 (the list growing)", n)
	}
}

func TestJoinArgsV2(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a", "b"}, "a b"},
		{[]string{"a b"}, "a' 'b"},
		{[]string{"a  b"}, "a'  'b"},
		{[]string{"it's"}, "it''''s"},
		{[]string{""}, "''"},
		{[]string{"a", "", "b"}, "a '' b"},
		{[]string{" x"}, "' 'x"},
		{[]string{"tab\there"}, "tab'\t'here"},
	}
	for _, tt := range tests {
		got := JoinArgsV2(tt.in)
		if got != tt.want {
			t.Errorf("JoinArgsV2(%q) = %q, want %q", tt.in, got, tt.want)
		}
		back, err := SplitArgsV2(got)
		if err != nil || (len(tt.in) > 0 && !reflect.DeepEqual(back, tt.in)) {
			t.Errorf("SplitArgsV2(JoinArgsV2(%q)) = %q, %v", tt.in, back, err)
		}
	}
}

func TestArgsV1(t *testing.T) {
	if got := SplitArgsV1(" a  'b c'\t\"d\" "); !reflect.DeepEqual(got, []string{"a", "'b", "c'", `"d"`}) {
		t.Errorf("SplitArgsV1 = %q", got)
	}
	if got, err := JoinArgsV1([]string{"a", "'b'"}); got != "a 'b'" || err != nil {
		t.Errorf("JoinArgsV1 = %q, %v", got, err)
	}
	if _, err := JoinArgsV1([]string{"a b"}); err == nil || !strings.Contains(err.Error(), `"a b"`) {
		t.Errorf("JoinArgsV1 with a space: error = %v", err)
	}
}

func TestQuoting(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{`"a b"`, "a b", ""},
		{`  "say ""hi"""  `, `say "hi"`, ""},
		{`""`, "", ""},
		{`"a`, "", "unterminated double-quote"},
		{`"a" b`, "", "unexpected characters following double-quote"},
		{`a`, "", "expecting a double-quoted string"},
	}
	for _, tt := range tests {
		got, err := UnquoteV2(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("UnquoteV2(%q) error = %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("UnquoteV2(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if got := QuoteV2(`say "hi"`); got != `"say ""hi"""` {
		t.Errorf("QuoteV2 = %q", got)
	}
	if !IsV2Quoted(` "x"`) || IsV2Quoted(`x "y"`) {
		t.Error("IsV2Quoted")
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{`one \"two\" 'three'`, []string{"one", `"two"`, "'three'"}, ""},
		{`"one ""two"" 'spacey ''quoted'' argument'"`, []string{"one", `"two"`, "spacey 'quoted' argument"}, ""},
		{`a "b"`, nil, "illegal unescaped double-quote"},
		{`"a 'b"`, nil, "unbalanced quote"},
		{`"a`, nil, "unterminated"},
	}
	for _, tt := range tests {
		got, err := ParseArgs(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseArgs(%q) error = %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || !reflect.DeepEqual(got, tt.want)):
			t.Errorf("ParseArgs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestEnv(t *testing.T) {
	tests := []struct {
		name  string
		parse func(string) (*Env, error)
		in    string
		v2    string
		err   string
	}{
		{"v1", ParseEnvV1, "A=1;B=2", "A=1 B=2", ""},
		{"v1 sorted", ParseEnvV1, "B=2;A=1", "A=1 B=2", ""},
		{"v1 later wins", ParseEnvV1, "A=1;A=2", "A=2", ""},
		{"v1 blanks", ParseEnvV1, " A=x y ;\n B=2", "A=x' 'y' ' B=2", ""},
		{"v1 own delimiter", ParseEnvV1, "|A=1;2|B=3", "A=1;2 B=3", ""},
		{"v1 leading delimiter", ParseEnvV1, ";A=1", "A=1", ""},
		{"v1 empty", ParseEnvV1, "", "", ""},
		{"v1 empty entries", ParseEnvV1, "A=1;;B=", "A=1 B=", ""},
		{"v1 macro", ParseEnvV1, "A=1;$$(X)", "$$(X) A=1", ""},
		{"v1 dollar delimiter", ParseEnvV1, "$$(X);A=1", "(X);A=1", ""},
		{"v1 no equals", ParseEnvV1, "A", "", `missing '=' after environment variable "A"`},
		{"v1 no name", ParseEnvV1, "=1", "", `missing variable name in "=1"`},
		{"v2", ParseEnvV2, "A=1 B='x y'", "A=1 B=x' 'y", ""},
		{"v2 quote", ParseEnvV2, "A='it''s'", "A=it''''s", ""},
		{"v2 empty entry", ParseEnvV2, "''", "", "empty environment entry"},
		{"v2 unbalanced", ParseEnvV2, "A='x", "", "V2 environment: unbalanced quote"},
		{"submit v2", ParseEnv, `"A=1 B=""x"""`, `A=1 B="x"`, ""},
		{"submit v1", ParseEnv, "A=1;B=2", "A=1 B=2", ""},
	}
	for _, tt := range tests {
		env, err := tt.parse(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: %q error = %v, want %q", tt.name, tt.in, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%s: %q: %v", tt.name, tt.in, err)
		case tt.err == "" && env.V2() != tt.v2:
			t.Errorf("%s: %q gives %q, want %q", tt.name, tt.in, env.V2(), tt.v2)
		}
	}
}

func TestEnvV1Output(t *testing.T) {
	var e Env
	e.Set("B", "2")
	e.Set("A", "x y")
	if got, err := e.V1(';'); got != "A=x y;B=2" || err != nil {
		t.Errorf("V1 = %q, %v", got, err)
	}
	e.Set("C", "a;b")
	if _, err := e.V1(';'); err == nil || !strings.Contains(err.Error(), "C=a;b") {
		t.Errorf("V1 with the delimiter in a value: error = %v", err)
	}
	if got, err := e.V1('|'); got != "A=x y|B=2|C=a;b" || err != nil {
		t.Errorf("V1 with |: %q, %v", got, err)
	}
	if v, ok := e.Get("A"); !ok || v != "x y" || e.Len() != 3 {
		t.Errorf("Get/Len: %q %v %d", v, ok, e.Len())
	}
	if got := strings.Join(e.Names(), ","); got != "A,B,C" {
		t.Errorf("Names = %s", got)
	}
}
