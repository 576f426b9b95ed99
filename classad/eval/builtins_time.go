package eval

import (
	"math"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad/ast"
)

// Time functions: time, currentTime, timeZoneOffset, dayTime, absTime,
// relTime, formatTime, interval, splitTime, getYear, getMonth,
// getDayOfYear, getDayOfMonth, getDayOfWeek, getDays, getHours, getMinutes,
// getSeconds. Absolute times carry the time-zone offset they are shown in;
// "local" is the evaluating host's zone. Where HTCondor passes seconds
// through a C int (absTime(n), relTime(n) for an integer n, the fields of a
// relative time, interval) Kite does too.

func init() {
	register(
		impure("time", 0, 0, func(c *Call, _ []Value) Value { return Int(c.st.now().Unix()) }),
		impure("currentTime", 0, 0, func(c *Call, _ []Value) Value { return localAbsTime(c.st.now().Unix()) }),
		impure("timeZoneOffset", 0, 0, func(c *Call, _ []Value) Value {
			return RelTime(float64(localOffset(c.st.now().Unix())))
		}),
		impure("dayTime", 0, 0, func(c *Call, _ []Value) Value {
			t := c.st.now().Local()
			return RelTime(float64(t.Hour()*3600 + t.Minute()*60 + t.Second()))
		}),
		&Builtin{Name: "absTime", MinArgs: 0, MaxArgs: 2, Lazy: builtinAbsTime},
		lazy("relTime", 1, 2, builtinRelTime),
		impure("formatTime", 0, 2, builtinFormatTime),
		fn("interval", 1, 1, builtinInterval),
		fn("splitTime", 1, 1, builtinSplitTime),
		timeField("getYear", func(t tm) int64 { return int64(t.year) + 1900 }, nil),
		timeField("getMonth", func(t tm) int64 { return int64(t.mon) + 1 }, nil),
		timeField("getDayOfYear", func(t tm) int64 { return int64(t.yday) }, nil),
		timeField("getDayOfMonth", func(t tm) int64 { return int64(t.mday) }, nil),
		timeField("getDayOfWeek", func(t tm) int64 { return int64(t.wday) }, nil),
		timeField("getDays", nil, func(s int64) int64 { return s / 86400 }),
		timeField("getHours", func(t tm) int64 { return int64(t.hour) }, func(s int64) int64 { return s % 86400 / 3600 }),
		timeField("getMinutes", func(t tm) int64 { return int64(t.min) }, func(s int64) int64 { return s % 3600 / 60 }),
		timeField("getSeconds", func(t tm) int64 { return int64(t.sec) }, func(s int64) int64 { return s % 60 }),
	)
}

func localOffset(secs int64) int32 {
	_, off := time.Unix(secs, 0).Zone()
	return int32(off)
}

func localAbsTime(secs int64) Value { return AbsTime(secs, localOffset(secs)) }

// literalString returns the string a call argument is when it is a string
// literal.
func literalString(n node) (string, bool) {
	l, ok := n.(*litNode)
	if !ok || l.v.kind != StringKind {
		return "", false
	}
	return l.v.str(), true
}

// evalArgs evaluates call arguments in order.
func evalArgs(st *State, sc *Scope, args []node) []Value {
	out := make([]Value, len(args))
	for i, a := range args {
		out[i] = a.eval(st, sc)
	}
	return out
}

// builtinAbsTime is absTime() (now), absTime("2004-01-01T00:00:00-06:00")
// (a literal string, read when the expression is read in HTCondor; an
// unreadable one is ERROR here), or absTime(t [, offset]) (see convTime).
func builtinAbsTime(st *State, sc *Scope, args []node) Value {
	if len(args) == 0 {
		return localAbsTime(st.now().Unix())
	}
	if s, ok := literalString(args[0]); ok && len(args) == 1 {
		return parseAbsTime(s)
	}
	return convTime(st, evalArgs(st, sc, args), false)
}

// builtinRelTime is relTime("[-][D+][HH:][MM:]SS[.fff]") for a literal
// string, which HTCondor reads into a literal that evaluates to the number
// of seconds as a real (not a relative time); an unreadable one is ERROR
// here. Otherwise it is relTime(t) (see convTime).
func builtinRelTime(st *State, sc *Scope, args []node) Value {
	if s, ok := literalString(args[0]); ok && len(args) == 1 {
		secs, ok := parseRelTime(s)
		if !ok {
			return Error()
		}
		return Real(secs)
	}
	return convTime(st, evalArgs(st, sc, args), true)
}

