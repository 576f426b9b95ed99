package schedd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// Submit files of every queue form, through the schedd: the jobs it
// queues are the ones the file describes, with the attributes the schedd
// adds.
func TestSubmitFiles(t *testing.T) {
	p := pooltest.New(t)
	h := startSchedd(t, p, testConfig(t))
	tests := []struct {
		name, file string
		attrs      []string
		want       string
	}{
		{"queue N", "executable = /bin/echo\narguments = $(Cluster).$(Process)\nqueue 3\n",
			[]string{"ProcId", "Args"}, "0 \"1.0\"\n1 \"1.1\"\n2 \"1.2\""},
		{"queue in", "executable = /bin/echo\narguments = $(Item)\nqueue Item in (red, green)\n",
			[]string{"ProcId", "Args"}, "0 \"red\"\n1 \"green\""},
		{"queue from", "executable = /bin/echo\narguments = $(a)-$(b)\nqueue a, b from (\n  x 1\n  y 2\n)\n",
			[]string{"ProcId", "Args"}, "0 \"x-1\"\n1 \"y-2\""},
		{"several queues", "executable = /bin/echo\nrequest_memory = 1 GB\nqueue\nrequest_memory = 2 GB\npriority = 5\nqueue 2\n",
			[]string{"ProcId", "RequestMemory", "JobPrio"}, "0 1024 0\n1 2048 5\n2 2048 5"},
		{"hold and attributes", "executable = /bin/echo\nhold = true\n+Project = \"kite\"\nMY.Weight = 3\nbatch_name = b1\nqueue\n",
			[]string{"JobStatus", "HoldReasonCode", "Project", "Weight", "JobBatchName"}, `5 15 "kite" 3 "b1"`},
		{"schedd's attributes", "executable = /bin/echo\nqueue\n",
			[]string{"Owner", "User", "JobUniverse", "MyType", "TargetType", "TotalSubmitProcs"}, `"alice" "alice@test.org" 5 "Job" "Machine" 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := h.mustSubmit("alice", t.TempDir(), tt.file)
			ads := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{itoa(int(c))}}})
			if got := summary(ads, tt.attrs...); got != strings.ReplaceAll(tt.want, "\"1.", "\""+itoa(int(c))+".") {
				t.Errorf("cluster %d:\n%s\nwant\n%s", c, got, tt.want)
			}
			for _, ad := range ads {
				if q, ok := classad.EvalInt(ad, "QDate"); !ok || q <= 0 {
					t.Errorf("no QDate: %v", ad)
				}
			}
		})
	}
}

// Jobs with an accounting group are their group user's: their own
// submitter ad, and their own resource requests.
func TestAccountingGroups(t *testing.T) {
	p := pooltest.New(t)
	coll := newFakeCollector(t, p)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	h.mustSubmit("alice", dir, "executable = /bin/true\naccounting_group = physics\nqueue 2\n")
	h.mustSubmit("alice", dir, "executable = /bin/true\nqueue\n")
	eventually(t, "the group's submitter ad", func() bool {
		ad := coll.ad("Submitter", "physics.alice@test.org")
		return ad != nil && str(ad, "AcctGroup") == "physics" && summary([]*adT{ad}, "IdleJobs") == "2" &&
			coll.ad("Submitter", "alice@test.org") != nil
	})
	for submitter, want := range map[string]string{"physics.alice@test.org": "2×1", "alice@test.org": "1×2"} {
		var reqs wire.ResourceRequests
		if err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: submitter}, &reqs); err != nil || len(reqs.Requests) != 1 {
			t.Fatalf("%s: %+v %v", submitter, reqs, err)
		}
		if got := fmt.Sprintf("%d×%s", reqs.Requests[0].Count, summary([]*adT{reqs.Requests[0].Ad}, "ClusterId")); got != want {
			t.Errorf("%s: %s, want %s", submitter, got, want)
		}
	}
}
