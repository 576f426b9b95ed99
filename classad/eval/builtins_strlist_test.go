package eval_test

import "testing"

func init() {
	addTable("stringListSize", []row{
		{"", `stringListSize("a, b ,c")`, "3"},
		{"", `stringListSize("")`, "0"},
		{"", `stringListSize(" , ,")`, "0"},
		{"", `stringListSize("a;b", ";")`, "2"},
		{"", `stringListSize("a	b")`, "1"},
		{"", "stringListSize(undefined)", "error"},
		{"", "stringListSize(5)", "error"},
		{"", `stringListSize("a b", undefined)`, "error"},
	})
	addTable("stringListSummary", []row{
		{"", `stringListSum("1, 2, 3")`, "6"},
		{"", `stringListSum("1, 2.5")`, "3.500000000000000E+00"},
		{"", `stringListSum("")`, "0.0"},
		{"", `stringListSum("1, x")`, "error"},
		{"", `stringListSum("2abc")`, "2.000000000000000E+00"},
		{"", `stringListSum("1e3")`, "1.000000000000000E+03"},
		{"", `stringListSum("-1,+2")`, "1"},
		{"", `stringListAvg("1, 2")`, "1"},
		{"", `stringListAvg("1.0, 2")`, "1.500000000000000E+00"},
		{"", `stringListAvg("")`, "0.0"},
		{"", `stringListMin("3, 1, 2")`, "1"},
		{"", `stringListMin("")`, "undefined"},
		{"", `stringListMin("1e39")`, "3.402823466385289E+38"},
		{"", `stringListMax("2, 10")`, "10"},
		{"", `stringListMax("-5, -3")`, "0"},
		{"", `stringListMax("-5.5")`, "1.175494350822288E-38"},
		{"", "stringListMin(undefined)", "error"},
	})
	addTable("stringListMember", []row{
		{"", `stringListMember("b", "a, b")`, "true"},
		{"", `stringListMember("B", "a,b")`, "false"},
		{"", `stringListIMember("B", "a,b")`, "true"},
		{"", `stringListMember("b", "a	b")`, "true"},
		{"", `stringListMember("a b", "a b, c")`, "false"},
		{"", `stringListMember(undefined, "a")`, "false"},
		{"", `stringListMember("a", undefined)`, "false"},
		{"", "stringListMember(undefined, undefined)", "undefined"},
		{"", `stringListMember(1, "1")`, "error"},
		{"", `stringListMember(error, "a")`, "error"},
		{"", `stringListMember("a", "a;b", ";")`, "true"},
		{"", `stringListMember("a", "a;b", undefined)`, "false"},
		{"", `stringListSubsetMatch("a, b", "b, a, c")`, "true"},
		{"", `stringListSubsetMatch("a, d", "a, b")`, "false"},
		{"", `stringListSubsetMatch("", "a")`, "true"},
		{"", `stringListSubsetMatch(undefined, "a")`, "true"},
		{"", `stringListSubsetMatch(",", "a")`, "false"},
		{"", `stringListSubsetMatch("A", "a")`, "false"},
		{"", `stringListISubsetMatch("A", "a")`, "true"},
		{"", `stringListSubsetMatch("a", undefined)`, "false"},
	})
	addTable("stringListsIntersect", []row{
		{"", `stringListsIntersect("a, b", "b, c")`, "true"},
		{"", `stringListsIntersect("a", "b")`, "false"},
		{"", `stringListsIntersect("a ;b", " a", ";")`, "false"},
		{"", `stringListsIntersect("a b", "b", "")`, "true"},
		{"", `stringListsIntersect(undefined, "a")`, "undefined"},
		{"", "stringListsIntersect(error, undefined)", "error"},
		{"", `stringListsIntersect("a", 1)`, "error"},
	})
}

func TestStringListSize(t *testing.T)       { runTable(t, "stringListSize") }
func TestStringListSummary(t *testing.T)    { runTable(t, "stringListSummary") }
func TestStringListMember(t *testing.T)     { runTable(t, "stringListMember") }
func TestStringListsIntersect(t *testing.T) { runTable(t, "stringListsIntersect") }
