package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad/ast"
)

// Time functions: time, currentTime, timeZoneOffset, dayTime, absTime,
// relTime, formatTime, interval, splitTime, getYear ... getSeconds, inDays
// ... inSeconds. Absolute times carry the time-zone offset they are shown
// in; "local" is the evaluating host's zone.

func init() {
	register(
		impure("time", 0, 0, func(c *Call, _ []Value) Value { return Int(c.st.now().Unix()) }),
		impure("currentTime", 0, 0, func(c *Call, _ []Value) Value { return localAbsTime(c.st.now().Unix()) }),
		impure("timeZoneOffset", 0, 0, func(c *Call, _ []Value) Value {
			return RelTime(float64(localOffset(c.st.now().Unix())))
		}),
		impure("dayTime", 0, 0, func(c *Call, _ []Value) Value {
			t := c.st.now()
			return RelTime(float64(t.Hour()*3600 + t.Minute()*60 + t.Second()))
		}),
		impure("absTime", 0, 2, builtinAbsTime),
		fn("relTime", 1, 1, builtinRelTime),
		impure("formatTime", 0, 2, builtinFormatTime),
		fn("interval", 1, 1, builtinInterval),
		fn("splitTime", 1, 1, builtinSplitTime),
		absPart("getYear", func(t time.Time) int { return t.Year() }),
		absPart("getMonth", func(t time.Time) int { return int(t.Month()) }),
		absPart("getDayOfYear", func(t time.Time) int { return t.YearDay() - 1 }),
		absPart("getDayOfMonth", func(t time.Time) int { return t.Day() }),
		absPart("getDayOfWeek", func(t time.Time) int { return int(t.Weekday()) }),
		relPart("getDays", func(s float64) Value { return Int(int64(s) / 86400) }),
		relPart("getHours", func(s float64) Value { return Int(int64(s) % 86400 / 3600) }),
		relPart("getMinutes", func(s float64) Value { return Int(int64(s) % 3600 / 60) }),
		relPart("getSeconds", func(s float64) Value { return Real(math.Mod(s, 60)) }),
		relPart("inDays", func(s float64) Value { return Real(s / 86400) }),
		relPart("inHours", func(s float64) Value { return Real(s / 3600) }),
		relPart("inMinutes", func(s float64) Value { return Real(s / 60) }),
		relPart("inSeconds", func(s float64) Value { return Real(s) }),
	)
}

func localOffset(secs int64) int32 {
	_, off := time.Unix(secs, 0).Zone()
	return int32(off)
}

func localAbsTime(secs int64) Value { return AbsTime(secs, localOffset(secs)) }

func asTime(v Value) time.Time {
	return time.Unix(v.i(), 0).In(time.FixedZone("", int(v.tz)))
}

// builtinAbsTime is absTime() (now), absTime("2004-01-01T00:00:00-06:00"),
// or absTime(seconds [, zone offset]).
func builtinAbsTime(c *Call, a []Value) Value {
	if len(a) == 0 {
		return localAbsTime(c.st.now().Unix())
	}
	if v, bad := strictArgs(a...); bad {
		return v
	}
	if a[0].kind == StringKind {
		if len(a) == 2 {
			return Error()
		}
		return parseAbsTime(a[0].s)
	}
	if a[0].kind == AbsTimeKind && len(a) == 1 {
		return a[0]
	}
	r := toReal(a[0])
	if r.kind != RealKind {
		return Error()
	}
	secs := realToInt(r.r())
	if len(a) == 1 {
		return localAbsTime(secs)
	}
	z, ok := intArg(a[1])
	if !ok {
		return Error()
	}
	return AbsTime(secs, int32(z))
}

