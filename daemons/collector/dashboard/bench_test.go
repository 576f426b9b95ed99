package dashboard

import (
	"fmt"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/sita"
)

// benchPool is a pool of n machines of 8 static slots, 5 of them claimed,
// and 200 submitters.
func benchPool(b *testing.B, machines int) (slots, submitters []*classad.Ad) {
	b.Helper()
	for m := range machines {
		for s := 1; s <= 8; s++ {
			state, activity := "Unclaimed", "Idle"
			if s <= 5 {
				state, activity = "Claimed", "Busy"
			}
			ad, err := classad.Parse(fmt.Sprintf(`[ Name = "slot%d@host%d"; Machine = "host%d"; State = %q; Activity = %q; Cpus = 1; Memory = 2048;
				TotalLoadAvg = 3.5; Arch = "X86_64"; OpSys = "LINUX"; MyAddress = "10.0.%d.%d:9622"; KFlops = 1000000; Start = true ]`,
				s, m, m, state, activity, m/250, m%250))
			if err != nil {
				b.Fatal(err)
			}
			slots = append(slots, ad)
		}
	}
	for u := range 200 {
		ad, _ := classad.Parse(fmt.Sprintf(`[ Name = "user%d@lab"; ScheddName = "s%d"; RunningJobs = 20; IdleJobs = 100; HeldJobs = 1 ]`, u, u%4))
		submitters = append(submitters, ad)
	}
	return slots, submitters
}

// One sample of a pool of 10000 slots: what the collector does every
// sample interval.
func BenchmarkSample10kSlots(b *testing.B) {
	slots, subs := benchPool(b, 1250)
	s := NewSampler(2160, 360)
	now := time.Unix(0, 0)
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(10 * time.Second)
		s.Sample(now, slots, subs)
	}
}

// The overview's slot counts of 10000 slots.
func BenchmarkCountSlots10k(b *testing.B) {
	slots, _ := benchPool(b, 1250)
	b.ReportAllocs()
	for b.Loop() {
		CountSlots(slots)
	}
}

// The SITA-E page: 10000 jobs sized by expressions of their own k, p and a
// against 4 intervals.
func BenchmarkSitaLoads10kJobs(b *testing.B) {
	cfg := sita.HostConfig{Intervals: 4, Source: sita.SourceJob}
	var slots []*classad.Ad
	for i := 1; i <= 4; i++ {
		cfg.Interval = i
		attrs, _, err := sita.HostAd(cfg, fmt.Sprintf("h%d", i), fmt.Sprintf("slot1@h%d", i))
		if err != nil {
			b.Fatal(err)
		}
		ad, _ := classad.Parse(fmt.Sprintf(`[ Name = "slot1@h%d"; Machine = "h%d"; State = "Claimed" ]`, i, i))
		for _, a := range attrs {
			ad.Set(a.Name, a.Expr)
		}
		slots = append(slots, ad)
	}
	var jobs []*classad.Ad
	for j := range 10000 {
		ad, _ := classad.Parse(fmt.Sprintf(`[ JobStatus = %d; ImageSize = %d; Min_size_of_job = 10000; Max_size_of_job = 10000000; Pareto_variability = 1.01 ]`,
			1+j%2, 10000+j*997))
		jobs = append(jobs, ad)
	}
	b.ReportAllocs()
	for b.Loop() {
		Loads(slots, jobs)
	}
}
