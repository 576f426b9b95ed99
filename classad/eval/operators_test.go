package eval_test

import "testing"

func init() {
	addTable("arithmetic", []row{
		{"", "1 + 2", "3"},
		{"", "7 / 2", "3"},
		{"", "-7 / 2", "-3"},
		{"", "-7 % 3", "-1"},
		{"", "7 % -3", "1"},
		{"", "1 / 0", "error"},
		{"", "1 % 0", "error"},
		{"", "1.0 / 0", "error"},
		{"", "-1.0 / 0", `real("-INF")`},
		{"", "0.0 / 0", `real("NaN")`},
		{"", "1.5 % 1", "error"},
		{"", "1e308 * 10", "error"},
		{"", "-1e308 * 10", `real("-INF")`},
		{"", "9223372036854775807 + 1", "-9223372036854775808"},
		{"", "(-9223372036854775807 - 1) / -1", "9223372036854775807"},
		{"", "(-9223372036854775807 - 1) % -1", "0"},
		{"", "true + 1", "2"},
		{"", "true + true", "2"},
		{"", "1 + 2.5", "3.500000000000000E+00"},
		{"", `"a" + 1`, "error"},
		{"", "{1} + 1", "error"},
		{"", "undefined + error", "error"},
		{"", "undefined + 1", "undefined"},
		{"", "error * undefined", "error"},
	})
	addTable("unary", []row{
		{"", "-(1)", "-1"},
		{"", "-(-9223372036854775807 - 1)", "-9223372036854775808"},
		{"", "-true", "error"},
		{"", "-2.5", "-2.500000000000000E+00"},
		{"", `+"a"`, "error"},
		{"", "+true", "error"},
		{"", "+undefined", "undefined"},
		{"", "-undefined", "undefined"},
		{"", "-error", "error"},
		{"", "!0", "true"},
		{"", "!2.5", "false"},
		{"", `!"a"`, "error"},
		{"", "!undefined", "undefined"},
		{"", "~0", "-1"},
		{"", "~true", "error"},
		{"", "-absTime(0, 0)", "error"},
	})
	addTable("comparison", []row{
		{"", `"abc" == "ABC"`, "true"},
		{"", `"abc" < "ABD"`, "true"},
		{"", `"b" >= "A"`, "true"},
		{"", `"a" == 1`, "error"},
		{"", "1 == 1.0", "true"},
		{"", "true == 1", "true"},
		{"", "true < 2", "true"},
		{"", "false != true", "true"},
		{"", "{1} == {1}", "error"},
		{"", "[a = 1] == [a = 1]", "error"},
		{"", "undefined == 1", "undefined"},
		{"", "error != undefined", "error"},
		{"", `real("NaN") == real("NaN")`, "false"},
		{"", `real("NaN") != real("NaN")`, "true"},
		{"", "absTime(10, 0) == absTime(10, 3600)", "true"},
		{"", "absTime(10, 0) < absTime(11, 0)", "true"},
		{"", "absTime(0, 0) == 0", "error"},
		{"", "relTime(5) < relTime(6)", "true"},
		{"", "relTime(5) == 5", "error"},
	})
	addTable("identity", []row{
		{"", "1 =?= 1.0", "false"},
		{"", `"a" =?= "A"`, "false"},
		{"", `"a" =?= "a"`, "true"},
		{"", "undefined =?= undefined", "true"},
		{"", "error =?= error", "true"},
		{"", "1 =!= undefined", "true"},
		{"", `real("NaN") =?= real("NaN")`, "false"},
		{"", "true =?= 1", "false"},
		{"", "relTime(5) =?= relTime(5)", "true"},
		{"", "1 is 1", "true"},
		{"", "1 isnt 2", "true"},
		// Lists, records and zones, through the functions that use =?=
		// (the operator itself is evaluated in nodes.go).
		{"", `anyCompare("is", {{1}}, {1})`, "error"},
		{"", `anyCompare("is", {split("a")}, {"a"})`, "false"},
		{"", `anyCompare("isnt", {[a = 1]}, [a = 1])`, "error"},
		{"", "identicalMember(absTime(10, 0), {absTime(10, 3600)})", "false"},
		{"", "identicalMember(absTime(10, 0), {absTime(10, 0)})", "true"},
	})
	addTable("logical", []row{
		{"", "true && undefined", "undefined"},
		{"", "false && error", "false"},
		{"", "undefined && false", "false"},
		{"", "undefined || true", "true"},
		{"", "error || true", "error"},
		{"", "1 && 2", "true"},
		{"", "0 || 0.0", "false"},
		{"", `"a" && true`, "error"},
		{"", `true || "a"`, "true"},
		{"", `false || "a"`, "error"},
		{"", `1 ? "y" : "n"`, `"y"`},
		{"", "undefined ? 1 : 2", "undefined"},
		{"", `"a" ? 1 : 2`, "error"},
		{"", "0.0 ? 1 : 2", "2"},
		{"", "undefined ?: 5", "5"},
		{"", "3 ?: 5", "3"},
	})
	addTable("bitwise", []row{
		{"", "6 & 3", "2"},
		{"", "6 | 3", "7"},
		{"", "6 ^ 3", "5"},
		{"", "true & 1", "error"},
		{"", "1 << 65", "2"},
		{"", "1 << 64", "1"},
		{"", "8 >> 65", "4"},
		{"", "-8 >> 1", "-4"},
		{"", "-8 >> 70", "-1"},
		{"", "-8 >> -1", "-8"},
		{"", "-8 >>> 0", "0"},
		{"", "-8 >>> 1", "9223372036854775804"},
		{"", "-8 >>> 2", "4611686018427387902"},
		{"", "-8 >>> 65", "9223372036854775804"},
		{"", "1.5 << 1", "error"},
		{"", "undefined | 1", "undefined"},
	})
	addTable("time arithmetic", []row{
		{"", "absTime(100, 0) + relTime(5)", `absTime("1970-01-01T00:01:45-00:00")`},
		{"", "relTime(5) + absTime(100, 0)", `absTime("1970-01-01T00:01:45-00:00")`},
		{"", "absTime(100, 0) - relTime(40)", `absTime("1970-01-01T00:01:00-00:00")`},
		{"", "absTime(0, 0) + relTime(4294967301.0)", `absTime("1901-12-13T20:45:52-00:00")`},
		{"", "string(absTime(100, 0) - absTime(40, 0))", `"01:00"`},
		{"", "string(relTime(5) * 2)", `"10"`},
		{"", "string(2.5 * relTime(2))", `"05"`},
		{"", "string(relTime(90061) - relTime(1))", `"1+01:01:00"`},
		{"", "isReltime(relTime(5) / 0)", "true"},
		{"", "relTime(5) * true", "error"},
		{"", "true * relTime(5)", "error"},
		{"", "2 / relTime(5)", "error"},
		{"", "relTime(5) + 1", "error"},
		{"", "absTime(0, 0) * 2", "error"},
		{"", "absTime(0, 0) + absTime(0, 0)", "error"},
		{"", "relTime(5) % 2", "error"},
	})
}

func TestArithmetic(t *testing.T)     { runTable(t, "arithmetic") }
func TestUnary(t *testing.T)          { runTable(t, "unary") }
func TestComparison(t *testing.T)     { runTable(t, "comparison") }
func TestIdentity(t *testing.T)       { runTable(t, "identity") }
func TestLogical(t *testing.T)        { runTable(t, "logical") }
func TestBitwise(t *testing.T)        { runTable(t, "bitwise") }
func TestTimeArithmetic(t *testing.T) { runTable(t, "time arithmetic") }
