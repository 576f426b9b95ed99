package schedd

import (
	"context"
	"github.com/kite-sched/kite/internal/metrics/metricstest"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

const threeJobs = `
executable = /bin/sleep
arguments  = $(Process)
output     = out.$(Process)
log        = job.log
queue 3
`

// Submit, query, hold, release, edit and remove, as the tools do them,
// each change in the job event log.
func TestQueueLifecycle(t *testing.T) {
	p := pooltest.New(t)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	c := h.mustSubmit("alice", dir, threeJobs)
	if c != 1 {
		t.Errorf("first cluster %d", c)
	}
	bob := h.mustSubmit("bob", dir, "executable = /bin/true\nqueue\n")

	got := summary(h.query("carol", wire.JobQuery{Projection: []string{"ClusterId", "ProcId", "Owner", "Args", "JobStatus"}}),
		"ClusterId", "ProcId", "Owner", "Args", "JobStatus")
	want := "1 0 \"alice\" \"0\" 1\n1 1 \"alice\" \"1\" 1\n1 2 \"alice\" \"2\" 1\n2 0 \"bob\" undefined 1"
	if got != want {
		t.Errorf("queue:\n%s\nwant\n%s", got, want)
	}
	ads := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{Constraint: "ProcId >= 1", Owners: []string{"alice"}}})
	if len(ads) != 2 || str(ads[0], "User") != "alice@test.org" || str(ads[0], "Out") != "out.1" {
		t.Errorf("constraint query: %d ads, %v", len(ads), ads)
	}
	if ads := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.2", "2"}}, Limit: 1}); len(ads) != 1 {
		t.Errorf("limit: %d ads", len(ads))
	}

	act := func(who string, levels auth.Level, a wire.Act) wire.ActResult {
		t.Helper()
		var res wire.ActResult
		if err := h.client(who, levels).Call(context.Background(), "POST", wire.PathAct, a, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := act("bob", auth.Write, wire.Act{Action: wire.ActHold, JobSelection: wire.JobSelection{IDs: []string{"1"}}}); res.Denied != 3 || res.Changed != 0 {
		t.Errorf("bob holding alice's jobs: %+v", res)
	}
	if res := act("alice", auth.Write, wire.Act{Action: wire.ActHold, JobSelection: wire.JobSelection{IDs: []string{"1.1"}}, Reason: "wait", SubCode: 7}); res.Changed != 1 {
		t.Errorf("hold: %+v", res)
	}
	held := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{Constraint: "JobStatus == 5"}})
	if got := summary(held, "ProcId", "HoldReason", "HoldReasonCode", "HoldReasonSubCode"); got != `1 "wait" 1 7` {
		t.Errorf("held: %s", got)
	}
	if res := act("alice", auth.Write, wire.Act{Action: wire.ActRelease, JobSelection: wire.JobSelection{Owners: []string{"alice"}}}); res.Changed != 1 || res.Matched != 3 {
		t.Errorf("release: %+v", res)
	}
	var edit wire.ActResult
	err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathEdit,
		wire.Edit{JobSelection: wire.JobSelection{IDs: []string{"1.0"}}, Attrs: map[string]string{"Note": `"hi"`, "Weight": "2 * 3"}}, &edit)
	if err != nil || edit.Changed != 1 {
		t.Fatalf("edit: %+v %v", edit, err)
	}
	if got := summary(h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.0"}}}), "Note", "Weight"); got != `"hi" 6` {
		t.Errorf("edited: %s", got)
	}
	if res := act("root", auth.Administrator, wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{"1.2", "2"}}}); res.Changed != 2 {
		t.Errorf("admin remove: %+v", res)
	}
	hist := streamQuery(t, h.client("alice", auth.Read), wire.PathHistory, wire.HistoryQuery{Projection: []string{"ClusterId", "ProcId", "JobStatus", "RemoveReason"}})
	if got := summary(hist, "ClusterId", "ProcId", "JobStatus", "RemoveReason"); got != "2 0 3 \"via kite rm (by user root)\"\n1 2 3 \"via kite rm (by user root)\"" {
		t.Errorf("history:\n%s", got)
	}
	if got := readLog(t, dir+"/job.log"); got != "000 1.0\n000 1.1\n000 1.2\n012 1.1\n013 1.1\n009 1.2" {
		t.Errorf("job log:\n%s", got)
	}
	var totals wire.QueueTotals
	h.client("alice", auth.Read).Call(context.Background(), "GET", wire.PathTotals, nil, &totals)
	if totals.All.Idle != 2 || totals.ByOwner["alice"].Jobs != 2 || totals.Caller != "alice" || len(totals.ByOwner) != 1 || bob != 2 {
		t.Errorf("totals %+v", totals)
	}
}

