package eval

import (
	"math"
	"strconv"
	"strings"
)

// Conversions between value types as HTCondor's library makes them
// (convertValueToRealValue, convertValueToIntegerValue,
// convertValueToStringValue). Strings are read as C's strtod reads them: the
// longest numeric prefix after leading white space ("42abc" is 42, " 3.7"
// is 3.7, "0x1A" is 26, "abc" and "" are not numbers), and int() truncates
// that real. Relative times pass through a C int, so they lose their
// fraction.

// cSpace reports whether c is white space for C's isspace in the C locale.
func cSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// trimCSpace removes leading and trailing C white space.
func trimCSpace(s string) string {
	i, j := 0, len(s)
	for i < j && cSpace(s[i]) {
		i++
	}
	for j > i && cSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// strtod reads the longest prefix of s that C's strtod accepts, after
// leading white space, and returns its value and the number of bytes read
// (0, and the value 0, when no number starts there).
func strtod(s string) (float64, int) {
	i := 0
	for i < len(s) && cSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	neg := i > start && s[start] == '-'
	if f, n := strtodWord(s[i:], neg); n > 0 {
		return f, i + n
	}
	var n int
	var hex bool
	if n, hex = hexMantissa(s[i:]); n == 0 {
		n = decimalMantissa(s[i:])
	}
	if n == 0 {
		return 0, 0
	}
	end := i + n
	end += exponent(s[end:], hex)
	text := s[start:end]
	if hex && !strings.ContainsAny(text, "pP") {
		text += "p0"
	}
	f, _ := strconv.ParseFloat(text, 64)
	return f, end
}

// strtodWord reads "inf", "infinity" or "nan" (with an optional
// "(chars)"), in any case.
func strtodWord(s string, neg bool) (float64, int) {
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case hasFoldPrefix(s, "infinity"):
		return math.Inf(int(sign)), 8
	case hasFoldPrefix(s, "inf"):
		return math.Inf(int(sign)), 3
	case hasFoldPrefix(s, "nan"):
		n := 3
		if rest := s[3:]; strings.HasPrefix(rest, "(") {
			if j := strings.IndexByte(rest, ')'); j > 0 && isNanChars(rest[1:j]) {
				n += j + 1
			}
		}
		return math.Copysign(math.NaN(), sign), n
	}
	return 0, 0
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isNanChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// digitRun returns the length of the run of digits at the start of s.
func digitRun(s string, digit func(byte) bool) int {
	n := 0
	for n < len(s) && digit(s[n]) {
		n++
	}
	return n
}

// decimalMantissa returns the length of digits[.digits] at the start of s,
// or 0 if there is no digit.
func decimalMantissa(s string) int {
	n := digitRun(s, isDigit)
	if n < len(s) && s[n] == '.' {
		if f := digitRun(s[n+1:], isDigit); n > 0 || f > 0 {
			return n + 1 + f
		}
	}
	return n
}

// hexMantissa returns the length of 0x hexdigits[.hexdigits] at the start
// of s, or 0 if s does not start with one.
func hexMantissa(s string) (int, bool) {
	if len(s) < 3 || s[0] != '0' || s[1]|0x20 != 'x' {
		return 0, false
	}
	n := digitRun(s[2:], isHexDigit)
	f := 0
	dot := 2+n < len(s) && s[2+n] == '.'
	if dot {
		f = digitRun(s[3+n:], isHexDigit)
	}
	switch {
	case n == 0 && f == 0:
		return 0, false
	case dot:
		return 3 + n + f, true
	}
	return 2 + n, true
}

// exponent returns the length of an exponent (e or p, sign, digits) at the
// start of s, or 0 if there is none.
func exponent(s string, hex bool) int {
	mark := byte('e')
	if hex {
		mark = 'p'
	}
	if len(s) == 0 || s[0]|0x20 != mark {
		return 0
	}
	i := 1
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if d := digitRun(s[i:], isDigit); d > 0 {
		return i + d
	}
	return 0
}

// realToInt converts a real to an integer as a C cast does on x86-64:
// truncation, with NaN and out-of-range values giving the most negative
// integer.
func realToInt(f float64) int64 {
	if math.IsNaN(f) || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

// realToInt32 converts a real to a C int as x86-64 does.
func realToInt32(f float64) int32 {
	if math.IsNaN(f) || f >= 2147483648 || f < -2147483648 {
		return math.MinInt32
	}
	return int32(f)
}

// toRealValue converts v to a real. When it cannot, the value to give back
// is UNDEFINED for UNDEFINED and ERROR otherwise.
func toRealValue(v Value) (float64, Value, bool) {
	switch v.kind {
	case BoolKind, IntKind:
		return float64(v.i()), Value{}, true
	case RealKind:
		return v.r(), Value{}, true
	case AbsTimeKind:
		return float64(v.i()), Value{}, true
	case RelTimeKind:
		return float64(realToInt32(v.r())), Value{}, true
	case StringKind:
		if f, n := strtod(v.str()); n > 0 {
			return f, Value{}, true
		}
	case UndefinedKind:
		return 0, Undefined(), false
	}
	return 0, Error(), false
}

// toIntValue converts v to an integer, as toRealValue does.
func toIntValue(v Value) (int64, Value, bool) {
	switch v.kind {
	case BoolKind, IntKind:
		return v.i(), Value{}, true
	case RealKind:
		return realToInt(v.r()), Value{}, true
	case AbsTimeKind:
		return v.i(), Value{}, true
	case RelTimeKind:
		return int64(realToInt32(v.r())), Value{}, true
	case StringKind:
		if f, n := strtod(v.str()); n > 0 {
			return realToInt(f), Value{}, true
		}
	case UndefinedKind:
		return 0, Undefined(), false
	}
	return 0, Error(), false
}

// toStringValue converts v to a string as string() does: strings as they
// are, times as their text (without the absTime/relTime wrapper), other
// values as they print. UNDEFINED and ERROR do not convert.
func toStringValue(v Value) (string, Value, bool) {
	switch v.kind {
	case StringKind:
		return v.str(), Value{}, true
	case UndefinedKind, ErrorKind:
		return "", v, false
	case IntKind:
		return strconv.FormatInt(v.i(), 10), Value{}, true
	case AbsTimeKind:
		return string(AppendAbsTime(nil, v.i(), v.tz)), Value{}, true
	case RelTimeKind:
		return FormatRelTime(float64(realToInt32(v.r()))), Value{}, true
	}
	return string(v.Append(nil)), Value{}, true
}

// toString is toStringValue without the failure value.
func toString(v Value) (string, bool) {
	s, _, ok := toStringValue(v)
	return s, ok
}

// FormatRelTime returns a relative time as HTCondor writes it inside
// relTime("..."): [-][D+]HH:MM:SS, dropping leading zero fields (so 65
// seconds is "01:05" and 5 is "05"), with a fraction printed as C's %g.
func FormatRelTime(secs float64) string {
	var b strings.Builder
	if secs < 0 {
		b.WriteByte('-')
		secs = -secs
	}
	frac := secs - math.Floor(secs)
	days := realToInt32(secs)
	hrs := days % 86400
	mins := hrs % 3600
	sec := float64(mins%60) + frac
	days, hrs, mins = days/86400, hrs/3600, mins/60
	switch {
	case days != 0:
		b.WriteString(strconv.Itoa(int(days)) + "+" + two(hrs) + ":" + two(mins) + ":")
	case hrs != 0:
		b.WriteString(two(hrs) + ":" + two(mins) + ":")
	case mins != 0:
		b.WriteString(two(mins) + ":")
	}
	b.WriteString(secondsText(sec, frac))
	return b.String()
}

// two formats n as C's %02d.
func two(n int32) string {
	s := strconv.Itoa(int(n))
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

// secondsText formats seconds as %02d when whole, else as %02g.
func secondsText(sec, frac float64) string {
	if frac == 0 {
		return two(int32(sec))
	}
	s := strconv.FormatFloat(sec, 'g', 6, 64)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
