package eval_test

import (
	"testing"
	"time"
)

// The time tables read absolute times in the local zone, as HTCondor does;
// the expectations are for UTC.
func init() { time.Local = time.UTC }

func init() {
	addTable("predicates", []row{
		{"", "isUndefined(undefined)", "true"},
		{"", "isUndefined(error)", "false"},
		{"", "isError(1 / 0)", "true"},
		{"", "isError(undefined)", "false"},
		{"", `isString("a")`, "true"},
		{"", "isInteger(1)", "true"},
		{"", "isInteger(1.0)", "false"},
		{"", "isReal(1.0)", "true"},
		{"", "isList({})", "true"},
		{"", `isList(split("a"))`, "true"},
		{"", "isClassAd([a = 1])", "true"},
		{"", "isBoolean(true)", "true"},
		{"", "isBoolean(1)", "false"},
		{"", "isAbstime(absTime(0))", "true"},
		{"", "isReltime(relTime(1))", "true"},
		{"", `isReltime(relTime("1:00"))`, "false"},
	})
	addTable("int", []row{
		{"", "int(3.7)", "3"},
		{"", "int(-3.7)", "-3"},
		{"", `int("3.7")`, "3"},
		{"", `int(" 42")`, "42"},
		{"", `int("42abc")`, "42"},
		{"", `int("abc")`, "error"},
		{"", `int("")`, "error"},
		{"", `int("0x1A")`, "26"},
		{"", `int("1e3")`, "1000"},
		{"", `int("inf")`, "-9223372036854775808"},
		{"", "int(1e30)", "-9223372036854775808"},
		{"", "int(true)", "1"},
		{"", "int(undefined)", "undefined"},
		{"", "int(error)", "error"},
		{"", "int({1})", "error"},
		{"", "int(absTime(5, 0))", "5"},
		{"", "int(relTime(2.9))", "2"},
		{"", "int(relTime(4294967301.0))", "-2147483648"},
	})
	addTable("real", []row{
		{"", "real(1)", "1.000000000000000E+00"},
		{"", `real("1e3x")`, "1.000000000000000E+03"},
		{"", `real("  -2.5")`, "-2.500000000000000E+00"},
		{"", `real(".5")`, "5.000000000000000E-01"},
		{"", `real("x")`, "error"},
		{"", `real("INF")`, `real("INF")`},
		{"", `real("nan")`, `real("NaN")`},
		{"", "real(true)", "1.000000000000000E+00"},
		{"", "real(undefined)", "undefined"},
		{"", "real(relTime(2.9))", "2.000000000000000E+00"},
		{"", "real([a = 1])", "error"},
	})
	addTable("string", []row{
		{"", "string(1)", `"1"`},
		{"", "string(1.5)", `"1.500000000000000E+00"`},
		{"", "string(true)", `"true"`},
		{"", `string({1, "a"})`, `"{ 1,\"a\" }"`},
		{"", "string([a = 1])", `"[ a = 1 ]"`},
		{"", "string(undefined)", "undefined"},
		{"", "string(error)", "error"},
		{"", "string(absTime(0, 3600))", `"1970-01-01T01:00:00+01:00"`},
		{"", "string(relTime(90061))", `"1+01:01:01"`},
		{"", "string(relTime(3700))", `"01:01:40"`},
		{"", "string(relTime(5))", `"05"`},
		{"", "string(relTime(-65))", `"-01:05"`},
	})
	addTable("bool", []row{
		{"", "bool(1)", "true"},
		{"", "bool(0)", "false"},
		{"", "bool(0.0)", "false"},
		{"", `bool(real("NaN"))`, "true"},
		{"", `bool("TRUE")`, "true"},
		{"", `bool("False")`, "false"},
		{"", `bool("yes")`, "undefined"},
		{"", "bool(undefined)", "undefined"},
		{"", "bool(error)", "error"},
		{"", "bool(absTime(0))", "error"},
		{"", "bool(relTime(0.5))", "false"},
		{"", "bool(relTime(2))", "true"},
		{"", "bool({})", "error"},
	})
	addTable("rounding", []row{
		{"", "floor(2.7)", "2"},
		{"", "floor(-2.5)", "-3"},
		{"", "floor(5)", "5"},
		{"", `floor("2.7")`, "2"},
		{"", "floor(true)", "1"},
		{"", "floor(undefined)", "error"},
		{"", `floor("x")`, "error"},
		{"", "floor(1e30)", "-9223372036854775808"},
		{"", "ceil(2.1)", "3"},
		{"", "ceiling(-2.5)", "-2"},
		{"", "ceiling(relTime(2.5))", "2"},
		{"", "round(2.5)", "2"},
		{"", "round(3.5)", "4"},
		{"", "round(-2.5)", "-2"},
		{"", "round(2.4999)", "2"},
		{"", `round("1.5")`, "2"},
	})
	addTable("pow", []row{
		{"", "pow(2, 10)", "1024"},
		{"", "pow(-2, 3)", "-7"},
		{"", "pow(-2, 1)", "-1"},
		{"", "pow(-1, 3)", "0"},
		{"", "pow(-3, 2)", "9"},
		{"", "pow(0, 0)", "1"},
		{"", "pow(2, 62)", "4611686018427387904"},
		{"", "pow(2, 63)", "-9223372036854775808"},
		{"", "pow(7, 20)", "79792266297612000"},
		{"", "pow(2, -1)", "5.000000000000000E-01"},
		{"", "pow(2.0, 2)", "4.000000000000000E+00"},
		{"", `pow("2", 3)`, "8.000000000000000E+00"},
		{"", "pow(true, 2)", "1.000000000000000E+00"},
		{"", "pow(10, 400.0)", `real("INF")`},
		{"", "pow(undefined, 2)", "error"},
		{"", "pow(2, undefined)", "error"},
		{"", `pow("x", 2)`, "error"},
	})
	addTable("quantize", []row{
		{"", "quantize(5, 3)", "6"},
		{"", "quantize(6, 3)", "6"},
		{"", "quantize(-5, 3)", "-3"},
		{"", "quantize(-6, 4)", "0"},
		{"", "quantize(2.5, 2)", "4.000000000000000E+00"},
		{"", "quantize(5, 2.5)", "5.000000000000000E+00"},
		{"", "quantize(3, 0)", "3"},
		{"", `quantize("3", 0)`, `"3"`},
		{"", "quantize(3, 1e-9)", "3"},
		{"", "quantize(3, {1, 5, 10})", "5"},
		{"", `quantize(3, {"5"})`, `"5"`},
		{"", "quantize(3.5, {2.5, 4})", "4"},
		{"", "quantize(30, {1, 5, 10})", "30"},
		{"", "quantize(31, {1, 5, 10})", "40"},
		{"", "quantize(3, {})", "3"},
		{"", "quantize(3, {undefined})", "error"},
		{"", "quantize(undefined, 2)", "error"},
		{"", `quantize("x", 2)`, "error"},
	})
	addTable("random", []row{
		{"", "isReal(random())", "true"},
		{"", "random(1)", "0"},
		{"", "isInteger(random(10))", "true"},
		{"", "random(2.5) <= 2.5", "true"},
		{"", "random(0)", "EVAL_FAIL"},
		{"", "random(-1.5)", "EVAL_FAIL"},
		{"", `random("x")`, "error"},
		{"", "random(undefined)", "error"},
	})
	addTable("aggregates", []row{
		{"", "sum({1, 2, 3.5})", "6.500000000000000E+00"},
		{"", "sum({})", "0"},
		{"", "sum({true})", "true"},
		{"", "sum({true, 1})", "2"},
		{"", "sum({undefined, 2})", "2"},
		{"", `sum({"a"})`, "error"},
		{"", "sum(undefined)", "undefined"},
		{"", "sum(3)", "error"},
		{"", "sum({1e308, 1e308})", "error"},
		{"", "avg({})", "0"},
		{"", "avg({1, 2})", "1.500000000000000E+00"},
		{"", "avg({undefined})", "0"},
		{"", "avg({true})", "1.000000000000000E+00"},
		{"", "avg({1e308, 1e308})", "error"},
		{"", "min({})", "undefined"},
		{"", "min({3, 1.5})", "1.500000000000000E+00"},
		{"", "min({1, 2.5})", "1.000000000000000E+00"},
		{"", "max({1, 2.5, 3})", "3.000000000000000E+00"},
		{"", "max({3, 9, 2})", "9"},
		{"", "max({true})", "true"},
		{"", "max({true, false})", "1"},
		{"", "min({undefined, undefined})", "undefined"},
		{"", `max({1, "a"})`, "error"},
		{"", "max({[a = 1]})", "error"},
	})
}

func TestPredicates(t *testing.T) { runTable(t, "predicates") }
func TestInt(t *testing.T)        { runTable(t, "int") }
func TestReal(t *testing.T)       { runTable(t, "real") }
func TestString(t *testing.T)     { runTable(t, "string") }
func TestBool(t *testing.T)       { runTable(t, "bool") }
func TestRounding(t *testing.T)   { runTable(t, "rounding") }
func TestPow(t *testing.T)        { runTable(t, "pow") }
func TestQuantize(t *testing.T)   { runTable(t, "quantize") }
func TestRandom(t *testing.T)     { runTable(t, "random") }
func TestAggregates(t *testing.T) { runTable(t, "aggregates") }
