package schedd

import (
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
)

// Jobs share an autocluster when what slots and their own expressions
// read of them is equal; a proc that sets such an attribute gets its own.
func TestSignatures(t *testing.T) {
	cluster := mustParse(`[ RequestMemory = 100; Requirements = TARGET.Memory >= RequestMemory && MY.Color == "red"; Color = "red"; Out = "o" ]`)
	escape := mustParse(`[ Requirements = eval(strcat("Tar", "get.Memory")) > 0; Out = "o" ]`)
	tests := []struct {
		name    string
		cluster *classad.Ad
		a, b    string
		same    bool
	}{
		{"outputs differ", cluster, `[ ProcId = 0; Out = "a" ]`, `[ ProcId = 1; Out = "b" ]`, true},
		{"memory differs", cluster, `[ ProcId = 0; RequestMemory = 200 ]`, `[ ProcId = 1 ]`, false},
		{"own reference differs", cluster, `[ ProcId = 0; Color = "blue" ]`, `[ ProcId = 1 ]`, false},
		{"significant for the pool", cluster, `[ ProcId = 0; Disk = 5 ]`, `[ ProcId = 1 ]`, false},
		{"computed names", escape, `[ ProcId = 0; Out = "a" ]`, `[ ProcId = 1; Out = "b" ]`, false},
	}
	for _, tt := range tests {
		g := newSignatures([]string{"Disk"})
		a := queue.View{Cluster: tt.cluster, Own: mustParse(tt.a)}
		b := queue.View{Cluster: tt.cluster, Own: mustParse(tt.b)}
		if same := g.of(&a) == g.of(&b); same != tt.same {
			t.Errorf("%s: same autocluster %v, want %v", tt.name, same, tt.same)
		}
	}
}
