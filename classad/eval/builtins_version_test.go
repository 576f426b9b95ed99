package eval_test

import (
	"testing"

	"github.com/kite-sched/kite/classad/eval"
)

func init() {
	addTable("version", []row{
		{"", `versioncmp("1.10", "1.9")`, "1"},
		{"", `versioncmp("100", "9")`, "2"},
		{"", `versioncmp("1.9", "1.2.3a")`, "7"},
		{"", `versioncmp("abc", "abd")`, "-1"},
		{"", `versioncmp("a", "a")`, "0"},
		{"", `versioncmp("1.01", "1.1")`, "-1"},
		{"", `versioncmp("1.0", "1.00")`, "1"},
		{"", "versioncmp(10, 9)", "1"},
		{"", `versioncmp("a", {1})`, "-26"},
		{"", "versioncmp(undefined, error)", "undefined"},
		{"", `versioncmp("a", error)`, "error"},
		{"", `VersionCmp("2", "10")`, "-1"},
		{"", `versionGT("1.10", "1.9")`, "true"},
		{"", `versionLT("1.10", "1.9")`, "false"},
		{"", `versionGE("1", "1")`, "true"},
		{"", `versionLE("1", "2")`, "true"},
		{"", `versionEQ("1.0", "1.0")`, "true"},
		{"", `versionle("1", "2")`, "error"},
		{"", `VERSIONGT(undefined, "1")`, "undefined"},
		{"", `version_gt("2", "1")`, "error"},
		{"", `version_in_range("1.5", "1.0", "2.0")`, "true"},
		{"", `version_in_range("2.5", "1.0", "2.0")`, "false"},
		{"", `version_in_range(undefined, "1", "2")`, "error"},
		{"", `version_in_range("1", undefined, error)`, "undefined"},
		{"", `version_in_range("1", error, "2")`, "error"},
	})
	addTable("unregistered", []row{
		{"", "abs(-1)", "error"},
		{"", `strlen("abc")`, "error"},
		{"", "log(10)", "error"},
		{"", "exp(1)", "error"},
		{"", "sqrt(4)", "error"},
		{"", "isNumber(1)", "error"},
		{"", "inDays(relTime(86400))", "error"},
		{"", "makeDate(1, 2, 2000)", "error"},
	})
}

func TestVersion(t *testing.T)      { runTable(t, "version") }
func TestUnregistered(t *testing.T) { runTable(t, "unregistered") }

// TestVersionCompareOrder checks natural_cmp's ordering on a sorted list.
func TestVersionCompareOrder(t *testing.T) {
	sorted := []string{"1.0", "1.2", "1.2.3", "1.2.10", "1.10", "2", "10", "a", "b"}
	for i := 0; i+1 < len(sorted); i++ {
		if c := eval.VersionCompare(sorted[i], sorted[i+1]); c >= 0 {
			t.Errorf("VersionCompare(%q, %q) = %d, want < 0", sorted[i], sorted[i+1], c)
		}
		if c := eval.VersionCompare(sorted[i+1], sorted[i]); c <= 0 {
			t.Errorf("VersionCompare(%q, %q) = %d, want > 0", sorted[i+1], sorted[i], c)
		}
	}
}