// parseAbsTime reads yyyy-mm-dd[Thh:mm[:ss]][Z|±hh[:mm]]; without a zone the
// time is local.
func parseAbsTime(s string) Value {
	s = strings.TrimSpace(s)
	layouts := []string{
		"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05Z07",
		"2006-01-02T15:04Z07:00", "2006-01-02 15:04:05Z07:00", "2006-01-02Z07:00",
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			_, off := t.Zone()
			return AbsTime(t.Unix(), int32(off))
		}
	}
	for _, l := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(l, s, time.Local); err == nil {
			return localAbsTime(t.Unix())
		}
	}
	return Error()
}

// builtinRelTime is relTime(seconds), a relative time, or
// relTime("[-][D+]HH:MM:SS[.fff]"), which HTCondor gives as the number of
// seconds (a real).
func builtinRelTime(_ *Call, a []Value) Value {
	switch v := a[0]; v.kind {
	case UndefinedKind, ErrorKind, RelTimeKind:
		return v
	case StringKind:
		secs, ok := parseRelTime(v.s)
		if !ok {
			return Error()
		}
		return Real(secs)
	}
	r := toReal(a[0])
	if r.kind != RealKind {
		return Error()
	}
	return RelTime(r.r())
}

// parseRelTime reads [-][D+][[HH:]MM:]SS[.fff].
func parseRelTime(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	days := 0.0
	if d, rest, ok := strings.Cut(s, "+"); ok {
		n, err := strconv.ParseUint(d, 10, 32)
		if err != nil {
			return 0, false
		}
		days, s = float64(n), rest
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 || s == "" {
		return 0, false
	}
	total := days * 86400
	for i, p := range parts {
		var x float64
		var err error
		if i == len(parts)-1 {
			x, err = strconv.ParseFloat(p, 64)
		} else {
			var n uint64
			n, err = strconv.ParseUint(p, 10, 32)
			x = float64(n)
		}
		if err != nil || x < 0 {
			return 0, false
		}
		total += x * math.Pow(60, float64(len(parts)-1-i))
	}
	if neg {
		total = -total
	}
	return total, true
}

// builtinFormatTime is formatTime([t] [, format]) with strftime's
// conversions, t in seconds (or an absolute time), the format "%c" by
// default, in the host's zone.
func builtinFormatTime(c *Call, a []Value) Value {
	t := c.st.now()
	format := "%c"
	if len(a) >= 1 {
		switch v := a[0]; v.kind {
		case IntKind:
			t = time.Unix(v.i(), 0)
		case RealKind:
			t = time.Unix(realToInt(v.r()), 0)
		case AbsTimeKind:
			t = asTime(v)
		case UndefinedKind, ErrorKind:
			return v
		default:
			return Error()
		}
	}
	if len(a) == 2 {
		if a[1].kind != StringKind {
			return Error()
		}
		format = a[1].s
	}
	if len(a) >= 1 && a[0].kind != AbsTimeKind {
		t = t.Local()
	}
	return String(Strftime(format, t))
}

// Strftime formats t with C strftime conversions (the C locale).
func Strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		b.WriteString(strftimeConversion(format[i], t))
	}
	return b.String()
}

func strftimeConversion(c byte, t time.Time) string {
	switch c {
	case 'a':
		return t.Format("Mon")
	case 'A':
		return t.Format("Monday")
	case 'b', 'h':
		return t.Format("Jan")
	case 'B':
		return t.Format("January")
	case 'c':
		return t.Format("Mon Jan _2 15:04:05 2006")
	case 'C':
		return fmt.Sprintf("%02d", t.Year()/100)
	case 'd':
		return t.Format("02")
	case 'D':
		return t.Format("01/02/06")
	case 'e':
		return t.Format("_2")
	case 'F':
		return t.Format("2006-01-02")
	case 'H':
		return t.Format("15")
	case 'I':
		return t.Format("03")
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay())
	case 'm':
		return t.Format("01")
	case 'M':
		return t.Format("04")
	case 'n':
		return "\n"
	case 'p':
		return t.Format("PM")
	case 'R':
		return t.Format("15:04")
	case 's':
		return strconv.FormatInt(t.Unix(), 10)
	case 'S':
		return t.Format("05")
	case 't':
		return "\t"
	case 'T', 'X':
		return t.Format("15:04:05")
	case 'u':
		return strconv.Itoa((int(t.Weekday())+6)%7 + 1)
	case 'U':
		return fmt.Sprintf("%02d", (t.YearDay()+6-int(t.Weekday()))/7)
	case 'w':
		return strconv.Itoa(int(t.Weekday()))
	case 'W':
		return fmt.Sprintf("%02d", (t.YearDay()+6-(int(t.Weekday())+6)%7)/7)
	case 'x':
		return t.Format("01/02/06")
	case 'y':
		return t.Format("06")
	case 'Y':
		return strconv.Itoa(t.Year())
	case 'z':
		return t.Format("-0700")
	case 'Z':
		return t.Format("MST")
	case '%':
		return "%"
	}
	return "%" + string(c)
}

