package parser

import (
	"errors"
	"strings"
)

// unescape decodes the escape sequence at the start of s (which begins with
// a backslash) into b and returns how many bytes of s it used.
//
// The new ClassAd syntax knows the C escapes \a \b \f \n \r \t \v \\ \? \'
// \" and octal \ooo (one to three digits, at most \377). Any other escaped
// character stands for itself. An octal escape for the NUL byte is an error,
// as in HTCondor, whose strings cannot hold one.
func unescape(b *strings.Builder, s string) (int, error) {
	if len(s) < 2 {
		return 0, errors.New("string ends with a lone backslash")
	}
	c := s[1]
	if r, ok := simpleEscapes[c]; ok {
		b.WriteByte(r)
		return 2, nil
	}
	if c == 0 {
		return 0, errors.New("string contains a NUL byte")
	}
	if c < '0' || c > '7' {
		b.WriteByte(c)
		return 2, nil
	}
	n, v := 1, 0
	maxDigits := 3
	if c > '3' {
		maxDigits = 2 // keeps the value within a byte
	}
	for n <= maxDigits && n < len(s) && s[n] >= '0' && s[n] <= '7' {
		v = v*8 + int(s[n]-'0')
		n++
	}
	if v == 0 {
		return 0, errors.New("string contains an escaped NUL byte")
	}
	b.WriteByte(byte(v))
	return n, nil
}

var simpleEscapes = map[byte]byte{
	'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
	'\\': '\\', '?': '?', '\'': '\'', '"': '"',
}
