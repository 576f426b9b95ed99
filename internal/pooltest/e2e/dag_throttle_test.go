package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// A running DAG's throttles change at once and durably, as htcondor dag
// throttle changes DAGMan's (the HTCondor manual, dagman-interaction.rst
// "Editing DAG Throttles": the edited values persist across crashes). A
// is the parent of C, D and E; each node's job records its start and
// waits for its own gate. While A runs, MaxJobs goes from no limit to 1;
// after a restart of the schedd, A's end lets one child be queued, not
// three; raising it to 2 queues a second at once.
func TestDAGThrottleChange(t *testing.T) {
	pl, restart := restartablePoolSlots(t, 4)
	dir := dagDir(t, nil)
	gate := func(node string) string { return filepath.Join(dir, "gate-"+node) }
	files := map[string]string{
		"run.sh":       "#!/bin/sh\necho \"job $1\" >> " + filepath.Join(dir, "ran.txt") + "\nwhile [ ! -e " + filepath.Join(dir, "gate-") + "$1 ]; do sleep 0.02; done\n",
		"run.sub":      "executable = " + filepath.Join(dir, "run.sh") + "\narguments = $(JOB)\nshould_transfer_files = IF_NEEDED\nqueue\n",
		"throttle.dag": "JOB A run.sub\nJOB C run.sub\nJOB D run.sub\nJOB E run.sub\nPARENT A CHILD C D E\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	open := func(node string) {
		t.Helper()
		if err := os.WriteFile(gate(node), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := pl.submitDAG(dir, "throttle.dag", "")
	waitLines(t, dir, "job A")

	throttle := func(cl *wire.Client, body wire.DAGThrottle) (wire.DAGThrottles, error) {
		var out wire.DAGThrottles
		err := cl.Call(context.Background(), "POST", wire.PathDAGThrottle, body, &out)
		return out, err
	}
	one, two, none, neg := 1, 2, 0, -1
	if out, err := throttle(pl.user, wire.DAGThrottle{ID: id, MaxJobs: &one}); err != nil || out != (wire.DAGThrottles{MaxJobs: 1}) {
		t.Fatalf("throttle: %+v %v", out, err)
	}
	// Another user's, a negative value and a DAG that is not there are
	// refused and change nothing.
	bob := pl.p.Client("schedd:1", "bob", auth.Write)
	for _, tc := range []struct {
		cl   *wire.Client
		body wire.DAGThrottle
		code int
	}{
		{bob, wire.DAGThrottle{ID: id, MaxJobs: &two}, http.StatusForbidden},
		{pl.user, wire.DAGThrottle{ID: id, MaxJobs: &neg}, http.StatusBadRequest},
		{pl.user, wire.DAGThrottle{ID: id + 1000, MaxJobs: &two}, http.StatusNotFound},
	} {
		_, err := throttle(tc.cl, tc.body)
		var we *wire.Error
		if !errors.As(err, &we) || we.Status != tc.code {
			t.Errorf("throttle %+v: %v, want status %d", tc.body, err, tc.code)
		}
	}
	restart(func() {})
	ad, _ := pl.dagInfo(id)
	if intAttr(t, ad, attr.DAGManMaxJobs) != 1 {
		t.Fatalf("after a restart, the DAG's ad: %v", ad)
	}

	open("A")
	started := waitStarts(t, dir, 1)
	queued := func(want int) {
		t.Helper()
		ad, nodes := pl.dagInfo(id)
		n := 0
		for _, nd := range nodes {
			if nd.Status == "STATUS_SUBMITTED" {
				n++
			}
		}
		if n != want || intAttr(t, ad, attr.DAGNodesQueued) != int64(want) {
			t.Fatalf("%d node jobs queued (%d in the ad), want %d: %+v", n, intAttr(t, ad, attr.DAGNodesQueued), want, nodes)
		}
	}
	queued(1)
	if out, err := throttle(pl.user, wire.DAGThrottle{ID: id, MaxJobs: &two}); err != nil || out.MaxJobs != 2 {
		t.Fatalf("throttle 2: %+v %v", out, err)
	}
	started = waitStarts(t, dir, 2)
	queued(2)
	if _, err := throttle(pl.user, wire.DAGThrottle{ID: id, MaxJobs: &none}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"C", "D", "E"} {
		open(n)
	}
	ad, _ = pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGNodesDone) != 4 {
		t.Errorf("the DAG: %v (the first children started: %q)", ad, started)
	}
	for _, n := range []string{"job A", "job C", "job D", "job E"} {
		if c := countOf(lines(t, dir), n); c != 1 {
			t.Errorf("%s ran %d times", n, c)
		}
	}
}

// waitStarts waits until n of the children C, D and E have started and
// returns them.
func waitStarts(t *testing.T, dir string, n int) []string {
	t.Helper()
	var got []string
	waitFor(t, fmt.Sprintf("%d children started", n), func() (string, bool) {
		got = slices.DeleteFunc(lines(t, dir), func(l string) bool { return !strings.HasPrefix(l, "job ") || l == "job A" })
		return fmt.Sprint(got), len(got) >= n
	})
	return got
}
