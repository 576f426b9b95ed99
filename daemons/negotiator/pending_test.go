package negotiator

import (
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/matchmaker"
)

// Until a partitionable slot advertises the jobs matched to it, the next
// cycle sees it hold them: fewer resources, and their declared work in
// KiteWorkLeft and KiteQueueLength (least-work-left and the batch
// heuristics read them), as the startd will advertise it.
func TestPendingChargesPartitionableSlots(t *testing.T) {
	src := `[Name="slot1@a"; UpdateSequenceNumber=3; DaemonStartTime=1; Cpus=4; Memory=4096; Disk=1000;
		KiteWorkLeft=max({0, 500 - (time() - 100) * 2}); KiteQueueLength=1]`
	matched, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	p := pendingMatches{ttl: time.Minute, bySlot: map[string]*pendingMatch{}}
	for _, w := range []float64{100, 30} {
		p.add(matchmaker.Match{Submitter: "alice", SlotName: "slot1@a", Slot: matched, Cpus: 1, Memory: 512, Disk: 10}, nil, w, now)
	}
	ad, _ := classad.Parse(src) // the collector's ad, not re-advertised yet
	slots := []*classad.Ad{ad}
	p.apply(&slots, map[string]float64{}, map[string]float64{}, now)
	if len(slots) != 1 {
		t.Fatalf("%d slots, want the partitionable slot", len(slots))
	}
	e, _ := ad.Lookup("KiteWorkLeft")
	if got, want := classad.String(e), "(max({ 0,500 - (time() - 100) * 2 })) + 130"; got != want {
		t.Errorf("KiteWorkLeft = %s, want %s", got, want)
	}
	for name, want := range map[string]int64{"Cpus": 2, "Memory": 3072, "KiteQueueLength": 3} {
		if got := classad.EvalIntOr(ad, name, -1); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}
