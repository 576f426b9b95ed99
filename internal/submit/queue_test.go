package submit

import (
	"fmt"
	"testing"
)

// TestParseQueueArgs checks the parts of queue statements.
func TestParseQueueArgs(t *testing.T) {
	tests := []struct {
		in   string
		want string // count|vars|mode|match|slice|items|file|open
	}{
		{"", "||0|0||[]||false"},
		{"5", "5||0|0||[]||false"},
		{" 2 * 3 ", "2 * 3||0|0||[]||false"},
		{"in (a, b c)", "|[]|1|0||[a b c]||false"},
		{"x in a,b", "|[x]|1|0||[a b]||false"},
		{"10 x,y in (1 2)", "10|[x y]|1|0||[1 2]||false"},
		{"3 x1 y_2 in(a)", "3|[x1 y_2]|1|0||[a]||false"},
		{"2*N x in (a)", "2*N|[x]|1|0||[a]||false"},
		{"x in [1:3] (a b c d)", "|[x]|1|0|1:3:-|[a b c d]||false"},
		{"x in [::2] (a b c d)", "|[x]|1|0|-:-:2|[a b c d]||false"},
		{"x in [-2:] (a b c d)", "|[x]|1|0|-2:-:-|[a b c d]||false"},
		{"a,b from (1 2 3)", "|[a b]|2|0||[1 2 3]||false"},
		{"a from data.txt", "|[a]|2|0||[]|data.txt|false"},
		{"a from gen.sh 3 |", "|[a]|2|0||[]|gen.sh 3 ||false"},
		{"a from (", "|[a]|2|0||[]||true"},
		{"a from ( first line", "|[a]|2|0||[first line]||true"},
		{"in (", "|[]|1|0||[]||true"},
		{"f matching files *.dat", "|[f]|3|1||[*.dat]||false"},
		{"matching dirs [1:] *", "|[]|3|2|1:-:-|[*]||false"},
		{"MATCHING any (a* b*)", "|[]|3|0||[a* b*]||false"},
		{"within", "within||0|0||[]||false"},
	}
	for _, tt := range tests {
		q, err := parseQueueArgs(tt.in)
		if err != nil {
			t.Errorf("parseQueueArgs(%q): %v", tt.in, err)
			continue
		}
		if got := formatQueue(q); got != tt.want {
			t.Errorf("parseQueueArgs(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func formatQueue(q queueArgs) string {
	sl := ""
	if q.slice.set {
		part := func(p *int) string {
			if p == nil {
				return "-"
			}
			return fmt.Sprint(*p)
		}
		sl = part(q.slice.start) + ":" + part(q.slice.stop) + ":" + part(q.slice.step)
	}
	vars := fmt.Sprint(q.vars)
	if q.vars == nil {
		vars = ""
	}
	return fmt.Sprintf("%s|%s|%d|%d|%s|%v|%s|%v", q.count, vars, q.mode, q.match, sl, q.items, q.file, q.open)
}

// TestParseQueueArgsErrors checks queue statements that are wrong.
func TestParseQueueArgsErrors(t *testing.T) {
	for _, in := range []string{
		"x in files (a)", "x from dirs f.txt", "x in [1:2 (a)", "x in [a:b] (a)",
		"x in [::0] (a)", "x in [::-1] (a)", "x in [1:2:3:4] (a)", "x from",
	} {
		if _, err := parseQueueArgs(in); err == nil {
			t.Errorf("parseQueueArgs(%q): no error", in)
		}
	}
}

// TestSliceSelected checks Python-style slices over 6 items.
func TestSliceSelected(t *testing.T) {
	n := func(i int) *int { return &i }
	tests := []struct {
		s    slice
		want string
	}{
		{slice{}, "012345"},
		{slice{set: true, start: n(2)}, "2345"},
		{slice{set: true, stop: n(2)}, "01"},
		{slice{set: true, start: n(-2)}, "45"},
		{slice{set: true, stop: n(-1)}, "01234"},
		{slice{set: true, step: n(2)}, "024"},
		{slice{set: true, start: n(1), step: n(3)}, "14"},
		{slice{set: true, start: n(10)}, ""},
	}
	for _, tt := range tests {
		got := ""
		for i := range 6 {
			if tt.s.selected(i, 6) {
				got += fmt.Sprint(i)
			}
		}
		if got != tt.want {
			t.Errorf("slice %+v selects %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestSplitItem checks how items are split among loop variables.
func TestSplitItem(t *testing.T) {
	tests := []struct {
		item string
		n    int
		want string
	}{
		{"a b c", 1, "[a b c]"},
		{"a b c", 2, "[a b c]"},
		{"a, b, c", 3, "[a b c]"},
		{"  a\tb", 2, "[a b]"},
		{"a", 3, "[a  ]"},
		{"a,,b", 3, "[a  b]"},
		{"x y\x1f second field \x1f", 3, "[x y second field ]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(splitItem(tt.item, tt.n)); got != tt.want {
			t.Errorf("splitItem(%q, %d) = %s, want %s", tt.item, tt.n, got, tt.want)
		}
	}
}