// convTime converts a value to an absolute time (relative false) or a
// relative time, as HTCondor's convTime does. The optional second argument
// of absTime is the zone offset in seconds (an integer, a real or a
// relative time, else ERROR; relTime takes none). Integers and reals pass
// through a C int for absolute times (integers also for relative times);
// an absolute time is itself (its offset kept) or its seconds; a relative
// time is itself or an instant; a string that was not a literal is
// returned as it is by absTime and is relTime(0) to relTime. UNDEFINED is
// UNDEFINED; booleans, lists, records and ERROR are ERROR. An integer
// time with the offset -1 makes the evaluation fail, as in HTCondor, where
// -1 means that no offset could be found.
func convTime(st *State, a []Value, relative bool) Value {
	offset, hasOffset := int32(0), len(a) == 2
	if hasOffset {
		var ok bool
		if offset, ok = zoneArg(a[1]); !ok || relative {
			return Error()
		}
	}
	v := a[0]
	var secs int64
	switch v.kind {
	case UndefinedKind:
		return Undefined()
	case IntKind:
		secs = int64(int32(v.i()))
	case RealKind:
		if relative {
			return RelTime(v.r())
		}
		secs = int64(realToInt32(v.r()))
	case StringKind:
		if relative {
			return RelTime(0)
		}
		return v
	case AbsTimeKind:
		if relative {
			return RelTime(float64(v.i()))
		}
		return v
	case RelTimeKind:
		if relative {
			return v
		}
		secs = int64(realToInt32(v.r()))
	default:
		return Error()
	}
	switch {
	case relative:
		return RelTime(float64(secs))
	case v.kind == IntKind && hasOffset && offset == -1:
		return st.fail("absTime: time zone offset -1")
	case hasOffset:
		return AbsTime(secs, offset)
	}
	return localAbsTime(secs)
}

func zoneArg(v Value) (int32, bool) {
	switch v.kind {
	case IntKind:
		return int32(v.i()), true
	case RealKind, RelTimeKind:
		return realToInt32(v.r()), true
	}
	return 0, false
}

// parseAbsTime reads an absolute time as HTCondor does: a four-digit year,
// then two-digit month, day, hours, minutes and seconds, each optional and
// each after any non-digits, then nothing but non-digits; the zone is a
// trailing Z, ±hhmm or ±hh:mm, else the local zone. Out-of-range fields
// roll over ("2004" is 2003-12-31, day 0 of January).
func parseAbsTime(s string) Value {
	s, off, hasZone := cutZone(s)
	f, ok := timeFields(s)
	if !ok {
		return Error()
	}
	if hasZone {
		t := time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], 0, time.UTC)
		return AbsTime(t.Unix()-int64(off), off)
	}
	return localAbsTime(time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], 0, time.Local).Unix())
}

// cutZone removes a trailing zone from an absolute-time string, trying the
// forms in HTCondor's order: Z (before trailing blanks), ±hhmm, ±hh:mm.
func cutZone(s string) (string, int32, bool) {
	t := strings.TrimRightFunc(s, func(r rune) bool { return r < 0x80 && cSpace(byte(r)) })
	n := len(s)
	switch {
	case len(t) > 1 && (t[len(t)-1] == 'z' || t[len(t)-1] == 'Z'):
		return t[:len(t)-1] + s[len(t):], 0, true
	case n > 5 && (s[n-5] == '+' || s[n-5] == '-'):
	case n > 6 && (s[n-6] == '+' || s[n-6] == '-') && s[n-3] == ':':
		s, n = s[:n-3]+s[n-2:], n-1
	default:
		return s, 0, false
	}
	if !allDigits(s[n-4:]) {
		return s, 0, false
	}
	h := int32(s[n-4]-'0')*10 + int32(s[n-3]-'0')
	m := int32(s[n-2]-'0')*10 + int32(s[n-1]-'0')
	off := h*3600 + m*60
	if s[n-5] == '-' {
		off = -off
	}
	return s[:n-5], off, true
}

func allDigits(s string) bool { return digitRun(s, isDigit) == len(s) }

// timeFields reads year, month, day, hours, minutes and seconds.
func timeFields(s string) ([6]int, bool) {
	f := [6]int{0, 1, 0, 0, 0, 0}
	i := 0
	for k, width := range [6]int{4, 2, 2, 2, 2, 2} {
		for i < len(s) && !isDigit(s[i]) {
			i++
		}
		if i+width > len(s) {
			if k == 0 {
				return f, false
			}
			break
		}
		f[k] = atoiPrefix(s[i : i+width])
		i += width
	}
	for i < len(s) && !isDigit(s[i]) {
		i++
	}
	return f, i >= len(s)
}

// atoiPrefix is C's atoi: the leading digits of s (after white space and
// a sign).
func atoiPrefix(s string) int {
	f, n := strtod(s)
	if n == 0 {
		return 0
	}
	return int(math.Trunc(f))
}

