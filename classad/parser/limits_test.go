package parser

import (
	"errors"
	"strings"
	"testing"
)

// Hostile expressions are refused by a bound, with the bound named, and
// before a large tree is built (issue 14 item 7: a 10^6-term constraint
// took a schedd from 84 to 602 MiB).
func TestLimits(t *testing.T) {
	huge := strings.Repeat("a && ", 1_000_000) + "a"
	deep := strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000)
	unary := strings.Repeat("-", 100_000) + "1"
	lists := strings.Repeat("{", 100_000) + strings.Repeat("}", 100_000)
	l := Limits{Bytes: 1 << 20, Tokens: 100_000, Depth: 50}
	tests := []struct {
		name   string
		src    string
		limits Limits
		limit  string // "" accepted
		msg    string
	}{
		{"10^6 terms, bounded bytes", huge, l, LimitBytes, "expression is longer than 1048576 bytes"},
		{"10^6 terms, bounded tokens", huge, Limits{Tokens: 100_000}, LimitTokens, "expression has more than 100000 tokens"},
		{"10^5 parentheses", deep, l, LimitDepth, "nested more than 50 levels deep"},
		{"10^5 parentheses, no limits", deep, Limits{}, LimitDepth, "nested more than 500 levels deep"},
		{"10^5 unary minus", unary, Limits{}, LimitDepth, "nested more than 500 levels deep"},
		{"10^5 lists", lists, Limits{}, LimitDepth, "nested more than 500 levels deep"},
		{"depth above the parser's", deep, Limits{Depth: 1 << 30}, LimitDepth, "nested more than 500 levels deep"},
		{"within the limits", "((a && b) || c[0].d) ? -1 : {1, 2}", Limits{Bytes: 40, Tokens: 25, Depth: 5}, "", ""},
		{"just over the bytes", "a && b", Limits{Bytes: 5}, LimitBytes, "longer than 5 bytes"},
		{"just over the tokens", "a && b", Limits{Tokens: 3}, LimitTokens, "more than 3 tokens"},
		{"just over the depth", "((1))", Limits{Depth: 2}, LimitDepth, "more than 2 levels"},
		{"a syntax error names no limit", "a &&", l, "", "expected an expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseExpr(tt.src, Filename("constraint"), WithLimits(tt.limits))
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *parser.Error", err)
			}
			if pe.Limit != tt.limit || !strings.Contains(pe.Msg, tt.msg) {
				t.Fatalf("got limit %q, %q; want %q, %q", pe.Limit, pe.Msg, tt.limit, tt.msg)
			}
			if n := len(err.Error()); n > 400 {
				t.Errorf("the error is %d bytes long: it repeats the source", n)
			}
		})
	}
}

// BenchmarkRefuseHuge measures refusing a 10^6-term expression by its
// token bound (the bytes bound refuses it without reading it).
func BenchmarkRefuseHuge(b *testing.B) {
	huge := strings.Repeat("a && ", 1_000_000) + "a"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseExpr(huge, WithLimits(Limits{Tokens: 100_000})); err == nil {
			b.Fatal("accepted")
		}
	}
}

// Strings must be valid UTF-8: the JSON ads are sent back in would not be
// valid otherwise (issue 14 item 8). The error gives the byte's position.
func TestInvalidUTF8(t *testing.T) {
	tests := []struct {
		name, src string
		json      bool
		want      string // "" accepted
	}{
		{"expression", "Note == \"ab\xffc\"", false, "1:12: byte 0xff is not valid UTF-8"},
		{"octal escape", `Note == "ab\377"`, false, "1:9: its escapes make the string's text invalid UTF-8"},
		{"quoted name", "'a\xc3' == 1", false, "1:3: byte 0xc3 is not valid UTF-8"},
		{"valid", `Note == "héllo ✓" && x == "\303\251"`, false, ""},
		{"json value", "{\"Note\": \"ab\xffc\"}", true, "offset 12: byte 0xff is not valid UTF-8"},
		{"json name", "{\"N\xe2\x82\": 1}", true, "offset 3: byte 0xe2 is not valid UTF-8"},
		{"json escaped", "{\"Note\": \"a\\n\xff\"}", true, "offset 13: byte 0xff"},
		{"json lone surrogate", `{"Note": "a\udc80"}`, true, `\udc80 is half of a UTF-16 surrogate pair`},
		{"json expression", "{\"R\": \"/Expr(x == \\\"\xff\\\")/\"}", true, "not valid UTF-8"},
		{"json valid", `{"Note": "h\u00e9 \ud83d\ude00 ✓"}`, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.json {
				_, err = ParseJSON([]byte(tt.src))
			} else {
				_, err = ParseExpr(tt.src)
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}
