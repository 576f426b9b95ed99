package policy_test

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
)

// batch is the idle tasks of a batch (paper 002's job), submitted at
// qdate (seconds after now), each task of work units.
func batch(t testing.TB, name string, idle int, qdate int64, work float64, total float64) matchmaker.Request {
	return matchmaker.Request{ID: name, Count: idle, Ad: job(t, fmt.Sprintf(
		`KiteBatch = %q; QDate = %d; KiteWork = %g; KiteBatchWork = %g`, name, now.Unix()+qdate, work, total))}
}

// busyWith is a busy slot of the pool running a task of a batch.
func busyWith(t testing.TB, name, b string) *classad.Ad {
	return host(t, name, fmt.Sprintf(`State = "Claimed"; Activity = "Busy"; KiteBatch = %q`, b))
}

// npcycle runs a cycle at now + at seconds.
func npcycle(s policy.Strategy, at int64, slots, pool []*classad.Ad, reqs ...matchmaker.Request) matchmaker.Result {
	snap := &matchmaker.Snapshot{Slots: slots, Pool: pool, Now: now.Add(time.Duration(at) * time.Second),
		Submitters: []matchmaker.Submitter{{Name: "u", Schedd: "s", Priority: 0.5, Requests: reqs}}}
	return matchmaker.Cycle(snap, &matchmaker.Policy{Seed: uint64(at), Strategy: s})
}

func TestNoPassingTakesBatchesInTurn(t *testing.T) {
	s, _ := policy.New("no-passing")
	got := byRequest(npcycle(s, 0, hosts(t, 4, nil), nil, batch(t, "A", 4, 0, 10, 40), batch(t, "B", 4, 0, 10, 40)))
	if !maps.Equal(got, map[string]int{"A": 2, "B": 2}) {
		t.Errorf("matches %v, want the batches in turn: 2 and 2", got)
	}
	// The turn goes on across cycles: A was served last, so B is first.
	got = byRequest(npcycle(s, 10, hosts(t, 1, nil), nil, batch(t, "A", 2, 0, 10, 40), batch(t, "B", 2, 0, 10, 40)))
	if len(got) != 1 {
		t.Fatalf("matches %v", got)
	}
	next := byRequest(npcycle(s, 20, hosts(t, 1, nil), nil, batch(t, "A", 2, 0, 10, 40), batch(t, "B", 2, 0, 10, 40)))
	if maps.Equal(got, next) {
		t.Errorf("two cycles served %v and %v, want the other batch's turn", got, next)
	}
}

// The hold rule: B, submitted while A runs and no smaller than A, keeps
// its last task back until A is done; then it goes.
func TestNoPassingHoldsTheLastTask(t *testing.T) {
	s, _ := policy.New("no-passing")
	// A starts at 0: both of its tasks get slots.
	if res := npcycle(s, 0, hosts(t, 2, nil), nil, batch(t, "A", 2, 0, 10, 20)); len(res.Matches) != 2 {
		t.Fatalf("A: %d matches, want 2", len(res.Matches))
	}
	pool := func(free []*classad.Ad, running ...string) []*classad.Ad {
		out := append([]*classad.Ad(nil), free...)
		for i, b := range running {
			out = append(out, busyWith(t, fmt.Sprintf("busy%d", i), b))
		}
		return out
	}
	// B comes at 50 with one task (work 30 ≥ A's 20) while A still runs.
	free := hosts(t, 1, nil)
	res := npcycle(s, 60, free, pool(free, "A", "A"), batch(t, "B", 1, 50, 30, 30))
	if len(res.Matches) != 0 || res.Stats.Rejections["policy"] != 1 {
		t.Errorf("B's last task while A runs: matches %v, rejections %v; want it held (policy)", byRequest(res), res.Stats.Rejections)
	}
	// A replica of one of B's running tasks may have the slot meanwhile.
	rep := replicaOf(batch(t, "B", 1, 50, 30, 30), 1)
	if got := byRequest(npcycle(s, 65, free, pool(free, "A", "B"), batch(t, "B", 1, 50, 30, 30), rep)); !maps.Equal(got, map[string]int{"rep-B": 1}) {
		t.Errorf("held with a replica request: matches %v, want the replica", got)
	}
	// A batch larger than B does not hold it.
	if got := byRequest(npcycle(s, 70, free, pool(free, "A"), batch(t, "C", 1, 55, 5, 5))); !maps.Equal(got, map[string]int{"C": 1}) {
		t.Errorf("C, smaller than A: matches %v, want its task given", got)
	}
	// A is done (no idle task, no busy slot): B's task goes.
	if got := byRequest(npcycle(s, 80, free, pool(free), batch(t, "B", 1, 50, 30, 30))); !maps.Equal(got, map[string]int{"B": 1}) {
		t.Errorf("after A: matches %v, want B's last task", got)
	}
}

// A batch submitted before another started is not one that "was running"
// when it came: it does not hold the later batch.
func TestNoPassingOnlyRunningBatchesHold(t *testing.T) {
	s, _ := policy.New("no-passing")
	// D and E both come at 0; D's tasks cannot run anywhere yet.
	noSlot := batch(t, "D", 3, 0, 10, 30)
	noSlot.Ad.Set("Requirements", mustExpr("false"))
	res := npcycle(s, 0, hosts(t, 1, nil), nil, noSlot, batch(t, "E", 1, 0, 100, 100))
	if got := byRequest(res); !maps.Equal(got, map[string]int{"E": 1}) {
		t.Errorf("matches %v, want E's only task (D never started)", got)
	}
}

func TestNoPassingParams(t *testing.T) {
	if _, err := policy.NewWith("no-passing", policy.Params{"work": "ImageSize", "replicate": false}); err != nil {
		t.Error(err)
	}
	if _, err := policy.NewWith("no-passing", policy.Params{"work": ""}); err == nil {
		t.Error("an empty work attribute was accepted")
	}
	s, _ := policy.NewWith("no-passing", policy.Params{"replicate": false})
	got := byRequest(npcycle(s, 0, hosts(t, 2, nil), nil, batch(t, "A", 1, 0, 10, 20), replicaOf(batch(t, "A", 1, 0, 10, 20), 1)))
	if !maps.Equal(got, map[string]int{"A": 1}) {
		t.Errorf("replicate = false: matches %v, want no replica", got)
	}
}
