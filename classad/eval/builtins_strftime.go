package eval

import (
	"strconv"
	"strings"
	"time"
)

// tm is C's broken-down time: what formatTime formats and getYear ...
// getSeconds read.
type tm struct {
	sec, min, hour, mday, mon, year, wday, yday int
	gmtoff                                      int    // seconds east of UTC
	zone                                        string // "" when unknown
}

// brokenDown returns t's fields in its own location.
func brokenDown(t time.Time) tm {
	zone, off := t.Zone()
	return tm{
		sec: t.Second(), min: t.Minute(), hour: t.Hour(),
		mday: t.Day(), mon: int(t.Month()) - 1, year: t.Year() - 1900,
		wday: int(t.Weekday()), yday: t.YearDay() - 1,
		gmtoff: off, zone: zone,
	}
}

// gmtime returns the fields of secs in UTC.
func gmtime(secs int64) tm { return brokenDown(time.Unix(secs, 0).UTC()) }

// localtime returns the fields of secs in the local zone.
func localtime(secs int64) tm { return brokenDown(time.Unix(secs, 0).Local()) }

var (
	weekdayNames = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	monthNames   = []string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// Strftime formats t with C's strftime conversions in the C locale.
func Strftime(format string, t time.Time) string { return strftime(format, brokenDown(t)) }

// strftime formats broken-down time as C's strftime does in the C locale
// (glibc): the flags - _ 0 ^ # and the E and O modifiers are accepted;
// an unknown conversion is copied as it is.
func strftime(format string, t tm) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-_0^#", format[j]) >= 0 {
			j++
		}
		for j < len(format) && (format[j] == 'E' || format[j] == 'O') {
			j++
		}
		if j == len(format) {
			b.WriteString(format[i:])
			break
		}
		s, ok := conversion(format[j], t)
		if !ok {
			s = format[i : j+1]
		} else {
			s = applyFlags(format[i+1:j], s)
		}
		b.WriteString(s)
		i = j
	}
	return b.String()
}

// applyFlags applies the - (no padding), _ (space padding), 0 and ^
// (upper case) flags to a converted field.
func applyFlags(flags, s string) string {
	for _, f := range flags {
		switch f {
		case '-':
			s = strings.TrimLeft(s, " ")
			if len(s) > 1 {
				s = strings.TrimLeft(s[:len(s)-1], "0") + s[len(s)-1:]
			}
		case '_':
			if n := len(s) - len(strings.TrimLeft(s, "0")); n > 0 && n < len(s) {
				s = strings.Repeat(" ", n) + s[n:]
			}
		case '0':
			s = strings.ReplaceAll(s, " ", "0")
		case '^':
			s = strings.ToUpper(s)
		}
	}
	return s
}

func pad(n, width int, fill byte) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for len(s) < width {
		s = string(fill) + s
	}
	if neg {
		s = "-" + s
	}
	return s
}

func abbrev(names []string, i, n int) string {
	if i < 0 || i >= len(names) {
		return "?"
	}
	return names[i][:n]
}

func fullName(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return "?"
	}
	return names[i]
}

// conversion returns the text of one conversion character.
func conversion(c byte, t tm) (string, bool) {
	if s, ok := dateConversion(c, t); ok {
		return s, true
	}
	if s, ok := clockConversion(c, t); ok {
		return s, true
	}
	return compositeConversion(c, t)
}

func dateConversion(c byte, t tm) (string, bool) {
	switch c {
	case 'a':
		return abbrev(weekdayNames, t.wday, 3), true
	case 'A':
		return fullName(weekdayNames, t.wday), true
	case 'b', 'h':
		return abbrev(monthNames, t.mon, 3), true
	case 'B':
		return fullName(monthNames, t.mon), true
	case 'C':
		return pad(floorDiv(t.year+1900, 100), 2, '0'), true
	case 'd':
		return pad(t.mday, 2, '0'), true
	case 'e':
		return pad(t.mday, 2, ' '), true
	case 'j':
		return pad(t.yday+1, 3, '0'), true
	case 'm':
		return pad(t.mon+1, 2, '0'), true
	case 'u':
		return strconv.Itoa((t.wday+6)%7 + 1), true
	case 'w':
		return strconv.Itoa(t.wday), true
	case 'U':
		return pad((t.yday+7-t.wday)/7, 2, '0'), true
	case 'W':
		return pad((t.yday+7-(t.wday+6)%7)/7, 2, '0'), true
	case 'y':
		return pad(((t.year+1900)%100+100)%100, 2, '0'), true
	case 'Y':
		return strconv.Itoa(t.year + 1900), true
	case 'G', 'g', 'V':
		return isoWeekConversion(c, t), true
	}
	return "", false
}

func clockConversion(c byte, t tm) (string, bool) {
	switch c {
	case 'H':
		return pad(t.hour, 2, '0'), true
	case 'k':
		return pad(t.hour, 2, ' '), true
	case 'I':
		return pad(hour12(t.hour), 2, '0'), true
	case 'l':
		return pad(hour12(t.hour), 2, ' '), true
	case 'M':
		return pad(t.min, 2, '0'), true
	case 'S':
		return pad(t.sec, 2, '0'), true
	case 'p':
		if t.hour >= 12 {
			return "PM", true
		}
		return "AM", true
	case 'P':
		if t.hour >= 12 {
			return "pm", true
		}
		return "am", true
	case 'z':
		return zoneOffset(t.gmtoff), true
	case 'Z':
		return zoneName(t), true
	case 's':
		return strconv.FormatInt(mktime(t), 10), true
	}
	return "", false
}

func compositeConversion(c byte, t tm) (string, bool) {
	switch c {
	case 'c':
		return strftime("%a %b %e %H:%M:%S %Y", t), true
	case 'D', 'x':
		return strftime("%m/%d/%y", t), true
	case 'F':
		return strftime("%Y-%m-%d", t), true
	case 'r':
		return strftime("%I:%M:%S %p", t), true
	case 'R':
		return strftime("%H:%M", t), true
	case 'T', 'X':
		return strftime("%H:%M:%S", t), true
	case 'n':
		return "\n", true
	case 't':
		return "\t", true
	case '%':
		return "%", true
	}
	return "", false
}

func hour12(h int) int {
	if h%12 == 0 {
		return 12
	}
	return h % 12
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func zoneOffset(off int) string {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	return string(sign) + pad(off/3600, 2, '0') + pad(off%3600/60, 2, '0')
}

// zoneName is %Z: the time's zone, or the local zone's standard name when
// the time does not say (as glibc falls back on tzname).
func zoneName(t tm) string {
	if t.zone != "" {
		return t.zone
	}
	jan := time.Date(time.Now().Year(), 1, 1, 0, 0, 0, 0, time.Local)
	jul := jan.AddDate(0, 6, 0)
	name, off := jan.Zone()
	if n2, off2 := jul.Zone(); off2 < off {
		name = n2
	}
	return name
}

// mktime is %s: the fields read as local standard time.
func mktime(t tm) int64 {
	return time.Date(t.year+1900, time.Month(t.mon+1), t.mday, t.hour, t.min, t.sec, 0, time.Local).Unix()
}

// isoWeekConversion gives %G, %g and %V: the ISO 8601 week-based year and
// week number.
func isoWeekConversion(c byte, t tm) string {
	d := time.Date(t.year+1900, time.January, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, t.yday)
	year, week := d.ISOWeek()
	switch c {
	case 'G':
		return strconv.Itoa(year)
	case 'g':
		return pad((year%100+100)%100, 2, '0')
	}
	return pad(week, 2, '0')
}
