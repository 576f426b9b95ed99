package eval_test

import "testing"

func init() {
	addTable("member", []row{
		{"", "member(1, {1, 2})", "true"},
		{"", "member(1.0, {1})", "true"},
		{"", `member("A", {"a"})`, "true"},
		{"", "member(3, {1, 2})", "false"},
		{"", "member(1, {undefined, 1})", "true"},
		{"", `member(1, {"a"})`, "false"},
		{"", "member(undefined, {1})", "undefined"},
		{"", "member(1, undefined)", "undefined"},
		{"", "member(error, undefined)", "undefined"},
		{"", "member(error, {1})", "error"},
		{"", "member({1}, {{1}})", "error"},
		{"", "member(1, 1)", "error"},
		{"", "identicalMember(1.0, {1})", "false"},
		{"", `identicalMember("A", {"a"})`, "false"},
		{"", "identicalMember(undefined, {undefined})", "true"},
		{"", "identicalMember(error, {error})", "true"},
		{"", "identicalMember(1, undefined)", "undefined"},
		{"", "identicalMember(undefined, {1})", "false"},
	})
	addTable("listCompare", []row{
		{"", `anyCompare("<", {1, 5}, 3)`, "true"},
		{"", `allCompare("<", {1, 5}, 3)`, "false"},
		{"", `allCompare("<", {}, 3)`, "true"},
		{"", `anyCompare("<", {}, 3)`, "false"},
		{"", `anyCompare("==", {undefined, 1}, 1)`, "false"},
		{"", `allCompare("==", {1, undefined}, 1)`, "false"},
		{"", `anyCompare("==", {"a", 1}, 1)`, "error"},
		{"", `anyCompare("is", {1.0, 1}, 1)`, "true"},
		{"", `anyCompare("isnt", {1}, {1})`, "true"},
		{"", `anyCompare("IS", {1}, 1)`, "error"},
		{"", `anyCompare("=?=", {1}, 1)`, "error"},
		{"", "anyCompare(undefined, error, 1)", "undefined"},
		{"", "anyCompare(5, {1}, 1)", "error"},
		{"", `anyCompare("<", undefined, 1)`, "undefined"},
		{"", `anyCompare("<", 5, 1)`, "error"},
	})
	addTable("contexts", []row{
		{"", "evalInEachContext(x * 2, {[x = 1], [x = 2]})", "{ 2,4 }"},
		{"", "evalInEachContext(x, {[x = 1], undefined, 3})", "{ 1,undefined,error }"},
		{"", "evalInEachContext(x, undefined)", "undefined"},
		{"", "evalInEachContext(x, 5)", "error"},
		{"", "countMatches(x > 1, {[x = 1], [x = 2], [x = 3]})", "2"},
		{"", "countMatches(x, {[x = 1], [x = 0], 5})", "1"},
		{"", "countMatches(x, undefined)", "0"},
		{"", "countMatches(x, 5)", "error"},
		{"[ Req = Cap > 4; Gpus = { [ Cap = 3 ], [ Cap = 5 ] } ]", "countMatches(Req, Gpus)", "1"},
		{"[ Req = Cap > 4; Gpus = { [ Cap = 3 ], [ Cap = 5 ] } ]", "evalInEachContext(MY.Req, Gpus)", "{ false,true }"},
	})
}

func TestMember(t *testing.T)      { runTable(t, "member") }
func TestListCompare(t *testing.T) { runTable(t, "listCompare") }
func TestContexts(t *testing.T)    { runTable(t, "contexts") }
