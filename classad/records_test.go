package classad

import (
	"slices"
	"testing"
)

// Records follow one another in a text of new-syntax ads (a plugin's
// results, kite advertise's input, a JSON-lines request): brackets inside
// string literals and quoted names do not count.
func TestSplitRecords(t *testing.T) {
	for in, want := range map[string][]string{
		"[a=1]\n[b=\"]\"]   ":       {"[a=1]", `[b="]"]`},
		"  [ x = [ y = 1 ] ] [z=2]": {"[ x = [ y = 1 ] ]", "[z=2]"},
		"[ 'a]b' = 1 ]":             {"[ 'a]b' = 1 ]"},
		`[s = "\"]"]`:               {`[s = "\"]"]`},
		"":                          nil,
		" \n ":                      nil,
		"[a=1] [unclosed":           {"[a=1]", "[unclosed"},
	} {
		if got := SplitRecords(in); !slices.Equal(got, want) {
			t.Errorf("SplitRecords(%q) = %q, want %q", in, got, want)
		}
	}
}