// Bad requests are refused with a clear message and change nothing.
func TestRefusals(t *testing.T) {
	p := pooltest.New(t)
	h := startSchedd(t, p, testConfig(t))
	h.mustSubmit("alice", t.TempDir(), "executable = /bin/true\nqueue 2\n")
	ctx := context.Background()
	alice := h.client("alice", auth.Write)
	var nc wire.NewCluster
	if err := alice.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		t.Fatal(err)
	}
	submit := func(cluster, body string) error {
		return alice.CallRaw(ctx, "POST", wire.PathSubmit+"?cluster="+cluster, []byte(body), nil)
	}
	c := "2"
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no cluster", submit("", `[{},{"ProcId":0}]`), "the query needs cluster=N"},
		{"not json", submit(c, `[{"Cmd": }]`), "submit: "},
		{"no jobs", submit(c, `[{"Cmd":"/bin/true"}]`), "at least one job"},
		{"proc order", submit(c, `[{"Cmd":"/bin/true"},{"ProcId":1}]`), "job 0: ProcId must be 0"},
		{"universe", submit(c, `[{"JobUniverse":1},{"ProcId":0}]`), "Kite runs the vanilla (5), java (10), scheduler (7) and local (12) universes"},
		{"proc universe", submit(c, `[{"JobUniverse":5},{"ProcId":0,"JobUniverse":12}]`), "the universe is the cluster's"},
		{"owner in proc", submit(c, `[{},{"ProcId":0,"Owner":"root"}]`), "sets Owner, which is immutable"},
		{"running", submit(c, `[{"JobStatus":2},{"ProcId":0}]`), "jobs are submitted idle (1) or held (5)"},
		{"used cluster", submit("1", `[{},{"ProcId":0}]`), "was used already"},
		{"unknown cluster", submit("99", `[{},{"ProcId":0}]`), "not handed out"},
		{"bad constraint", h.client("alice", auth.Write).Call(ctx, "POST", wire.PathAct, wire.Act{Action: "hold", JobSelection: wire.JobSelection{Constraint: "a +"}}, nil), "constraint:1:4"},
		{"no selection", alice.Call(ctx, "POST", wire.PathAct, wire.Act{Action: "remove"}, nil), "name jobs, owners or a constraint"},
		{"bad action", alice.Call(ctx, "POST", wire.PathAct, wire.Act{Action: "smash", JobSelection: wire.JobSelection{All: true}}, nil), `unknown action "smash"`},
		{"protected", alice.Call(ctx, "POST", wire.PathEdit, wire.Edit{JobSelection: wire.JobSelection{All: true}, Attrs: map[string]string{"JobStatus": "4"}}, nil), "JobStatus is protected: use kite hold"},
		{"bad value", alice.Call(ctx, "POST", wire.PathEdit, wire.Edit{JobSelection: wire.JobSelection{All: true}, Attrs: map[string]string{"X": "1 +"}}, nil), "X:1:4"},
		{"reader submits", h.client("rita", auth.Read).Call(ctx, "POST", wire.PathNewCluster, nil, nil), "needs WRITE"},
		{"other's cluster", h.client("bob", auth.Write).CallRaw(ctx, "POST", wire.PathSubmit+"?cluster="+c, []byte(`[{},{"ProcId":0}]`), nil), "handed out to alice"},
		{"tool claims", alice.Call(ctx, "POST", wire.PathMatches, wire.Matches{}, nil), "needs FLOCK"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, tt.err, tt.want)
		}
	}
	if ads := h.query("alice", wire.JobQuery{}); len(ads) != 2 {
		t.Errorf("the queue changed: %d jobs", len(ads))
	}
}

// Every endpoint is documented.
func TestDocumented(t *testing.T) {
	p := pooltest.New(t)
	s, err := New(p.Env("schedd"), testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	pooltest.CheckDocumented(t, s.mux().Routes())
}

// The metrics count jobs by status and the queue's commits, pass the
// linter, are documented, and need a token.
func TestMetrics(t *testing.T) {
	p := pooltest.New(t)
	h := startSchedd(t, p, testConfig(t))
	h.mustSubmit("alice", t.TempDir(), "executable = /bin/true\nqueue 3\n")
	text := metricstest.Check(t, p, h.s.Addr(), h.s.reg, "kite_schedd_jobs", "kite_schedd_commits_total", "kite_schedd_claims")
	for name, want := range map[string]string{`kite_schedd_jobs{status="idle"}`: "3", "kite_schedd_jobs_submitted_total": "3", "kite_schedd_submits_total": "1"} {
		n, labels, _ := strings.Cut(name, "{")
		if labels != "" {
			labels = "{" + labels
		}
		if v, ok := metricstest.Value(text, n, strings.Trim(labels, "{}")); !ok || v != want {
			t.Errorf("%s = %q, want %s", name, v, want)
		}
	}
}
