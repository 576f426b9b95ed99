package autocluster

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

func parse(t *testing.T, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return ad
}

// Procs share an autocluster when what slots and their own expressions
// read of them is equal; a proc that sets such an attribute gets its own.
func TestOf(t *testing.T) {
	cluster := `[ RequestMemory = 100; Requirements = TARGET.Memory >= RequestMemory && MY.Color == "red"; Color = "red"; Out = "o" ]`
	escape := `[ Requirements = eval(strcat("Tar", "get.Memory")) > 0; Out = "o" ]`
	tests := []struct {
		name      string
		cluster   string
		a, b      string
		same      bool
		asCluster bool // a has the signature of the cluster ad alone
	}{
		{"outputs differ", cluster, `[ ProcId = 0; Out = "a" ]`, `[ ProcId = 1; Out = "b" ]`, true, true},
		{"memory differs", cluster, `[ ProcId = 0; RequestMemory = 200 ]`, `[ ProcId = 1 ]`, false, false},
		{"own reference differs", cluster, `[ ProcId = 0; Color = "blue" ]`, `[ ProcId = 1 ]`, false, false},
		{"significant for the pool", cluster, `[ ProcId = 0; Disk = 5 ]`, `[ ProcId = 1 ]`, false, false},
		{"equal values set by the proc", cluster, `[ ProcId = 0; Color = "red" ]`, `[ ProcId = 1 ]`, true, true},
		{"computed names", escape, `[ ProcId = 0; Out = "a" ]`, `[ ProcId = 1; Out = "b" ]`, false, false},
		{"computed names, ProcId apart", escape, `[ ProcId = 0 ]`, `[ ProcId = 1 ]`, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewSigner([]string{"Disk"})
			c := parse(t, tt.cluster)
			a := Proc{c, parse(t, tt.a)}
			b := Proc{c, parse(t, tt.b)}
			sa, sb := g.Of(c, a.Own, a), g.Of(c, b.Own, b)
			if same := sa == sb; same != tt.same {
				t.Errorf("same autocluster %v, want %v", same, tt.same)
			}
			if cached := sa == g.ClusterSignature(c); cached != tt.asCluster {
				t.Errorf("signature of a is the cluster's: %v, want %v", cached, tt.asCluster)
			}
			if whole := g.Signature(a); sa != whole {
				t.Errorf("Of %q, the whole job's signature %q", sa, whole)
			}
		})
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		name string
		job  string
		want []string
	}{
		{"requirements and rank always", `[ A = 1 ]`, []string{"a:no", "rank", "requirements", "disk"}},
		{"own references followed", `[ Requirements = TARGET.Memory > Need; Need = Base * 2; Base = 1; Other = 2 ]`,
			[]string{"base", "need", "rank", "requirements", "disk", "other:no", "memory:no"}},
		{"rank's references", `[ Rank = MY.Weight * TARGET.Mips; Weight = 2 ]`, []string{"weight", "mips:no"}},
		{"computed names make every attribute but ProcId significant", `[ Requirements = eval(E); E = "true"; Out = 1; ProcId = 3 ]`,
			[]string{"e", "out", "procid:no"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := NewSigner([]string{"Disk"}).Names(parse(t, tt.job))
			for _, w := range tt.want {
				n, in := w, true
				if m, ok := strings.CutSuffix(w, ":no"); ok {
					n, in = m, false
				}
				if names[n] != in {
					t.Errorf("%s significant: %v, want %v (names %v)", n, names[n], in, slices.Sorted(maps.Keys(names)))
				}
			}
		})
	}
}

// A proc that sets an attribute itself needs a signature of its own when
// the attribute is significant for its cluster, ProcId excepted.
func TestSetsApart(t *testing.T) {
	c := parse(t, `[ Requirements = TARGET.Memory >= Need && eval("Hidden"); Need = 1; Out = "o"; ProcId = 0 ]`)
	g := NewSigner([]string{"Disk", "ProcId"})
	for _, tt := range []struct {
		name  string
		apart bool
	}{
		{"Need", true}, {"NEED", true}, {"Requirements", true}, {"Rank", true}, {"Disk", true},
		{"ProcId", false}, {"Out", false}, {"Memory", false}, {"Hidden", false},
	} {
		if got := g.SetsApart(c, tt.name); got != tt.apart {
			t.Errorf("SetsApart(%s) = %v, want %v", tt.name, got, tt.apart)
		}
	}
}
