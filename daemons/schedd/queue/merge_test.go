package queue

import (
	"os"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/parser"
)

// A job's whole ad is its cluster's attributes in their order and
// spelling, each replaced by the job's own value when it has one, then
// the job's others in their order; a job's undefined hides its cluster's
// value, and the names left out are left out whoever defines them (a job
// inherits its cluster's attributes: HTCondor manual, condor_qedit).
func TestMergeOrder(t *testing.T) {
	tests := []struct {
		cluster, own string
		without      []string
		want         string
	}{
		{`[ A = 1; B = 2 ]`, `[ ProcId = 0; b = 5; C = A + 1 ]`, nil, `[ A = 1; B = 5; ProcId = 0; C = A + 1 ]`},
		{`[ A = 1; B = 2; D = 3 ]`, `[ ProcId = 0; B = undefined; E = 4 ]`, nil, `[ A = 1; D = 3; ProcId = 0; E = 4 ]`},
		{`[ A = 1; Secret = "c"; B = 2 ]`, `[ ProcId = 0; SECRET = "o"; Addr = "x"; A = 9 ]`, []string{"secret", "Addr"},
			`[ A = 9; B = 2; ProcId = 0 ]`},
		{`[ ]`, `[ ProcId = 0; X = undefined ]`, nil, `[ ProcId = 0 ]`},
		{`[ n0 = 0; n1 = 1; n2 = 2; n3 = 3; n4 = 4; n5 = 5; n6 = 6; n7 = 7; n8 = 8; n9 = 9 ]`,
			`[ ProcId = 1; N4 = undefined; n9 = 90; m0 = 0; m1 = 1; m2 = 2; m3 = 3; m4 = 4; m5 = 5; m6 = 6; m7 = 7 ]`, []string{"m3"},
			`[ n0 = 0; n1 = 1; n2 = 2; n3 = 3; n5 = 5; n6 = 6; n7 = 7; n8 = 8; n9 = 90; ProcId = 1; m0 = 0; m1 = 1; m2 = 2; m4 = 4; m5 = 5; m6 = 6; m7 = 7 ]`},
	}
	for _, tt := range tests {
		v := View{Cluster: mustAd(t, tt.cluster), Own: mustAd(t, tt.own)}
		clusterWas, ownWas := classad.Unparse(v.Cluster), classad.Unparse(v.Own)
		got := merge(v.Cluster, v.Own, tt.without...)
		if s := classad.Unparse(got); s != tt.want {
			t.Errorf("%s %s without %v:\n got %s\nwant %s", tt.cluster, tt.own, tt.without, s, tt.want)
		}
		// The ad is the caller's: changing it changes neither input.
		for i := range 20 {
			got.Set("added"+string(rune('a'+i)), ast.Int(int64(i)))
		}
		got.Set("A", ast.Int(-1))
		got.Delete("ProcId")
		if classad.Unparse(v.Cluster) != clusterWas || classad.Unparse(v.Own) != ownWas {
			t.Errorf("%s %s: changing the job's ad changed its cluster's or own: %s %s", tt.cluster, tt.own,
				classad.Unparse(v.Cluster), classad.Unparse(v.Own))
		}
	}
}

// benchView is a job as the schedd holds it: the benchmark job ad as its
// cluster's, with a running job's own attributes.
func benchView(b *testing.B) View {
	b.Helper()
	src, err := os.ReadFile("../../../classad/testdata/bench/startd-job.ad")
	if err != nil {
		b.Fatal(err)
	}
	r, err := parser.ParseOld(string(src))
	if err != nil {
		b.Fatal(err)
	}
	return View{Cluster: eval.FromRecord(r), Own: mustAd(b, `[ ProcId = 7; JobStatus = 2; EnteredCurrentStatus = 1700000000;
		JobStartDate = 1700000000; JobCurrentStartDate = 1700000000; NumJobStarts = 1; LastJobStatus = 1;
		RemoteHost = "slot1@host"; ClaimId = "abc"; StartdAddr = "host:9800"; ShadowBday = 1700000000; JobRunCount = 1 ]`)}
}

// BenchmarkViewAdWithout makes a job's ad for its activation, as the
// schedd does for every job it starts.
func BenchmarkViewAdWithout(b *testing.B) {
	v := benchView(b)
	b.ReportAllocs()
	for b.Loop() {
		v.AdWithout("ClaimId", "StartdAddr", "KiteReplicaClaims")
	}
}

// BenchmarkViewAd makes a job's whole ad, as the schedd does for a job
// that ends.
func BenchmarkViewAd(b *testing.B) {
	v := benchView(b)
	b.ReportAllocs()
	for b.Loop() {
		v.Ad()
	}
}
