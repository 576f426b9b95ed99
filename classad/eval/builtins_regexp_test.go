package eval_test

import "testing"

func init() {
	addTable("regexp", []row{
		{"", `regexp("b.c", "abxcd")`, "true"},
		{"", `regexp("^b", "abc")`, "false"},
		{"", `regexp("B", "abc", "i")`, "true"},
		{"", `regexp("B", "abc", "I")`, "false"},
		{"", `regexp("a b # comment", "ab", "x")`, "true"},
		{"", `regexp("(", "a")`, "error"},
		{"", `regexp("a", undefined)`, "undefined"},
		{"", "regexp(error, undefined)", "error"},
		{"", `regexp("a", 1)`, "error"},
		{"", `regexp("a", "a", undefined)`, "undefined"},
		{"", `regexp("a", "a", 1)`, "error"},
		{"", `regexpMember("b", {"a", "b"})`, "true"},
		{"", `regexpMember("z", {"a", undefined})`, "undefined"},
		{"", `regexpMember("a", {"a", undefined})`, "true"},
		{"", `regexpMember("z", {1, "a"})`, "error"},
		{"", `regexpMember("a", "a")`, "error"},
		{"", `regexpMember(undefined, {"a"}, error)`, "error"},
		{"", `regexpMember("a", {"A"}, "i")`, "true"},
		{"", `regexpMember("a", {"a"}, undefined)`, "undefined"},
		{"", `stringList_regexpMember("^b", "a, b")`, "true"},
		{"", `stringList_regexpMember("^z", "a, b")`, "false"},
		{"", `stringList_regexpMember("a", "")`, "undefined"},
		{"", `stringList_regexpMember("A", "a", ", ", "I")`, "true"},
		{"", `stringList_regexpMember("a", "x;a", ";")`, "true"},
		{"", `stringList_regexpMember("a", undefined)`, "error"},
	})
	addTable("substitute", []row{
		{"", `regexps("b(.)", "abcd", "[\\1]")`, `"[c]"`},
		{"", `regexps("x", "abc", "y")`, `""`},
		{"", `regexps("b", "abc", "y", "f")`, `"ayc"`},
		{"", `regexps("B", "abcb", "x", "ig")`, `"xx"`},
		{"", `regexps("(a)|(b)", "a", "\\2")`, "error"},
		{"", `regexps("(a)|(b)", "b", "[\\1\\2]")`, `"[b]"`},
		{"", `regexps("a", "a", "x\\.y")`, `"x\\.y"`},
		{"", `replace("b", "abcb", "x")`, `"axcb"`},
		{"", `replace("z", "abc", "x")`, `"abc"`},
		{"", `replaceAll("b", "abcb", "x")`, `"axcx"`},
		{"", `replaceAll("B", "abc", "x", "i")`, `"axc"`},
		{"", `replaceAll("a*", "baaac", "x")`, "error"},
		{"", `replaceAll("^a*", "aab", "x")`, `"xb"`},
		{"", `replace("a", undefined, "b")`, "undefined"},
		{"", `replace(1, "a", "b")`, "error"},
	})
}

func TestRegexp(t *testing.T)     { runTable(t, "regexp") }
func TestSubstitute(t *testing.T) { runTable(t, "substitute") }
