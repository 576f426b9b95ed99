package ast

import "testing"

// A string literal or quoted name ends at its unescaped closing quote.
func TestQuotedEnd(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i    int
		want int
	}{
		{`"abc" rest`, 0, 5},
		{`x = "a\"]b" ]`, 4, 11},
		{`'odd name' = 1`, 0, 10},
		{`"unclosed`, 0, 9},
		{`"ends in \\" x`, 0, 12},
	} {
		if got := QuotedEnd(tc.s, tc.i); got != tc.want {
			t.Errorf("QuotedEnd(%q, %d) = %d, want %d", tc.s, tc.i, got, tc.want)
		}
	}
}