// builtinInterval formats seconds as [D+]H:MM:SS, leaving out leading
// fields that are zero (67 is "1:07").
func builtinInterval(_ *Call, a []Value) Value {
	v := a[0]
	switch v.kind {
	case UndefinedKind, ErrorKind:
		return v
	}
	secs, ok := intArg(v)
	if !ok {
		return Error()
	}
	neg := ""
	if secs < 0 {
		neg, secs = "-", -secs
	}
	d, h, m, s := secs/86400, secs%86400/3600, secs%3600/60, secs%60
	switch {
	case d > 0:
		return String(fmt.Sprintf("%s%d+%02d:%02d:%02d", neg, d, h, m, s))
	case h > 0:
		return String(fmt.Sprintf("%s%d:%02d:%02d", neg, h, m, s))
	case m > 0:
		return String(fmt.Sprintf("%s%d:%02d", neg, m, s))
	}
	return String(fmt.Sprintf("%s%d", neg, s))
}

// builtinSplitTime returns the parts of an absolute or relative time as a
// record.
func builtinSplitTime(_ *Call, a []Value) Value {
	v := a[0]
	r := &ast.Record{At: ast.NoPos}
	switch v.kind {
	case AbsTimeKind:
		t := asTime(v)
		r.Set("Type", ast.Str("AbsoluteTime"))
		r.Set("Year", ast.Int(int64(t.Year())))
		r.Set("Month", ast.Int(int64(t.Month())))
		r.Set("Day", ast.Int(int64(t.Day())))
		r.Set("Hours", ast.Int(int64(t.Hour())))
		r.Set("Minutes", ast.Int(int64(t.Minute())))
		r.Set("Seconds", ast.Int(int64(t.Second())))
		r.Set("Offset", ast.Int(int64(v.tz)))
	case RelTimeKind:
		s := v.r()
		r.Set("Type", ast.Str("RelativeTime"))
		r.Set("Days", ast.Int(int64(s)/86400))
		r.Set("Hours", ast.Int(int64(s)%86400/3600))
		r.Set("Minutes", ast.Int(int64(s)%3600/60))
		r.Set("Seconds", ast.Real(math.Mod(s, 60)))
	case UndefinedKind, ErrorKind:
		return v
	default:
		return Error()
	}
	return Value{kind: RecordKind, o: FromRecord(r).Scope()}
}

func absPart(name string, f func(time.Time) int) *Builtin {
	return fn(name, 1, 1, func(_ *Call, a []Value) Value {
		switch v := a[0]; v.kind {
		case AbsTimeKind:
			return Int(int64(f(asTime(v))))
		case UndefinedKind, ErrorKind:
			return v
		}
		return Error()
	})
}

func relPart(name string, f func(float64) Value) *Builtin {
	return fn(name, 1, 1, func(_ *Call, a []Value) Value {
		switch v := a[0]; v.kind {
		case RelTimeKind:
			return f(v.r())
		case IntKind, RealKind:
			x, _ := v.NumberValue()
			return f(x)
		case UndefinedKind, ErrorKind:
			return v
		}
		return Error()
	})
}
