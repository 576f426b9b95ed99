package eval_test

import "testing"

func init() {
	addTable("expressions", []row{
		{"", "ifThenElse(true, 1, 2)", "1"},
		{"", "ifThenElse(0, 1, 2)", "2"},
		{"", "ifThenElse(undefined, 1, 2)", "undefined"},
		{"", `ifThenElse("a", 1, 2)`, "error"},
		{"", "ifThenElse(error, 1, 2)", "error"},
		{"", "ifThenElse(true, 1, 1 / 0)", "1"},
		{"", `eval("1 + 2")`, "3"},
		{"", "eval(5)", "5"},
		{"", "eval({1})", "{ 1 }"},
		{"", "eval(undefined)", "error"},
		{"", `eval("1 +")`, "error"},
		{"[ A = 2 ]", `eval("A * 3")`, "6"},
		{"[ A = 1 + 2; B = A ]", "unparse(A)", `"1 + 2"`},
		{"[ A = 1 + 2; B = A ]", "unparse(C)", `""`},
		{"[ A = 1 + 2; B = A ]", "unparse(MY.A)", `""`},
		{"[ A = 1 + 2 ]", "unparse(1)", "error"},
		{"[ A = 1 + 2 ]", "unparse(A + 1)", "error"},
		{"[ A = B + C; B = 1 ]", "unresolved(A)", `"C"`},
		{"[ A = B + C; B = 1 ]", `unresolved(A, "c")`, "true"},
		{"[ A = B + C; B = 1 ]", `unresolved(A, "^b$")`, "false"},
		{"[ A = B + C; B = 1 ]", "unresolved(Z)", "undefined"},
		{"[ A = B + C; B = 1 ]", "unresolved(A, 5)", "EVAL_FAIL"},
		{"[ A = B + C; B = 1 ]", "unresolved(1)", "error"},
		{"", "debug(1 + 1)", "2"},
	})
}

func TestExpressions(t *testing.T) { runTable(t, "expressions") }
