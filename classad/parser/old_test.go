package parser

import (
	"fmt"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// The old syntax's document: blank and comment lines anywhere, the last
// line with or without its newline; anything after an expression on its
// line is an error at that token. (HTCondor manual, "ClassAd Syntax";
// condor_status -long prints a blank line after each ad.)
func TestOldLines(t *testing.T) {
	tests := []struct {
		src, want string // want: the ad, or the error as line:col: message
	}{
		{"", "[  ]"},
		{"\n\n", "[  ]"},
		{"A = 1", "[ A = 1 ]"},
		{"A = 1\n", "[ A = 1 ]"},
		{"A = 1\n\n", "[ A = 1 ]"},
		{"\n# c\nA = 1\n\n\n# d\nB = 2\n\n\n", "[ A = 1; B = 2 ]"},
		{"'a b' = 1\n", "[ 'a b' = 1 ]"},
		{"A = 1 2\n", `1:7: unexpected "2" after the end of the expression`},
		{"A 1\n", `1:3: unexpected "1" after the end of the expression`},
		{"A = 1\n= 3\n", `2:1: unexpected "=" after the end of the expression`},
		{"A = 1\nB\n", `2:2: unexpected end of line after the end of the expression`},
		{"A =\nB = 1\n", "1:4: expected an expression, found end of line"},
	}
	for _, tt := range tests {
		r, err := ParseOld(tt.src)
		got := ""
		if err != nil {
			e := err.(*Error)
			got = fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
		} else {
			got = ast.String(r)
		}
		if got != tt.want {
			t.Errorf("ParseOld(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}
