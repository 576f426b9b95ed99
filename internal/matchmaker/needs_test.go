package matchmaker

import (
	"slices"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/policy"
)

// spy is a strategy with needs that records what the market showed it.
type spy struct {
	needs    policy.Needs
	pool     []*classad.Ad
	requests []policy.Request
}

func (*spy) Name() string          { return "spy" }
func (s *spy) Needs() policy.Needs { return s.needs }
func (s *spy) Distribute(m policy.Market) {
	s.pool = m.Pool()
	s.requests = m.Requests()
	for j, r := range s.requests {
		for r.Replica && m.Remaining(j) > 0 {
			i, _ := m.Best(j)
			if i < 0 {
				break
			}
			m.Assign(j, i)
		}
	}
}

func TestMarketPoolAndReplicas(t *testing.T) {
	free := slots(t, 2, nil)
	all := append(slices.Clone(free), slotAd(t, "slot1@busy", `State = "Claimed"; Activity = "Busy"`))
	replica := jobAd(t, "KiteReplica = true")
	snap := &Snapshot{Slots: free, Submitters: []Submitter{submitter("u", 1,
		Request{ID: "idle", Count: 3, Ad: jobAd(t, "")}, Request{ID: "rep", Count: 2, Ad: replica})}}

	// A strategy that does not replicate is not shown replica requests.
	s := &spy{}
	res := Cycle(snap, &Policy{Strategy: s})
	if len(s.requests) != 1 || s.requests[0].ID != "idle" || s.requests[0].Replica {
		t.Errorf("requests %+v, want the idle one only", s.requests)
	}
	if res.Stats.Jobs != 3 {
		t.Errorf("%d idle jobs, want 3", res.Stats.Jobs)
	}
	// Pool is the snapshot's slots unless it says otherwise.
	if len(s.pool) != 2 {
		t.Errorf("pool of %d slots, want the 2 of Slots", len(s.pool))
	}
	snap.Pool = all
	s = &spy{needs: policy.Needs{Replicas: true}}
	res = Cycle(snap, &Policy{Strategy: s})
	if len(s.pool) != 3 {
		t.Errorf("pool of %d slots, want the snapshot's 3", len(s.pool))
	}
	if len(s.requests) != 2 || !s.requests[1].Replica {
		t.Fatalf("requests %+v, want the idle one and the replica request", s.requests)
	}
	// Replica matches are made like others; replica requests left over
	// are not idle jobs waiting.
	if len(res.Matches) != 2 || res.Matches[0].Request != "rep" {
		t.Errorf("matches %+v, want two replicas", res.Matches)
	}
	if res.Stats.Jobs != 3 || res.Stats.Rejections["policy"] != 3 {
		t.Errorf("stats %+v, want 3 idle jobs left to the strategy", res.Stats)
	}
}

// The job attributes a strategy reads are significant: the schedds group
// autoclusters by them.
func TestStrategySignificance(t *testing.T) {
	s := &spy{needs: policy.Needs{Significant: []string{"KiteBatch"}}}
	got := Significant(slots(t, 1, nil), &Policy{Strategy: s})
	if !slices.Contains(got, "KiteBatch") {
		t.Errorf("significant %v, want KiteBatch among them", got)
	}
	if got := Significant(slots(t, 1, nil), &Policy{}); slices.Contains(got, "KiteBatch") {
		t.Errorf("significant %v without the strategy", got)
	}
}

// A slot attribute a strategy evaluates against jobs (a host's power
// that depends on the job) makes the job attributes it reads significant.
func TestStrategySlotAttributes(t *testing.T) {
	power := func(int) string { return `KitePower = KiteSpeed * (TARGET.Vector =?= true ? 4 : 1)` }
	s := &spy{needs: policy.Needs{SlotAttributes: []string{"KitePower"}}}
	if got := Significant(slots(t, 2, power), &Policy{Strategy: s}); !slices.Contains(got, "Vector") {
		t.Errorf("significant %v, want Vector among them", got)
	}
	if got := Significant(slots(t, 2, power), &Policy{Strategy: &spy{}}); slices.Contains(got, "Vector") {
		t.Errorf("significant %v when no strategy reads KitePower", got)
	}
	b, err := policy.New("sort-median")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.(policy.Configurable).Configure(policy.Params{"power": "KitePower"}); err != nil {
		t.Fatal(err)
	}
	if got := Significant(slots(t, 2, power), &Policy{Strategy: b}); !slices.Contains(got, "Vector") {
		t.Errorf("significant %v under sort-median with power = KitePower, want Vector", got)
	}
}
