package classad

import (
	"strings"

	"github.com/kite-sched/kite/classad/ast"
)

// RecordEnd returns the end (exclusive) of the bracketed record that
// starts at or after i in a text of new-syntax ads, minding string
// literals and quoted names; len(text) when no record closes.
func RecordEnd(text string, i int) int {
	depth := 0
	for ; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' || c == '\'':
			i = ast.QuotedEnd(text, i) - 1
		case c == '[':
			depth++
		case c == ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(text)
}

// SplitRecords splits a text of new-syntax ads one after another ("[...]
// [...]") into each ad's text, leaving out blank space between them; text
// after the last closed record is a part of its own, for the parser to
// name the mistake.
func SplitRecords(text string) []string {
	var out []string
	for start := 0; start < len(text); {
		end := RecordEnd(text, start)
		if part := strings.TrimSpace(text[start:end]); part != "" {
			out = append(out, part)
		}
		start = end
	}
	return out
}
