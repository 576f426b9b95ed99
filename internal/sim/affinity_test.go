package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// A machine with an affinity runs the jobs it favours that many times
// faster, in pull and queue dispatch, and its slot ad shows its power for
// each job as KitePower; a machine without one shows its plain speed.
func TestAffinity(t *testing.T) {
	const jobs = `
[[machines]]
name = "vec"
speed = 2
affinity = 'TARGET.KiteJobType == "v" ? 4 : 1'
[[workload]]
type = "v"
size = 80
[[workload]]
type = "s"
size = 80
arrival = { at = 1 }
[[policy]]
strategy = "condor"
`
	for _, tc := range []struct {
		dispatch string
		span     float64
	}{{"pull", 50}, {"queue", 50}} { // s arrives at 1 and waits for v: 10 + 40

		r := simulate(t, "[pool]\ncycle_delay = 0\ndispatch = \""+tc.dispatch+"\"\n"+jobs, 0, 1)
		got := map[string]float64{}
		for _, ty := range r.Types {
			got[ty.Type] = ty.Metrics.ExecMean
		}
		if got["v"] != 10 || got["s"] != 40 || r.All.Makespan != tc.span {
			t.Errorf("%s: exec v %v s %v, makespan %v; want 10, 40 (80/(2·4), 80/2) and %v", tc.dispatch, got["v"], got["s"], r.All.Makespan, tc.span)
		}
	}

	sc := parse(t, jobs+"[[machines]]\nname = \"plain\"\nspeed = 3\n")
	job := classad.NewAd()
	for _, c := range []struct {
		group int
		typ   string
		want  float64
	}{{0, "v", 8}, {0, "s", 2}, {1, "v", 3}} {
		slots, err := buildSlots(sc.Setups[0], buildMachines(sc.Setups[0], 1), Pull, nil)
		if err != nil {
			t.Fatal(err)
		}
		job.Set(attr.KiteJobType, ast.Str(c.typ))
		v, _ := classad.EvalAttr(slots[c.group].ad, attr.KitePower, job)
		if n, _ := v.NumberValue(); n != c.want {
			t.Errorf("machines[%d] KitePower for a %s job: %v, want %v", c.group, c.typ, v, c.want)
		}
	}
}

// An affinity that gives no positive number for a job fails the run,
// naming the group and the job type.
func TestAffinityNotPositive(t *testing.T) {
	sc := parse(t, `
[[machines]]
affinity = 'TARGET.KiteJobType == "v" ? 0 : 1'
[[workload]]
type = "v"
size = 10
[[policy]]
`)
	_, err := Simulate(context.Background(), sc.Setups[0], sc.Setups[0].Policies[0], 1)
	if err == nil || !strings.Contains(err.Error(), "machines[0].affinity") || !strings.Contains(err.Error(), "type v") {
		t.Errorf("err = %v, want machines[0].affinity ... type v", err)
	}
}
