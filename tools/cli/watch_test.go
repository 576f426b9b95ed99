package cli

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// watchSchedd runs a schedd in memory and returns a client for alice.
func watchSchedd(t *testing.T) *wire.Client {
	t.Helper()
	p := pooltest.New(t)
	dir := t.TempDir()
	s, err := schedd.New(p.Env("schedd"), schedd.Config{
		Listen: "schedd:9618", Name: "s1", Spool: filepath.Join(dir, "spool"), UIDDomain: "test.org",
		PeriodicInterval: time.Hour, UpdateInterval: time.Hour, UpdateDelay: time.Hour, ClaimLease: time.Minute,
		MaxBodyBytes: 1 << 20, HistoryRetain: 100, NoSync: true, IdentityMap: pooltest.IdentityMap(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-s.Ready()
	return p.Client(s.Addr(), "alice", auth.Read|auth.Write)
}

func submitText(t *testing.T, c *wire.Client, text string) int64 {
	t.Helper()
	d, _, err := submit.Parse("job.sub", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := submitTo(context.Background(), c, d, submit.LocalEnv(t.TempDir()), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return res.Cluster
}

func act(t *testing.T, c *wire.Client, action string, ids ...string) {
	t.Helper()
	var res wire.ActResult
	a := wire.Act{Action: action, JobSelection: wire.JobSelection{IDs: ids}, Reason: "disk full"}
	if err := c.Call(context.Background(), "POST", wire.PathAct, a, &res); err != nil {
		t.Fatal(err)
	}
}

// countsText prints a watch's rows for comparison.
func watchRows(w *queueWatch) string {
	return strings.Join(renderRows(w.rows(time.Now()), progressLayout{}), "\n")
}

// A watch counts jobs by batch, finds those that left in the history
// (before it began, too), and says when it is over.
func TestQueueWatch(t *testing.T) {
	ctx := context.Background()
	c := watchSchedd(t)
	submitText(t, c, "executable = /bin/true\nbatch_name = a\nqueue 3\n")
	submitText(t, c, "executable = /bin/true\nhold = true\nqueue 2\n")
	act(t, c, wire.ActRemove, "1.0") // before the watch: from the history

	w := newQueueWatch(c, wire.JobQuery{JobSelection: wire.JobSelection{Owners: []string{"alice"}}})
	if err := w.poll(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := "a     [xxxxxxx.............]  33%  1/3 done  0 run  2 idle  1 removed  ETA --\n" +
		"ID: 2 [!!!!!!!!!!!!!!!!!!!!]   0%  0/2 done  0 run  0 idle  2 held  ETA --\n" +
		"Total [xxxx!!!!!!!!........]  20%  1/5 done  0 run  2 idle  2 held  1 removed  ETA --"
	if got := watchRows(w); got != want {
		t.Errorf("first poll:\n%s\nwant\n%s", got, want)
	}
	if end, over := w.over(watchOptions{exitHeld: true}); !over || end != endHeld {
		t.Errorf("-exit-held: over = %v, %v", end, over)
	}
	if _, over := w.over(watchOptions{stopStuck: true}); over {
		t.Error("stuck while jobs are idle")
	}

	act(t, c, wire.ActRemove, "1")
	if err := w.poll(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if w.total.Removed != 3 || w.total.Held != 2 {
		t.Errorf("after rm 1: %+v", w.total)
	}
	if end, over := w.over(watchOptions{stopStuck: true}); !over || end != endStuck {
		t.Errorf("stuck: over = %v, %v", end, over)
	}
	if got := strings.Join(w.held(), "|"); got != "2.0: disk full|2.1: disk full" && !strings.HasPrefix(got, "2.0: ") {
		t.Errorf("held: %s", got)
	}

	// A cluster that is done already is found in the history.
	done := newQueueWatch(c, wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1"}}})
	var b strings.Builder
	end, err := done.run(ctx, newDisplay(&b, false), watchOptions{interval: time.Millisecond}, time.Now)
	if err != nil || end != endDone {
		t.Fatalf("run = %v, %v", end, err)
	}
	if !strings.Contains(b.String(), "a [xxxxxxxxxxxxxxxxxxxx] 100%  3/3 done  0 run  0 idle  3 removed  ETA done\n"+
		"All 3 job(s) left the queue: 0 completed, 3 removed; ") {
		t.Errorf("run printed:\n%s", b.String())
	}

	// Nothing to watch is said so.
	none := newQueueWatch(c, wire.JobQuery{JobSelection: wire.JobSelection{Owners: []string{"bob"}}})
	if _, err := none.run(ctx, newDisplay(io.Discard, false), watchOptions{interval: time.Millisecond}, time.Now); err != errNoJobs {
		t.Errorf("no jobs: %v", err)
	}
}

// A watch of one job of a cluster does not count the cluster's others.
func TestQueueWatchOneJob(t *testing.T) {
	ctx := context.Background()
	c := watchSchedd(t)
	submitText(t, c, "executable = /bin/true\nqueue 4\n")
	act(t, c, wire.ActRemove, "1.3")
	w := newQueueWatch(c, wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1.1", "1.3"}}})
	if err := w.poll(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if w.total.Total != 2 || w.total.Idle != 1 || w.total.Removed != 1 {
		t.Errorf("counts: %+v", w.total)
	}
}

// A job that no longer meets the constraint but is still queued is
// watched on, not taken for gone.
func TestQueueWatchConstraint(t *testing.T) {
	ctx := context.Background()
	c := watchSchedd(t)
	submitText(t, c, "executable = /bin/true\nqueue 2\n")
	w := newQueueWatch(c, wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{"1"}, Constraint: "JobStatus == 1"}})
	if err := w.poll(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	act(t, c, wire.ActHold, "1.0")
	act(t, c, wire.ActRemove, "1.1")
	if err := w.poll(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if w.total.Total != 2 || w.total.Held != 1 || w.total.Removed != 1 || w.total.Gone != 0 {
		t.Errorf("counts: %+v", w.total)
	}
}
