package schedd

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// submitLate submits a description that sets max_idle or
// max_materialize as kite submit does: as a job factory.
func (h *harness) submitLate(identity, dir, text string) (wire.SubmitResult, error) {
	h.t.Helper()
	c := h.client(identity, auth.Write)
	d, _, err := submit.Parse("job.sub", []byte(text))
	if err != nil {
		h.t.Fatal(err)
	}
	var nc wire.NewCluster
	if err := c.Call(context.Background(), "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return wire.SubmitResult{}, err
	}
	env := submit.Env{Cluster: int(nc.Cluster), Owner: nc.Owner, Dir: dir, MaxJobs: nc.MaxJobs,
		Host: submit.HostInfo{Arch: "X86_64", OpSys: "LINUX", OpSysAndVer: "Debian12", FileSystemDomain: "test.org"}}
	_, late, _, err := d.ExpandLate(env)
	if err != nil || late == nil {
		h.t.Fatalf("not a factory: %v", err)
	}
	var res wire.SubmitResult
	err = c.CallRaw(context.Background(), "POST", wire.PathSubmitFactory+"?cluster="+strconv.FormatInt(nc.Cluster, 10), late.AppendJSON(nil), &res)
	return res, err
}

// jobsOf lists a cluster's jobs in the queue as proc:status.
func (h *harness) jobsOf(cluster int64) string {
	var out []string
	h.s.q.Read(func(r *queue.Reader) {
		if c := r.Cluster(cluster); c != nil {
			for j := range c.Jobs {
				out = append(out, fmt.Sprintf("%d:%d", j.ID.Proc, j.Status()))
			}
		}
	})
	return strings.Join(out, " ")
}

func (h *harness) act(action string, ids ...string) wire.ActResult {
	h.t.Helper()
	var res wire.ActResult
	in := wire.Act{Action: action, JobSelection: wire.JobSelection{IDs: ids}}
	if err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathAct, in, &res); err != nil {
		h.t.Fatal(err)
	}
	return res
}

// TestLateActions: condor_hold of a factory's cluster holds its jobs and
// pauses the factory, condor_release resumes it, condor_rm of the
// cluster removes the factory with its jobs (HTCondor's schedd; see
// docs/htcondor-reference-2.md §4), and a restarted schedd goes on where
// the factory was, ProcIds continuing.
func TestLateActions(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	res, err := h.submitLate("alice", dir, "executable = /bin/true\nmax_idle = 2\nqueue 10\n")
	if err != nil {
		t.Fatal(err)
	}
	c := strconv.FormatInt(res.Cluster, 10)
	if res.Procs != 10 {
		t.Fatalf("%d procs submitted, want 10", res.Procs)
	}
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"submitted", func() {}, "0:1 1:1"},
		{"rm of one job makes the next", func() { h.act(wire.ActRemove, c+".0") }, "1:1 2:1"},
		{"hold of the cluster pauses", func() { h.act(wire.ActHold, c) }, "1:5 2:5"},
		{"rm of held jobs while paused", func() { h.act(wire.ActRemove, c+".1", c+".2") }, ""},
		{"a restart keeps the pause", func() {
			h.stop()
			h = startSchedd(t, p, cfg)
		}, ""},
		{"release resumes", func() { h.act(wire.ActRelease, c) }, "3:1 4:1"},
		{"a restart goes on", func() {
			h.stop()
			h = startSchedd(t, p, cfg)
			h.act(wire.ActRemove, c+".3")
		}, "4:1 5:1"},
		{"rm of the cluster removes the factory", func() { h.act(wire.ActRemove, c) }, ""},
	}
	for _, s := range steps {
		s.do()
		if got := h.jobsOf(res.Cluster); got != s.want {
			t.Fatalf("%s: jobs %q, want %q", s.name, got, s.want)
		}
	}
	h.s.q.Read(func(r *queue.Reader) {
		if h.s.factories.Len() != 0 || r.Cluster(res.Cluster) != nil {
			t.Errorf("after rm: %d factories, cluster %v", h.s.factories.Len(), r.Cluster(res.Cluster))
		}
	})
}

