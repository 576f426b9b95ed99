package sim

import (
	"context"
	"testing"
)

// The simulated schedds group idle jobs as the schedd does
// (internal/autocluster): jobs of a group that differ only in values no
// expression reads share an autocluster, a job that reads itself by
// computed names (eval of a string made at run time) sets every attribute
// but ProcId apart, and a significant attribute the jobs differ in does.
func TestAutoclusters(t *testing.T) {
	const machines = "[[machines]]\ncount = 2\n[[policy]]\n"
	tests := []struct {
		name, workload string
		want           int
	}{
		{"alike jobs", `size = { dist = "exponential", mean = 10 }`, 1},
		{"computed names", `size = { dist = "exponential", mean = 10 }
requirements = 'eval(strcat("TARGET.", "Cpus")) >= 1'`, 5},
		{"computed names, equal sizes", `size = 10
requirements = 'eval(strcat("TARGET.", "Cpus")) >= 1'`, 1},
		{"own size read", `size = { dist = "exponential", mean = 10 }
requirements = 'TARGET.Cpus >= 1 && KiteWork > 0'`, 5},
		{"literal eval not followed", `size = { dist = "exponential", mean = 10 }
requirements = 'eval("KiteWork > 0")'`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := parse(t, machines+"[[workload]]\ncount = 5\n"+tt.workload+"\n")
			e, err := newEngine(context.Background(), sc.Setups[0], sc.Setups[0].Policies[0], 1)
			if err != nil {
				t.Fatal(err)
			}
			for j := range e.jobs {
				e.autoclusterOf(int32(j))
			}
			if len(e.acs) != tt.want {
				t.Errorf("%d autoclusters of 5 jobs, want %d", len(e.acs), tt.want)
			}
		})
	}
}
