package queue

import (
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// A job's history record, written from its cluster's attributes encoded
// once, is the bytes View.AppendJSON writes for the job.
func TestHistoryJSON(t *testing.T) {
	cluster := mustAd(t, `[ Owner = "alice"; JobStatus = 1; Cmd = "/bin/a \"b\""; Requirements = TARGET.Memory >= RequestMemory && Arch == "X86_64"; RequestMemory = 128; Rate = -1.5; Neg = -3; U = undefined ]`)
	for _, own := range []string{
		`[ ProcId = 0 ]`,
		`[ ProcId = 1; JobStatus = 3; RemoveReason = "via kite rm\n(by user alice)" ]`,
		`[ ProcId = 2; RequestMemory = undefined; Extra = { 1, "x" }; Nested = [ a = 1 ] ]`,
		`[ ]`,
		`[ cmd = "/bin/other"; requirements = true ]`,
		`[ 'odd "name"' = 1; 'true' = 2; Plain = -2.5 ]`,
	} {
		c := &Cluster{ID: 1, Owner: "alice", ad: cluster}
		v := View{Cluster: cluster, Own: mustAd(t, own)}
		var rec ast.Record
		want := string(v.AppendJSON(nil, nil, &rec, nil))
		var over []int
		for range 2 { // the second from the cached encoding
			if got := string(appendHistoryJSON(nil, c, v.Own, &over)); got != want {
				t.Errorf("own %s:\n got %s\nwant %s", own, got, want)
			}
		}
	}
}
