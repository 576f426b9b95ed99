package submit

import (
	"fmt"
	"strconv"
	"strings"
)

// foreach says where a queue statement takes its items from.
type foreach uint8

const (
	foreachNone     foreach = iota // queue [N]
	foreachIn                      // queue [N] [vars] in [slice] items
	foreachFrom                    // queue [N] [vars] from [slice] file | (lines)
	foreachMatching                // queue [N] [vars] matching [files|dirs] [slice] globs
)

// matchKind restricts what `matching` globs may name.
type matchKind uint8

const (
	matchAny matchKind = iota
	matchFiles
	matchDirs
)

// queueArgs is the parsed text after the word `queue`:
//
//	[count] [var {, var}] in|from|matching [files|dirs|any] [slice] items
type queueArgs struct {
	count string   // the count expression; "" means 1
	vars  []string // loop variables; empty means Item
	mode  foreach
	match matchKind
	slice slice
	items []string // `in`/`matching` words, or the lines of an inline `from` list
	file  string   // `from` file name; a name ending in '|' is a command
	open  bool     // the list starts with '(' and continues on following lines
}

// slice is a Python-style [start:stop:step] selection of items. Missing
// parts are nil.
type slice struct {
	set               bool
	start, stop, step *int
}

// selected reports whether item i of n is selected.
func (s slice) selected(i, n int) bool {
	if !s.set {
		return true
	}
	lo, hi := 0, n
	if s.start != nil {
		lo = wrapIndex(*s.start, n)
	}
	if s.stop != nil {
		hi = wrapIndex(*s.stop, n)
	}
	if i < lo || i >= hi {
		return false
	}
	return s.step == nil || (i-lo)%*s.step == 0
}

// wrapIndex turns a negative index into one counted from the end.
func wrapIndex(i, n int) int {
	if i < 0 {
		return i + n
	}
	return i
}

// queueKeywords are the words that start an item list.
var queueKeywords = map[string]foreach{"in": foreachIn, "from": foreachFrom, "matching": foreachMatching}

// parseQueueArgs parses the arguments of a queue statement.
func parseQueueArgs(s string) (queueArgs, error) {
	var q queueArgs
	s = trimSpace(s)
	kwStart, kwEnd, mode := findQueueKeyword(s)
	if mode == foreachNone {
		q.count = s
		return q, nil
	}
	q.mode = mode
	rest, err := q.qualifiers(trimSpace(s[kwEnd:]))
	if err != nil {
		return q, err
	}
	if err := q.itemText(rest); err != nil {
		return q, err
	}
	q.count, q.vars = splitCountVars(trimSpace(s[:kwStart]))
	return q, nil
}

// findQueueKeyword finds the first word in, from or matching (delimited by
// white space or '(') and returns where it starts and ends.
func findQueueKeyword(s string) (int, int, foreach) {
	for i := 0; i < len(s); {
		if isBlank(s[i]) || s[i] == '(' {
			i++
			continue
		}
		j := i
		for j < len(s) && !isBlank(s[j]) && s[j] != '(' {
			j++
		}
		if m, ok := queueKeywords[strings.ToLower(s[i:j])]; ok {
			return i, j, m
		}
		i = j
	}
	return len(s), len(s), foreachNone
}

// qualifiers reads the optional files/dirs/any words and slice that may
// follow the keyword, and returns the rest of the text.
func (q *queueArgs) qualifiers(s string) (string, error) {
	for s != "" && s[0] != '(' {
		word := s
		if i := strings.IndexFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '(' }); i >= 0 {
			word = s[:i]
		}
		switch w := strings.ToLower(word); {
		case w == "files" || w == "dirs" || w == "any":
			if q.mode != foreachMatching {
				return "", fmt.Errorf("%q is allowed only after 'matching'", word)
			}
			q.match = map[string]matchKind{"files": matchFiles, "dirs": matchDirs, "any": matchAny}[w]
		case strings.HasPrefix(w, "["):
			n, err := q.parseSlice(s)
			if err != nil {
				return "", err
			}
			word = s[:n]
		default:
			return s, nil
		}
		s = trimSpace(s[len(word):])
	}
	return s, nil
}

// parseSlice reads a slice [start:stop:step] at the start of s and returns
// its length.
func (q *queueArgs) parseSlice(s string) (int, error) {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, fmt.Errorf("slice %q has no closing ']'", s)
	}
	parts := strings.Split(s[1:end], ":")
	if len(parts) > 3 {
		return 0, fmt.Errorf("invalid slice %q", s[:end+1])
	}
	fields := []**int{&q.slice.start, &q.slice.stop, &q.slice.step}
	for i, p := range parts {
		if p = trimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return 0, fmt.Errorf("invalid slice %q", s[:end+1])
		}
		*fields[i] = &n
	}
	if q.slice.step != nil && *q.slice.step <= 0 {
		return 0, fmt.Errorf("invalid slice %q: the step must be positive", s[:end+1])
	}
	q.slice.set = true
	return end + 1, nil
}

// itemText reads the item list (or file name) after the keyword.
func (q *queueArgs) itemText(s string) error {
	if strings.HasPrefix(s, "(") {
		body := s[1:]
		if strings.HasSuffix(body, ")") {
			body = body[:len(body)-1]
		} else {
			q.open = true
		}
		q.addItems(trimSpace(body))
		return nil
	}
	if q.mode == foreachFrom {
		if s == "" {
			return fmt.Errorf("'from' needs a file name or a list of items in parentheses")
		}
		q.file = s
		return nil
	}
	q.addItems(s)
	return nil
}

// addItems adds the items of one line of a list: the whole line for
// `from`, the words separated by commas and white space otherwise.
func (q *queueArgs) addItems(line string) {
	if line == "" {
		return
	}
	if q.mode == foreachFrom {
		q.items = append(q.items, line)
		return
	}
	q.items = append(q.items, splitList(line)...)
}

// splitList splits a list at commas and white space, dropping empty words.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// splitCountVars splits the text before the keyword into the count
// expression and the loop variable names: the variables are the longest
// run of names, separated by commas or white space, at the end.
func splitCountVars(s string) (string, []string) {
	end := len(s)
	start := end
	for i := end; i > 0; {
		j := i
		for j > 0 && (isBlank(s[j-1]) || s[j-1] == ',') {
			j--
		}
		k := j
		for k > 0 && isNameByte(s[k-1]) {
			k--
		}
		if k == j || !isNameStart(s[k]) || (k > 0 && !isBlank(s[k-1]) && s[k-1] != ',') {
			break
		}
		start, i = k, k
	}
	return trimSpace(s[:start]), splitList(s[start:])
}

// isNameByte reports whether c may appear in a macro or variable name.
func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// isNameStart reports whether c may start a variable name.
func isNameStart(c byte) bool { return c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z' }

// splitItem splits one item into the values of n loop variables: at the
// unit separator \x1F when the item has one, else at the first comma,
// space or tab for each variable but the last, which gets the rest.
// Missing values are empty.
func splitItem(item string, n int) []string {
	vals := make([]string, n)
	item, _ = trimLeft(item)
	sep := ", \t"
	us := strings.IndexByte(item, '\x1f') >= 0
	if us {
		sep = "\x1f"
	}
	for i := 0; i < n; i++ {
		if i == n-1 {
			vals[i] = item
			break
		}
		j := strings.IndexAny(item, sep)
		if j < 0 {
			vals[i] = item
			break
		}
		vals[i], item = item[:j], item[j+1:]
		item, _ = trimLeft(item)
	}
	if us {
		for i := range vals {
			vals[i] = trimSpace(vals[i])
		}
	}
	return vals
}