// TestLateRefusals: a factory's submit is checked as a plain one.
func TestLateRefusals(t *testing.T) {
	h := startSchedd(t, pooltest.New(t), testConfig(t))
	c := h.client("alice", auth.Write)
	for _, tc := range []struct{ body, want string }{
		{`{"cluster":{"Cmd":"x"},"runs":[{"n":1,"ad":{}}]}`, "sets neither JobMaterializeLimit"},
		{`{"cluster":{"JobMaterializeMaxIdle":0},"runs":[{"n":1,"ad":{}}]}`, "positive integer"},
		{`{"cluster":{"JobMaterializeMaxIdle":2},"runs":[]}`, "at least one run"},
		{`{"cluster":{"JobMaterializeMaxIdle":2},"runs":[{"n":0,"ad":{}}]}`, "0 procs"},
		{`{"cluster":{"JobMaterializeMaxIdle":2},"runs":[{"n":1,"ad":{"ProcId":3}}]}`, "sets ProcId"},
		{`{"cluster":{"JobMaterializeMaxIdle":2},"runs":[{"n":1,"ad":{"Owner":"bob"}}]}`, "immutable"},
		{`{"cluster":{"JobMaterializeMaxIdle":2,"JobStatus":2},"runs":[{"n":1,"ad":{}}]}`, "submitted idle"},
	} {
		var nc wire.NewCluster
		if err := c.Call(context.Background(), "POST", wire.PathNewCluster, nil, &nc); err != nil {
			t.Fatal(err)
		}
		path := wire.PathSubmitFactory + "?cluster=" + strconv.FormatInt(nc.Cluster, 10)
		err := c.CallRaw(context.Background(), "POST", path, []byte(tc.body), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
	h.s.q.Read(func(r *queue.Reader) {
		if _, all := r.Counts(); all.Total() != 0 || h.s.factories.Len() != 0 {
			t.Errorf("refused submits left %d jobs, %d factories", all.Total(), h.s.factories.Len())
		}
	})
}

// BenchmarkLateSubmit1M submits one cluster of 1 000 000 jobs with
// max_idle = 1000 (issue 16) through the tools' path: the expansion,
// the request, the schedd's checks and commit (fsync on). It reports the
// most heap the queued cluster holds above the schedd's idle heap (tool
// and schedd share the process here: the tool's garbage is collected
// before each measure). "same" procs are one run; "distinct" ones each
// have their own arguments, a run each.
func BenchmarkLateSubmit1M(b *testing.B) {
	for _, bc := range []struct{ name, args string }{{"same", "60"}, {"distinct", "60 $(Process)"}} {
		b.Run(bc.name, func(b *testing.B) {
			src := "executable = /bin/sleep\narguments = " + bc.args + "\nlog = job.log\nrequest_memory = 1 GB\nmax_idle = 1000\nqueue 1000000\n"
			h := startSchedd(b, pooltest.New(b), testConfig(b))
			dir := b.TempDir()
			var idle, queued runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&idle)
			var elapsed time.Duration
			most := int64(0)
			for b.Loop() {
				t0 := time.Now()
				res, err := h.submitLate("alice", dir, src)
				if err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(t0)
				b.StopTimer()
				if res.Procs != 1_000_000 {
					b.Fatalf("%d procs", res.Procs)
				}
				runtime.GC()
				runtime.ReadMemStats(&queued)
				most = max(most, int64(queued.HeapAlloc)-int64(idle.HeapAlloc))
				h.s.q.Read(func(r *queue.Reader) {
					if n := r.Cluster(res.Cluster).Counts().Idle; n != 1000 {
						b.Fatalf("%d idle, want 1000", n)
					}
				})
				h.act(wire.ActRemove, strconv.FormatInt(res.Cluster, 10))
				b.StartTimer()
			}
			b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/submit")
			b.ReportMetric(float64(most)/(1<<20), "MiB-heap-above-idle")
		})
	}
}

// TestLateSurvivesSIGKILL kills a schedd while removals make its factory
// materialize, one proc a commit: after the restart every proc below the
// factory's next one is in the queue or the history, exactly once, every
// acknowledged removal is in the history, and the factory goes on from
// where it was.
func TestLateSurvivesSIGKILL(t *testing.T) {
	const total, maxIdle = 100000, 5
	dir, connect := crashPool(t)
	c := startChild(t, dir)
	client := connect(c.addr)
	ctx := context.Background()
	var nc wire.NewCluster
	if err := client.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"cluster":{"Cmd":"/bin/true","JobMaterializeMaxIdle":%d},"runs":[{"n":%d,"ad":{}}]}`, maxIdle, total)
	cluster := strconv.FormatInt(nc.Cluster, 10)
	if err := client.CallRaw(ctx, "POST", wire.PathSubmitFactory+"?cluster="+cluster, []byte(body), nil); err != nil {
		t.Fatal(err)
	}
	acked := map[int64]bool{} // the remover's until done is closed
	done, busy := make(chan struct{}), make(chan struct{})
	go func() { // remove the newest job, again and again, until the kill
		defer close(done)
		for next := int64(maxIdle - 1); ; next++ {
			var res wire.ActResult
			in := wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{fmt.Sprintf("%s.%d", cluster, next)}}}
			if err := client.Call(ctx, "POST", wire.PathAct, in, &res); err != nil || res.Changed != 1 {
				return
			}
			if acked[next] = true; len(acked) == 200 {
				close(busy) // removals in full swing: the kill lands among them
			}
		}
	}()
	select {
	case <-busy:
	case <-done:
		t.Fatal("the removals stopped before the kill")
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
	<-done
	if len(acked) < 50 {
		t.Fatalf("only %d removals acknowledged before the kill", len(acked))
	}

	c = startChild(t, dir)
	client = connect(c.addr)
	seen := map[int64]string{}
	note := func(where string) func(ad *classad.Ad) {
		return func(ad *classad.Ad) {
			v, _ := classad.EvalAttr(ad, "ProcId", nil)
			p, _ := v.IntValue()
			if prev, dup := seen[p]; dup {
				t.Errorf("proc %d in the %s and in the %s", p, prev, where)
			}
			seen[p] = where
		}
	}
	inQueue := streamQuery(t, client, wire.PathQueue, wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{cluster}}})
	for _, ad := range inQueue {
		note("queue")(ad)
	}
	for _, ad := range streamQuery(t, client, wire.PathHistory, wire.HistoryQuery{IDs: []string{cluster}}) {
		note("history")(ad)
	}
	for p := range int64(len(seen)) {
		if seen[p] == "" {
			t.Errorf("proc %d of %d made is lost", p, len(seen))
		}
	}
	for p := range acked {
		if seen[p] != "history" {
			t.Errorf("acknowledged removal of proc %d: it is in the %q", p, seen[p])
		}
	}
	if len(inQueue) != maxIdle {
		t.Errorf("%d jobs in the queue after the restart, want %d", len(inQueue), maxIdle)
	}
	// The factory goes on: the next proc is the one after the last made.
	next := int64(len(seen))
	last := fmt.Sprintf("%s.%d", cluster, next-1)
	var res wire.ActResult
	if err := client.Call(ctx, "POST", wire.PathAct, wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{last}}}, &res); err != nil || res.Changed != 1 {
		t.Fatalf("rm %s: %+v %v", last, res, err)
	}
	made := streamQuery(t, client, wire.PathQueue, wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{fmt.Sprintf("%s.%d", cluster, next)}}})
	if len(made) != 1 {
		t.Errorf("proc %d not made after the restart", next)
	}
	t.Logf("%d removals acknowledged, %d procs made before the kill", len(acked), next)
}