// parseRelTime reads [-][D+][HH:][MM:]SS[.fff] from the end backwards, as
// HTCondor does; the letters d, h, m and s may stand for + and the colons.
func parseRelTime(s string) (float64, bool) {
	p := relTimeParser{src: s, i: len(s) - 1}
	p.space()
	secs := 0.0
	if p.at("sS") || (p.i >= 0 && isDigit(s[p.i])) {
		if p.at("sS") {
			p.i--
		}
		p.space()
		secs = p.number(true)
	}
	mins := p.field(":mM")
	hrs := p.field(":hH")
	days := p.field("+dD")
	p.space()
	neg := p.at("-")
	if neg {
		p.i--
	}
	p.space()
	if p.i >= 0 {
		return 0, false
	}
	total := float64(days*86400+hrs*3600+mins*60) + secs
	if neg {
		total = -total
	}
	return total, true
}

type relTimeParser struct {
	src string
	i   int
}

func (p *relTimeParser) space() {
	for p.i >= 0 && cSpace(p.src[p.i]) {
		p.i--
	}
}

func (p *relTimeParser) at(set string) bool {
	for j := 0; j < len(set); j++ {
		if p.i >= 0 && p.src[p.i] == set[j] {
			return true
		}
	}
	return false
}

// number reads digits (and, for seconds, one decimal point) backwards.
func (p *relTimeParser) number(frac bool) float64 {
	end := p.i + 1
	for p.i >= 0 && isDigit(p.src[p.i]) {
		p.i--
	}
	if frac && p.i >= 0 && p.src[p.i] == '.' {
		p.i--
		for p.i >= 0 && isDigit(p.src[p.i]) {
			p.i--
		}
	}
	f, _ := strtod(p.src[p.i+1 : end])
	return f
}

// field reads one more field marked by a character of set.
func (p *relTimeParser) field(set string) int {
	p.space()
	if !p.at(set) {
		return 0
	}
	p.i--
	p.space()
	n := p.number(false)
	if n > math.MaxInt32 {
		return 0 // from_chars leaves the value unset on overflow
	}
	return int(n)
}

