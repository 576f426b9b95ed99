package policy_test

import (
	"fmt"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/matchmaker"
	"github.com/kite-sched/kite/internal/policy"
)

// benchPool is n monitored one-slot hosts of every reliability, and five
// job types of runtimes from 5 minutes to 16 hours with jobs enough for
// every slot.
func benchPool(b *testing.B, n int) ([]*classad.Ad, []matchmaker.Request) {
	slots := make([]*classad.Ad, n)
	for i := range slots {
		slots[i] = host(b, fmt.Sprintf("h%05d", i), fmt.Sprintf(
			"KiteBenchmark = %d; KiteReliability = %d; KiteAvgFailedTime = %d; KiteAvgSucceededTime = %d; KiteAvgUptime = %d; DaemonStartTime = %d",
			4000+i%16000, i%11-5, 60*(i%90), 60*(i%600), 60*(i%900), now.Unix()-int64(i%7200)))
	}
	var reqs []matchmaker.Request
	for k, avT := range []float64{5, 35, 120, 480, 960} {
		reqs = append(reqs, typed(b, fmt.Sprintf("type%d", k), n, 10*k, 5*k, 10*n, avT, fmt.Sprintf("QDate = %d", k)))
	}
	return slots, reqs
}

// One cycle of a strategy over 10 000 free slots and 50 000 idle jobs of
// five types: every slot gets a job.
func benchmarkStrategy(b *testing.B, name string) {
	slots, reqs := benchPool(b, 10000)
	s, err := policy.New(name)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res := jcycle(s, 1, slots, nil, reqs...)
		if len(res.Matches) != len(slots) {
			b.Fatalf("%d matches, want %d", len(res.Matches), len(slots))
		}
	}
}

func BenchmarkJoSchKaCombined10kSlots(b *testing.B) { benchmarkStrategy(b, "joschka-combined") }
func BenchmarkJoSchKaBalanced10kSlots(b *testing.B) { benchmarkStrategy(b, "joschka-balanced") }
func BenchmarkJoSchKaUptime10kSlots(b *testing.B)   { benchmarkStrategy(b, "joschka-uptime") }
func BenchmarkCondor10kSlots(b *testing.B)          { benchmarkStrategy(b, "condor") }
