package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// submitLate queues a submit description that sets max_idle or
// max_materialize as kite submit does: as a job factory.
func (pl *pool) submitLate(dir, text string) wire.SubmitResult {
	t := pl.t
	t.Helper()
	d, env := pl.prepare(dir, text)
	_, late, _, err := d.ExpandLate(env)
	if err != nil || late == nil {
		t.Fatalf("not a factory: %v", err)
	}
	var res wire.SubmitResult
	path := wire.PathSubmitFactory + "?cluster=" + strconv.Itoa(env.Cluster)
	if err := pl.user.CallRaw(context.Background(), "POST", path, late.AppendJSON(nil), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLateMaterializationDrains runs a factory of 200 jobs with max_idle
// = 10 (condor_submit man page, max_idle; users' manual, "Submitting
// Lots of Jobs") on a pool of four slots: the schedd never has more than
// ten of them idle, and every proc runs and completes exactly once.
func TestLateMaterializationDrains(t *testing.T) {
	const jobs, maxIdle = 200, 10
	pl := newPool(t, 4, "a")
	dir := t.TempDir()
	res := pl.submitLate(dir, `executable = /bin/true
arguments = $(Process)
log = job.log
max_idle = 10
queue 200
`)
	if res.Procs != jobs {
		t.Fatalf("submitted %d procs, want %d", res.Procs, jobs)
	}
	ctx := context.Background()
	most := 0
	for {
		var tot wire.QueueTotals
		if err := pl.user.Call(ctx, "GET", wire.PathTotals, nil, &tot); err != nil {
			t.Fatal(err)
		}
		c := tot.ByOwner["alice"]
		most = max(most, c.Idle+c.Held)
		if c.Jobs == 0 {
			break
		}
	}
	t.Logf("at most %d jobs idle at once", most)
	if most > maxIdle {
		t.Errorf("%d jobs idle at once, max_idle is %d", most, maxIdle)
	}
	if most == 0 {
		t.Error("no job was ever seen idle")
	}
	seen := map[int64]int{}
	each := func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return err
		}
		p, _ := classad.EvalAttr(ad, attr.ProcID, nil)
		n, _ := p.IntValue()
		seen[n]++
		if st := status(ad); st != attr.Completed || str(ad, attr.NumJobStarts) != "1" || str(ad, "Args") != strconv.FormatInt(n, 10) {
			t.Errorf("job %d: status %d, NumJobStarts %s, Args %s", n, st, str(ad, attr.NumJobStarts), str(ad, "Args"))
		}
		return nil
	}
	q := wire.HistoryQuery{IDs: []string{strconv.FormatInt(res.Cluster, 10)}}
	if err := pl.user.Stream(ctx, "POST", wire.PathHistory, q, each); err != nil {
		t.Fatal(err)
	}
	for p := range int64(jobs) {
		if seen[p] != 1 {
			t.Errorf("proc %d left the queue %d times", p, seen[p])
		}
	}
	if len(seen) != jobs {
		t.Errorf("%d procs in the history, want %d", len(seen), jobs)
	}
}
