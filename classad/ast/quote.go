package ast

// QuotedEnd returns the index just past the string literal or quoted
// attribute name that opens at s[i] (a double or a single quote), backslash escapes
// skipped; len(s) when it does not close. Scanners of ClassAd text use it
// to step over what may hold brackets or separators.
func QuotedEnd(s string, i int) int {
	q := s[i]
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return len(s)
}
