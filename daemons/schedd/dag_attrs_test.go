package schedd

import (
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
)

// SET_JOB_ATTR sets attributes of the DAG's own ad
// (dagman-advance-functionality.rst "Setting Job Ad Attributes"), never
// over DAGMan's: neither those the ad has nor those it has now and then,
// such as ExitCode, which would say a running DAG is over.
func TestSetJobAttrs(t *testing.T) {
	ad := classad.NewAd()
	ad.Set(attr.DAGStatus, ast.Int(0))
	setJobAttrs(ad, []dag.Attr{
		{Name: "TestNumber", Value: "17"}, {Name: "Note", Value: `"x" + "y"`},
		{Name: "dag_status", Value: "9"}, {Name: "exitcode", Value: "5"}, {Name: attr.HoldReason, Value: `"no"`},
	})
	for name, want := range map[string]string{"TestNumber": "17", "Note": `"x" + "y"`, attr.DAGStatus: "0"} {
		if e, ok := ad.Lookup(name); !ok || classad.String(e) != want {
			t.Errorf("%s = %v, want %s", name, e, want)
		}
	}
	for _, name := range []string{attr.ExitCode, attr.HoldReason} {
		if e, ok := ad.Lookup(name); ok {
			t.Errorf("%s = %v, want none", name, e)
		}
	}
}