// builtinInterval formats seconds (converted as int() converts, then cut
// to a C int) as [D+]H:MM:SS, leaving out leading fields that are zero (67
// is "1:07"); negative values carry their sign on each leading field, as
// C's division gives them. A value that does not convert is ERROR.
func builtinInterval(_ *Call, a []Value) Value {
	n, _, ok := toIntValue(a[0])
	if !ok {
		return Error()
	}
	secs := int64(int32(n))
	d, h, m, s := secs/86400, secs%86400/3600, secs%3600/60, secs%60
	switch {
	case d != 0:
		return String(itoa(d) + "+" + two(int32(abs64(h))) + ":" + two(int32(abs64(m))) + ":" + two(int32(abs64(s))))
	case h != 0:
		return String(itoa(h) + ":" + two(int32(abs64(m))) + ":" + two(int32(abs64(s))))
	case m != 0:
		return String(itoa(m) + ":" + two(int32(abs64(s))))
	}
	return String(itoa(s))
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// builtinSplitTime returns the parts of a time as a record: an absolute
// time (or an integer or real number of seconds, in the local zone) as
// Type, Year, Month, Day, Hours, Minutes, Seconds, Offset; a relative time
// as Type, Days, Hours, Minutes, Seconds (a real), the sign on the first
// non-zero part. UNDEFINED is UNDEFINED; anything else is ERROR.
func builtinSplitTime(_ *Call, a []Value) Value {
	v := a[0]
	switch v.kind {
	case UndefinedKind:
		return Undefined()
	case RelTimeKind:
		return recordValueOf(splitRelTime(v.r()))
	}
	t, ok := asAbsTime(v)
	if !ok {
		return Error()
	}
	return recordValueOf(splitAbsTime(t))
}

// asAbsTime returns the absolute time a value stands for in splitTime and
// formatTime: itself, or seconds (through a C int) in the local zone.
func asAbsTime(v Value) (Value, bool) {
	switch v.kind {
	case AbsTimeKind:
		return v, true
	case IntKind:
		return localAbsTime(int64(int32(v.i()))), true
	case RealKind:
		return localAbsTime(int64(realToInt32(v.r()))), true
	}
	return Value{}, false
}

func splitAbsTime(v Value) *ast.Record {
	t := gmtime(v.i() + int64(v.tz))
	r := &ast.Record{At: ast.NoPos}
	r.Set("Type", ast.Str("AbsoluteTime"))
	r.Set("Year", ast.Int(int64(t.year)+1900))
	r.Set("Month", ast.Int(int64(t.mon)+1))
	r.Set("Day", ast.Int(int64(t.mday)))
	r.Set("Hours", ast.Int(int64(t.hour)))
	r.Set("Minutes", ast.Int(int64(t.min)))
	r.Set("Seconds", ast.Int(int64(t.sec)))
	r.Set("Offset", ast.Int(int64(v.tz)))
	return r
}

func splitRelTime(secs float64) *ast.Record {
	neg := secs < 0
	if neg {
		secs = -secs
	}
	whole := realToInt32(secs)
	days, hrs, mins := whole/86400, whole%86400/3600, whole%3600/60
	sec := float64(whole%60) + (secs - math.Floor(secs))
	if neg {
		switch {
		case days > 0:
			days = -days
		case hrs > 0:
			hrs = -hrs
		case mins > 0:
			mins = -mins
		default:
			sec = -sec
		}
	}
	r := &ast.Record{At: ast.NoPos}
	r.Set("Type", ast.Str("RelativeTime"))
	r.Set("Days", ast.Int(int64(days)))
	r.Set("Hours", ast.Int(int64(hrs)))
	r.Set("Minutes", ast.Int(int64(mins)))
	r.Set("Seconds", ast.Real(sec))
	return r
}

func recordValueOf(r *ast.Record) Value { return recordOf(FromRecord(r).Scope()) }

// timeField builds getYear ... getSeconds: abs gives the field of an
// absolute time in the local zone (as HTCondor reads it, whatever the
// time's own offset), rel the field of a relative time's whole seconds
// (through a C int). A nil function, and any other argument, is ERROR.
func timeField(name string, abs func(tm) int64, rel func(int64) int64) *Builtin {
	return fn(name, 1, 1, func(_ *Call, a []Value) Value {
		switch v := a[0]; {
		case v.kind == AbsTimeKind && abs != nil:
			return Int(abs(localtime(v.i())))
		case v.kind == RelTimeKind && rel != nil:
			return Int(rel(int64(realToInt32(v.r()))))
		}
		return Error()
	})
}

// builtinFormatTime is formatTime([t] [, format]) with C's strftime in the
// C locale, "%c" by default. t is an absolute time (shown in its own
// offset), a number of seconds (local zone) or a record with the fields
// splitTime gives; without t it is now, in the local zone. A relative time,
// UNDEFINED and other values are ERROR, as is a format that is not a
// string.
func builtinFormatTime(c *Call, a []Value) Value {
	if len(a) == 0 {
		return String(strftime("%c", localtime(c.st.now().Unix())))
	}
	t, ok := formatFields(c.st, a[0])
	if !ok {
		return Error()
	}
	format := "%c"
	if len(a) == 2 {
		if a[1].kind != StringKind {
			return Error()
		}
		format = a[1].str()
	}
	return String(strftime(format, t))
}

// formatFields returns the broken-down time formatTime prints.
func formatFields(st *State, v Value) (tm, bool) {
	if v.kind == RecordKind {
		return recordFields(st, v.scope()), true
	}
	a, ok := asAbsTime(v)
	if !ok {
		return tm{}, false
	}
	t := gmtime(a.i() + int64(a.tz))
	t.gmtoff, t.zone = 0, ""
	return t, true
}

// recordFields reads Year, Month, Day, Hours, Minutes and Seconds from a
// record (missing or non-numeric fields leave the C field 0, so a missing
// Year is 1900 and a missing Month January) and works out the day of the
// week and of the year.
func recordFields(st *State, sc *Scope) tm {
	get := func(name string, bias int) int {
		i := sc.ad.Index(name)
		if i < 0 {
			return 0
		}
		n, ok := st.evalAttr(sc, i).NumberValue()
		if !ok {
			return 0
		}
		return int(realToInt32(n)) - bias
	}
	t := tm{sec: get("Seconds", 0), min: get("Minutes", 0), hour: get("Hours", 0), mday: get("Day", 0)}
	t.mon, t.year = get("Month", 1), get("Year", 1900)
	fixed := fixedDay(t.year+1900, t.mon+1, t.mday)
	t.wday, t.yday = fixed%7, fixed-fixedDay(t.year+1900, 1, 1)
	return t
}

// fixedDay counts days in the proleptic Gregorian calendar (1 January of
// year 1 is day 1).
func fixedDay(year, month, day int) int {
	adj := 0
	switch {
	case month <= 2:
	case year%4 == 0 && year%400 != 100 && year%400 != 200 && year%400 != 300:
		adj = -1
	default:
		adj = -2
	}
	y := year - 1
	return 365*y + y/4 - y/100 + y/400 + (367*month-362)/12 + adj + day
}
