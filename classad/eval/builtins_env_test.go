package eval_test

import (
	"os/user"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/eval"
)

func init() {
	addTable("environment", []row{
		{"", `envV1ToV2("A=1;B=x y")`, `"A=1 B=x' 'y"`},
		{"", `envV1ToV2("|A=1|B=2")`, `"A=1 B=2"`},
		{"", `envV1ToV2("B=2;A=1")`, `"A=1 B=2"`},
		{"", `envV1ToV2("A=it's")`, `"A=it''''s"`},
		{"", `envV1ToV2("")`, `""`},
		{"", "envV1ToV2(undefined)", "undefined"},
		{"", "envV1ToV2(5)", "error"},
		{"", `envV1ToV2("A")`, "error"},
		{"", `envV1ToV2("=1")`, "error"},
		{"", `mergeEnvironment("A=1 B=2", undefined, "A=3")`, `"A=3 B=2"`},
		{"", "mergeEnvironment()", `""`},
		{"", `mergeEnvironment("A='x y'")`, `"A=x' 'y"`},
		{"", `mergeEnvironment("A")`, "error"},
		{"", "mergeEnvironment(1)", "error"},
		{"", `mergeEnvironment("A='x")`, "error"},
	})
	addTable("arguments", []row{
		{"", `listToArgs({"a b", "c'd", ""})`, `"a' 'b c''''d ''"`},
		{"", `listToArgs({"a", "b"}, 1)`, `"a b"`},
		{"", `listToArgs({"a b"}, 1)`, "error"},
		{"", "listToArgs({1})", "error"},
		{"", `listToArgs("a")`, "error"},
		{"", `listToArgs({"a"}, 3)`, "error"},
		{"", `listToArgs({"a"}, "1")`, "error"},
		{"", "listToArgs({})", `""`},
		{"", `argsToList("a 'b c' d")`, `{ "a","b c","d" }`},
		{"", `argsToList("a 'b c'", 1)`, `{ "a","'b","c'" }`},
		{"", `argsToList("'a''b'")`, `{ "a'b" }`},
		{"", `argsToList("''")`, `{ "" }`},
		{"", `argsToList("'a")`, "error"},
		{"", "argsToList(undefined)", "error"},
		{"", `argsToList("a", 0)`, "error"},
	})
	addTable("users", []row{
		{"", "userHome(undefined)", "undefined"},
		{"", `userHome(undefined, "/x")`, `"/x"`},
		{"", "userHome(5)", "error"},
		{"", `userHome(5, "/x")`, `"/x"`},
		{"", `userHome("root")`, "undefined"},
		{"", `userHome("root", "/d")`, `"/d"`},
		{"", `userHome("root", "")`, "undefined"},
		{"", "userHome()", "EVAL_FAIL"},
		{"", `userHome("a", "b", "c")`, "EVAL_FAIL"},
		{"", `userMap("m", "u")`, "undefined"},
		{"", `userMap("m", "u", "g")`, "undefined"},
		{"", `userMap("m", "u", "g", "def")`, `"def"`},
		{"", `userMap("m", 5, "g", 7)`, "7"},
		{"", `userMap(error, "u")`, "error"},
		{"", `userMap("m", undefined)`, "undefined"},
	})
}

func TestEnvironment(t *testing.T) { runTable(t, "environment") }
func TestArguments(t *testing.T)   { runTable(t, "arguments") }
func TestUsers(t *testing.T)       { runTable(t, "users") }

// TestUserMapHook installs a user map and checks the forms of userMap.
func TestUserMapHook(t *testing.T) {
	eval.SetUserMapper(func(m, u string) (string, bool) {
		if m == "groups" && u == "alice" {
			return "physics, Chemistry", true
		}
		if m == "groups" && u == "nobody" {
			return " , ", true
		}
		return "", false
	})
	defer eval.SetUserMapper(nil)
	for _, r := range []row{
		{"", `userMap("groups", "alice")`, `"physics, Chemistry"`},
		{"", `userMap("groups", "alice", "chemistry")`, `"Chemistry"`},
		{"", `userMap("groups", "alice", "biology")`, `"physics"`},
		{"", `userMap("groups", "alice", undefined, "x")`, `"physics"`},
		{"", `userMap("groups", "nobody", "a")`, "undefined"},
		{"", `userMap("groups", "nobody", "a", "dflt")`, `"dflt"`},
		{"", `userMap("groups", "bob", "a", "dflt")`, `"dflt"`},
		{"", `userMap("other", "alice")`, "undefined"},
	} {
		if got := evalRow(t, r); got != r.want {
			t.Errorf("%s = %s, want %s", r.expr, got, r.want)
		}
	}
}

// TestUserHomeLookup turns lookups on and finds the current user's home.
func TestUserHomeLookup(t *testing.T) {
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skip("no current user with a home directory")
	}
	eval.EnableUserHome(true)
	defer eval.EnableUserHome(false)
	quoted := `"` + strings.ReplaceAll(u.HomeDir, `"`, `\"`) + `"`
	for _, r := range []row{
		{"", `userHome("` + u.Username + `")`, quoted},
		{"", `userHome("no such user, surely")`, "undefined"},
		{"", `userHome("no such user, surely", "/d")`, `"/d"`},
	} {
		if got := evalRow(t, r); got != r.want {
			t.Errorf("%s = %s, want %s", r.expr, got, r.want)
		}
	}
}
