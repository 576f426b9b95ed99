package eval_test

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/parser"
)

// row is one table-driven case: expr evaluated (with MY bound to ad when
// ad is not empty) must print as want. The expectations are HTCondor's
// answers, worked out from its code where the reference answers do not
// cover a case.
type row struct {
	ad, expr, want string
}

// tables holds every table by family, so that TestEveryBuiltinIsTested can
// look through all of them.
var tables = map[string][]row{}

// addTable registers a family's table; each test file does it in init.
func addTable(family string, rows []row) {
	if _, dup := tables[family]; dup {
		panic("table " + family + " registered twice")
	}
	tables[family] = rows
}

// runTable evaluates every row of a family's table in a subtest.
func runTable(t *testing.T, family string) {
	t.Helper()
	rows, ok := tables[family]
	if !ok {
		t.Fatalf("no table %q", family)
	}
	for _, r := range rows {
		t.Run(r.expr, func(t *testing.T) {
			if got := evalRow(t, r); got != r.want {
				t.Errorf("%s\n  got:  %s\n  want: %s", r.expr, got, r.want)
			}
		})
	}
}

// evalRow evaluates one row and prints its value, or EVAL_FAIL when the
// evaluation itself failed.
func evalRow(t *testing.T, r row) string {
	t.Helper()
	e, err := parser.ParseExpr(r.expr)
	if err != nil {
		t.Fatalf("parse %s: %v", r.expr, err)
	}
	v, err := eval.Evaluate(eval.Compile(e), mustAd(t, r.ad), nil)
	if err != nil {
		return "EVAL_FAIL"
	}
	return v.String()
}

var callName = regexp.MustCompile(`([A-Za-z_][A-Za-z_0-9]*)\s*\(`)

// TestEveryBuiltinIsTested checks that each registered function is called
// in at least one row of some table.
func TestEveryBuiltinIsTested(t *testing.T) {
	called := map[string]bool{}
	for _, rows := range tables {
		for _, r := range rows {
			for _, m := range callName.FindAllStringSubmatch(r.ad+" "+r.expr, -1) {
				called[strings.ToLower(m[1])] = true
			}
		}
	}
	var missing []string
	for _, name := range eval.BuiltinNames() {
		if !called[strings.ToLower(name)] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("builtins without a test row: %s", strings.Join(missing, ", "))
	}
}

// TestRegisteredNames pins the function set to HTCondor 25's: its
// ClassAd library table plus the HTCondor extras, no more, no less.
func TestRegisteredNames(t *testing.T) {
	want := strings.Fields(`absTime allCompare anyCompare argsToList avg bool ceil ceiling
		countMatches currentTime dayTime debug envV1ToV2 eval evalInEachContext floor formatTime
		getDayOfMonth getDayOfWeek getDayOfYear getDays getHours getMinutes getMonth getSeconds
		getYear identicalMember ifThenElse int interval isAbstime isBoolean isClassAd isError
		isInteger isList isReal isReltime isString isUndefined join listToArgs max member
		mergeEnvironment min pow quantize random real regexp regexpMember regexps relTime replace
		replaceAll round size split splitSlotName splitTime splitUserName strcat strcmp stricmp
		string stringListAvg stringListIMember stringListISubsetMatch stringListMax
		stringListMember stringListMin stringListSize stringListSubsetMatch stringListSum
		stringList_regexpMember stringListsIntersect substr sum time timeZoneOffset toLower
		toUpper unparse unresolved userHome userMap versionEQ versionGE versionGT versionLE
		versionLT version_in_range versioncmp`)
	sort.Strings(want)
	got := eval.BuiltinNames()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("registered names:\n  got:  %v\n  want: %v", got, want)
	}
}
