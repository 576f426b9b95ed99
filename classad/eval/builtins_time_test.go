package eval_test

import "testing"

func init() {
	addTable("clock", []row{
		{"", "time() > 0", "true"},
		{"", "isAbstime(currentTime())", "true"},
		{"", "isReltime(timeZoneOffset())", "true"},
		{"", "isReltime(dayTime())", "true"},
		{"", "dayTime() < relTime(86400)", "true"},
		{"", "isString(formatTime())", "true"},
	})
	addTable("absTime", []row{
		{"", `absTime("2004-01-01T00:00:00Z")`, `absTime("2004-01-01T00:00:00-00:00")`},
		{"", `absTime("2004-01-01T10:20:30+05:00")`, `absTime("2004-01-01T10:20:30+05:00")`},
		{"", `absTime("2004-01-01T10:20:30-0130")`, `absTime("2004-01-01T10:20:30-01:30")`},
		{"", `absTime("2004/01/02 03:04:05Z")`, `absTime("2004-01-02T03:04:05-00:00")`},
		{"", `absTime("2004Z")`, `absTime("2003-12-31T00:00:00-00:00")`},
		{"", `absTime("20Z")`, "error"},
		{"", `absTime("2004-01-01T00:00:00123Z")`, "error"},
		{"", "absTime(0, 0)", `absTime("1970-01-01T00:00:00-00:00")`},
		{"", "absTime(3600, 3600)", `absTime("1970-01-01T02:00:00+01:00")`},
		{"", "absTime(1.9, 0)", `absTime("1970-01-01T00:00:01-00:00")`},
		{"", "absTime(4294967296, 0)", `absTime("1970-01-01T00:00:00-00:00")`},
		{"", "absTime(relTime(60), 0)", `absTime("1970-01-01T00:01:00-00:00")`},
		{"", "absTime(absTime(0, 0), 3600)", `absTime("1970-01-01T00:00:00-00:00")`},
		{"[ S = \"2004\" ]", "absTime(S)", `"2004"`},
		{"", "absTime(true)", "error"},
		{"", "absTime(undefined)", "undefined"},
		{"", `absTime(undefined, "x")`, "error"},
		{"", "absTime(error, 0)", "error"},
		{"", `absTime(0, "x")`, "error"},
		{"", "absTime(5, -1)", "EVAL_FAIL"},
		{"", "isAbstime(absTime(5.0, -1))", "true"},
	})
	addTable("relTime", []row{
		{"", "relTime(90061)", `relTime("1+01:01:01")`},
		{"", `relTime("1+01:01:01")`, "9.006100000000000E+04"},
		{"", `relTime("-1:30")`, "-9.000000000000000E+01"},
		{"", `relTime("1d2h3m4s")`, "9.378400000000000E+04"},
		{"", `relTime("x")`, "error"},
		{"", "string(relTime(4294967301))", `"05"`},
		{"", "isReltime(relTime(1.5))", "true"},
		{"", "string(relTime(absTime(60, 0)))", `"01:00"`},
		{"[ S = \"1:00\" ]", "string(relTime(S))", `"00"`},
		{"", "relTime(true)", "error"},
		{"", "relTime(undefined)", "undefined"},
		{"", "relTime(1, 2)", "error"},
	})
	addTable("timeFields", []row{
		{"", `getYear(absTime("2004-02-03T04:05:06Z"))`, "2004"},
		{"", `getMonth(absTime("2004-02-03T04:05:06Z"))`, "2"},
		{"", `getDayOfMonth(absTime("2004-02-03T04:05:06Z"))`, "3"},
		{"", `getDayOfYear(absTime("2004-02-03T04:05:06Z"))`, "33"},
		{"", `getDayOfWeek(absTime("2004-02-03T04:05:06Z"))`, "2"},
		{"", `getHours(absTime("2004-02-03T04:05:06Z"))`, "4"},
		{"", `getMinutes(absTime("2004-02-03T04:05:06Z"))`, "5"},
		{"", `getSeconds(absTime("2004-02-03T04:05:06Z"))`, "6"},
		{"", `getHours(absTime("2004-01-01T10:00:00+05:00"))`, "5"},
		{"", "getDays(absTime(0, 0))", "error"},
		{"", "getYear(relTime(5))", "error"},
		{"", "getDays(relTime(90061))", "1"},
		{"", "getHours(relTime(90061))", "1"},
		{"", "getMinutes(relTime(90061))", "1"},
		{"", "getSeconds(relTime(90061.7))", "1"},
		{"", "getSeconds(relTime(-61))", "-1"},
		{"", "getYear(5)", "error"},
		{"", "getYear(undefined)", "error"},
	})
	addTable("splitTime", []row{
		{"", `splitTime(absTime("2004-01-01T10:20:30+05:00"))`,
			`[ Type = "AbsoluteTime"; Year = 2004; Month = 1; Day = 1; Hours = 10; Minutes = 20; Seconds = 30; Offset = 18000 ]`},
		{"", "splitTime(relTime(-90061.5))",
			`[ Type = "RelativeTime"; Days = -1; Hours = 1; Minutes = 1; Seconds = 1.500000000000000E+00 ]`},
		{"", "splitTime(relTime(-5))",
			`[ Type = "RelativeTime"; Days = 0; Hours = 0; Minutes = 0; Seconds = -5.000000000000000E+00 ]`},
		{"", "splitTime(0)",
			`[ Type = "AbsoluteTime"; Year = 1970; Month = 1; Day = 1; Hours = 0; Minutes = 0; Seconds = 0; Offset = 0 ]`},
		{"", "splitTime(undefined)", "undefined"},
		{"", "splitTime([a = 1])", "error"},
		{"", `splitTime("x")`, "error"},
	})
	addTable("formatTime", []row{
		{"", `formatTime(0, "%Y-%m-%d %H:%M:%S")`, `"1970-01-01 00:00:00"`},
		{"", `formatTime(absTime("2004-02-03T04:05:06+05:00"), "%c")`, `"Tue Feb  3 04:05:06 2004"`},
		{"", `formatTime(absTime("2004-02-03T04:05:06+05:00"))`, `"Tue Feb  3 04:05:06 2004"`},
		{"", `formatTime([Year = 2004; Month = 2; Day = 3; Hours = 4], "%A %j %H")`, `"Tuesday 034 04"`},
		{"", `formatTime(0, "%e|%k|%l|%p|%y|%C|%%")`, `" 1| 0|12|AM|70|19|%"`},
		{"", `formatTime(0, "%-d %_m %^a")`, `"1  1 THU"`},
		{"", `formatTime(0, "%q")`, `"%q"`},
		{"", `formatTime([Day = 1], "%Y-%m-%d %a")`, `"1900-01-01 Mon"`},
		{"", `formatTime(0, "%z %Z")`, `"+0000 UTC"`},
		{"", "formatTime(relTime(5))", "error"},
		{"", "formatTime(undefined)", "error"},
		{"", "formatTime(0, 5)", "error"},
	})
	addTable("interval", []row{
		{"", "interval(67)", `"1:07"`},
		{"", "interval(3600)", `"1:00:00"`},
		{"", "interval(90061)", `"1+01:01:01"`},
		{"", "interval(5)", `"5"`},
		{"", "interval(-3661)", `"-1:01:01"`},
		{"", "interval(-61)", `"-1:01"`},
		{"", "interval(-90061)", `"-1+01:01:01"`},
		{"", `interval("3600")`, `"1:00:00"`},
		{"", "interval(true)", `"1"`},
		{"", "interval(59.9)", `"59"`},
		{"", "interval(4294967356)", `"1:00"`},
		{"", "interval(undefined)", "error"},
	})
}

func TestClock(t *testing.T)      { runTable(t, "clock") }
func TestAbsTime(t *testing.T)    { runTable(t, "absTime") }
func TestRelTime(t *testing.T)    { runTable(t, "relTime") }
func TestTimeFields(t *testing.T) { runTable(t, "timeFields") }
func TestSplitTime(t *testing.T)  { runTable(t, "splitTime") }
func TestFormatTime(t *testing.T) { runTable(t, "formatTime") }
func TestInterval(t *testing.T)   { runTable(t, "interval") }
