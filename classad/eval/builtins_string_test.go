package eval_test

import "testing"

func init() {
	addTable("strcat", []row{
		{"", `strcat("a", 1, 2.5, true)`, `"a12.500000000000000E+00true"`},
		{"", "strcat()", `""`},
		{"", `strcat("a", undefined, error)`, "undefined"},
		{"", `strcat("a", error, undefined)`, "error"},
		{"", "strcat({1})", `"{ 1 }"`},
		{"", "strcat(absTime(0, 0))", `"1970-01-01T00:00:00-00:00"`},
		{"", "strcat(relTime(65))", `"01:05"`},
	})
	addTable("join", []row{
		{"", `join(",", "a", "b")`, `"a,b"`},
		{"", `join(",", {"a", 1})`, `"a,1"`},
		{"", `join({"a", "b"})`, `"ab"`},
		{"", `join(",", "", "a")`, `"a"`},
		{"", `join(",", "a", "", "b")`, `"a,,b"`},
		{"", `join(",", undefined, "b")`, `"b"`},
		{"", `join(",", undefined)`, "undefined"},
		{"", `join(undefined, {"a", "b"})`, `"ab"`},
		{"", "join(undefined, {})", "undefined"},
		{"", `join(",")`, `""`},
		{"", `join("abc")`, `""`},
		{"", "join(error)", "error"},
		{"", `join(",", {1, error})`, "error"},
		{"", "join()", `""`},
		{"", `join(",", {})`, `""`},
	})
	addTable("substr", []row{
		{"", `substr("abcdef", 2)`, `"cdef"`},
		{"", `substr("abcdef", 2, 2)`, `"cd"`},
		{"", `substr("abcdef", -2)`, `"ef"`},
		{"", `substr("abcdef", 1, -2)`, `"bcd"`},
		{"", `substr("abc", -5, 2)`, `"ab"`},
		{"", `substr("abc", 5)`, `""`},
		{"", `substr("abc", 1, 0)`, `""`},
		{"", `substr("abc", 0, -5)`, `""`},
		{"", `substr("abc", 4294967297)`, `"bc"`},
		{"", "substr(undefined, error)", "undefined"},
		{"", `substr("abc", error)`, "error"},
		{"", `substr("abc", 1.0)`, "error"},
		{"", "substr(5, 1)", "error"},
	})
	addTable("size", []row{
		{"", `size("abc")`, "3"},
		{"", `size("")`, "0"},
		{"", "size({1, 2})", "2"},
		{"", "size([a = 1; b = 2])", "2"},
		{"", "size(undefined)", "undefined"},
		{"", "size(5)", "error"},
	})
	addTable("case", []row{
		{"", `toUpper("abC1")`, `"ABC1"`},
		{"", `toUpper("é") =?= "é"`, "true"},
		{"", "toUpper(1.5)", `"1.500000000000000E+00"`},
		{"", "toUpper(true)", `"TRUE"`},
		{"", `toUpper({"a"})`, `"{ \"A\" }"`},
		{"", `toLower("ABC")`, `"abc"`},
		{"", "toLower(undefined)", "undefined"},
		{"", "toLower(error)", "error"},
	})
	addTable("strcmp", []row{
		{"", `strcmp("a", "b")`, "-1"},
		{"", `strcmp("b", "a")`, "1"},
		{"", `strcmp("a", "a")`, "0"},
		{"", `strcmp("a", "A")`, "1"},
		{"", `strcmp(1, "1")`, "0"},
		{"", "strcmp(undefined, error)", "undefined"},
		{"", `strcmp("a", error)`, "error"},
		{"", `stricmp("a", "A")`, "0"},
		{"", `stricmp("a", "B")`, "-1"},
	})
	addTable("split", []row{
		{"", `split("a b,c")`, `{ "a","b","c" }`},
		{"", `split("a,,b")`, `{ "a","","b" }`},
		{"", `split(",,a")`, `{ "","a" }`},
		{"", `split("a, ,b")`, `{ "a","","b" }`},
		{"", `split("a  b")`, `{ "a","b" }`},
		{"", `split("a;b", ";")`, `{ "a","b" }`},
		{"", `split("a b", "")`, `{ "a b" }`},
		{"", `split("")`, "{  }"},
		{"", "split(undefined)", "error"},
		{"", "split(5)", "error"},
		{"", `split("a", undefined)`, "error"},
		{"", `splitUserName("a@b@c")`, `{ "a","b@c" }`},
		{"", `splitUserName("ab")`, `{ "ab","" }`},
		{"", `splitSlotName("ab")`, `{ "","ab" }`},
		{"", `splitSlotName("slot1@host")`, `{ "slot1","host" }`},
		{"", "splitUserName(undefined)", "error"},
	})
}

func TestStrcat(t *testing.T) { runTable(t, "strcat") }
func TestJoin(t *testing.T)   { runTable(t, "join") }
func TestSubstr(t *testing.T) { runTable(t, "substr") }
func TestSize(t *testing.T)   { runTable(t, "size") }
func TestCase(t *testing.T)   { runTable(t, "case") }
func TestStrcmp(t *testing.T) { runTable(t, "strcmp") }
func TestSplit(t *testing.T)  { runTable(t, "split") }
