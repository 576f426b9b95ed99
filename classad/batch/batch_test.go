package batch

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a ||| b", []string{"a", "b"}},
		{`[ s = "x ||| y" ] ||| e`, []string{`[ s = "x ||| y" ]`, "e"}},
		{`[ s = "q\"|||" ] ||| 'n|||m' ||| z`, []string{`[ s = "q\"|||" ]`, "'n|||m'", "z"}},
		{"only", []string{"only"}},
	}
	for _, tt := range tests {
		if got := Split(tt.in); strings.Join(got, "#") != strings.Join(tt.want, "#") {
			t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRun(t *testing.T) {
	var out strings.Builder
	in := "EXPR 1 + 1\nEVALIN [ a = 2 ] ||| a * 3\nMATCH [ Requirements = true ]\nUNPARSEAD [a=1]\n"
	if err := Run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := "2\n6\nBAD_COMMAND\n[ a = 1 ]\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
