package dashboard

import (
	"fmt"
	"io/fs"
	"reflect"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/wire"
)

func ad(t *testing.T, src string) *classad.Ad {
	t.Helper()
	a, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func ads(t *testing.T, srcs ...string) []*classad.Ad {
	t.Helper()
	out := make([]*classad.Ad, len(srcs))
	for i, s := range srcs {
		out[i] = ad(t, s)
	}
	return out
}

// A pool of a partitionable machine with two dynamic slots and a machine
// of two static slots.
func poolSlots(t *testing.T) []*classad.Ad {
	return ads(t,
		`[ Name = "slot1@big"; Machine = "big"; State = "Unclaimed"; Activity = "Idle"; Cpus = 5; Memory = 5000; TotalSlotCpus = 8; TotalSlotMemory = 8000; PartitionableSlot = true; TotalLoadAvg = 2.5 ]`,
		`[ Name = "slot1_1@big"; Machine = "big"; State = "Claimed"; Activity = "Busy"; Cpus = 2; Memory = 2000; TotalSlotCpus = 2; TotalSlotMemory = 2000; DynamicSlot = true ]`,
		`[ Name = "slot1_2@big"; Machine = "big"; State = "Claimed"; Activity = "Idle"; Cpus = 1; Memory = 1000; TotalSlotCpus = 1; TotalSlotMemory = 1000; DynamicSlot = true ]`,
		`[ Name = "slot1@small"; Machine = "small"; State = "Claimed"; Activity = "Busy"; Cpus = 1; Memory = 512; LoadAvg = 0.5 ]`,
		`[ Name = "slot2@small"; State = "Owner"; Activity = "Idle"; Cpus = 1; Memory = 512; Absent = true ]`,
	)
}

func TestCountSlots(t *testing.T) {
	got := CountSlots(poolSlots(t))
	want := Slots{
		Total:      5,
		States:     map[string]int{"Unclaimed": 1, "Claimed": 3, "Owner": 1},
		Activities: map[string]int{"Idle": 3, "Busy": 2},
		Pairs: []StateCount{{"Claimed", "Busy", 2}, {"Claimed", "Idle", 1}, {"Owner", "Idle", 1},
			{"Unclaimed", "Idle", 1}},
		// The partitionable slot counts its whole size; the dynamic
		// slots count as busy, not again in the total.
		Cpus: 10, CpusBusy: 4, MemoryMiB: 9024, MemoryBusyMiB: 3512, Machines: 2,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if empty := CountSlots(nil); empty.Total != 0 || empty.Pairs != nil || empty.States == nil {
		t.Errorf("no slots: %+v", empty)
	}
}

func TestOwners(t *testing.T) {
	subs := ads(t,
		`[ Name = "alice@lab"; ScheddName = "s1"; RunningJobs = 2; IdleJobs = 5; HeldJobs = 0 ]`,
		`[ Name = "alice@lab"; ScheddName = "s2"; RunningJobs = 1; IdleJobs = 0; HeldJobs = 1 ]`,
		`[ Name = "bob@lab"; ScheddName = "s1"; RunningJobs = 4; IdleJobs = 0; HeldJobs = 0 ]`,
	)
	prios := []wire.Priority{{User: "Alice@lab", Effective: 1500, Real: 1.5, Factor: 1000}, {User: "carol@lab", Effective: 500, Real: 0.5, Factor: 1000}}
	got := Owners(subs, prios)
	names := []string{}
	for _, o := range got {
		names = append(names, fmt.Sprintf("%s %d/%d/%d %v prio=%v", o.Name, o.Running, o.Idle, o.Held, o.Schedds, o.Priority != nil))
	}
	want := []string{
		"bob@lab 4/0/0 [s1] prio=false",
		"alice@lab 3/5/1 [s1 s2] prio=true", // summed over schedds, priority joined without case
		"carol@lab 0/0/0 [] prio=true",      // known to the accountant, no jobs
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("got  %q\nwant %q", names, want)
	}
	if got[1].Priority.Effective != 1500 {
		t.Errorf("alice's priority: %+v", got[1].Priority)
	}
}

func TestMachines(t *testing.T) {
	got := Machines(poolSlots(t))
	if len(got) != 2 {
		t.Fatalf("machines: %+v", got)
	}
	big, small := got[0], got[1]
	if big.Name != "big" || big.Slots != 3 || big.Cpus != 8 || big.CpusBusy != 3 || big.Load != 2.5 || big.Absent {
		t.Errorf("big: %+v", big)
	}
	// slot2@small has no Machine attribute: its name says the machine.
	if small.Name != "small" || small.Slots != 2 || small.Cpus != 2 || small.CpusBusy != 1 || small.Load != 0.5 || !small.Absent {
		t.Errorf("small: %+v", small)
	}
}

func TestReliability(t *testing.T) {
	got := Reliability(ads(t,
		`[ Name = "slot1@h"; KiteReliability = 0.93; KiteNodeClass = 3; Uptime = 3600; KFlops = 1200; Mips = 3000; Cpus = 4; FailedJobs = 2; RecentJobStarts = 7; Note = "x"; KeyboardIdle = 20 ]`,
		`[ Name = "slot2@h"; KiteReliability = 0.1; SuccessfulJobs = 10 ]`,
	))
	want := map[string]any{"KiteReliability": 0.93, "KiteNodeClass": 3.0, "Uptime": 3600.0, "KFlops": 1200.0, "Mips": 3000.0,
		"FailedJobs": 2.0, "RecentJobStarts": 7.0, "KeyboardIdle": 20.0, "SuccessfulJobs": 10.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestSamplerBoundsItsHistory(t *testing.T) {
	s := NewSampler(3, 2)
	t0 := time.Unix(1000, 0)
	slots := poolSlots(t)
	subs := ads(t, `[ Name = "alice@lab"; RunningJobs = 2; IdleJobs = 5; HeldJobs = 1 ]`)
	for i := range 5 {
		s.Sample(t0.Add(time.Duration(i)*10*time.Second), slots, subs)
	}
	pool := s.Pool()
	if len(pool) != 3 || pool[0].Time != 1020 || pool[2].Time != 1040 {
		t.Fatalf("pool samples, oldest first, at most 3: %+v", pool)
	}
	if p := pool[2]; p.Slots != 5 || p.Claimed != 3 || p.Cpus != 10 || p.CpusBusy != 4 || p.Machines != 2 || p.Running != 2 || p.Idle != 5 || p.Held != 1 {
		t.Errorf("sample: %+v", p)
	}
	if m := s.Machine("BIG"); len(m) != 2 || m[1].Time != 1040 || m[1].Load != 2.5 || m[1].CpusBusy != 3 {
		t.Errorf("big's samples: %+v", m)
	}
	// A machine that is gone is forgotten once its series would be empty.
	s.Sample(t0.Add(50*time.Second), slots[:3], nil)
	if len(s.Machine("small")) != 2 {
		t.Errorf("small forgotten too soon")
	}
	s.Sample(t0.Add(60*time.Second), slots[:3], nil)
	if m := s.Machine("small"); m != nil {
		t.Errorf("small still kept: %+v", m)
	}
	if last, ok := s.Last(); !ok || last.Time != 1060 || last.Machines != 1 {
		t.Errorf("last: %+v %v", last, ok)
	}
	if _, ok := NewSampler(0, 0).Last(); ok {
		t.Errorf("an empty sampler has a last sample")
	}
}

// sitaSlot makes a slot of interval i of n as a startd with cfg does.
func sitaSlot(t *testing.T, cfg sita.HostConfig, host string, i int, state string) *classad.Ad {
	t.Helper()
	cfg.Interval = i
	name := "slot1@" + host
	attrs, _, err := sita.HostAd(cfg, host, name)
	if err != nil {
		t.Fatal(err)
	}
	a := ad(t, fmt.Sprintf(`[ Name = %q; Machine = %q; State = %q ]`, name, host, state))
	for _, at := range attrs {
		a.Set(at.Name, at.Expr)
	}
	return a
}

func TestSitaLoads(t *testing.T) {
	config := sita.HostConfig{Intervals: 3, Source: sita.SourceConfig, K: 1, P: 1000, A: 1.1}
	job := sita.HostConfig{Intervals: 3, Source: sita.SourceJob}
	// With k = 1, p = 1000, a = 1.1 the boundaries are about 6.16 and 57.
	jobs := ads(t,
		`[ JobStatus = 1; ImageSize = 2 ]`,
		`[ JobStatus = 2; ImageSize = 6 ]`,
		`[ JobStatus = 1; ImageSize = 6.2 ]`,
		`[ JobStatus = 2; ImageSize = 56 ]`,
		`[ JobStatus = 1; ImageSize = 57 ]`,
		`[ JobStatus = 1; ImageSize = 5000 ]`,
		`[ JobStatus = 1 ]`,                // no size: unsized
		`[ JobStatus = 4; ImageSize = 3 ]`, // completed: not counted
	)
	withParams := func(src string) *classad.Ad {
		return ad(t, src[:len(src)-1]+`; Min_size_of_job = 1; Max_size_of_job = 1000; Pareto_variability = 1.1 ]`)
	}
	jobSource := []*classad.Ad{
		withParams(`[ JobStatus = 1; ImageSize = 2 ]`),
		withParams(`[ JobStatus = 2; ImageSize = 100 ]`),
		ad(t, `[ JobStatus = 1; ImageSize = 100 ]`),                                                                  // no k, p, a: unsized
		ad(t, `[ JobStatus = 1; ImageSize = 3; Min_size_of_job = 0; Max_size_of_job = 10; Pareto_variability = 1 ]`), // invalid k
	}
	tests := []struct {
		name     string
		cfg      sita.HostConfig
		hosts    []int // the interval of each host, in order
		jobs     []*classad.Ad
		counts   [][2]int // idle, running per interval
		unsized  int
		unplaced int
		bounds   bool // the rows carry numeric bounds
		errors   int
	}{
		{"config", config, []int{1, 2, 3, 3}, jobs, [][2]int{{1, 1}, {1, 1}, {2, 0}}, 1, 0, true, 0},
		{"job parameters", job, []int{1, 2, 3}, jobSource, [][2]int{{1, 0}, {0, 0}, {0, 1}}, 1, 1, false, 0},
		// Interval 2 has no slot: its bounds come from its neighbours.
		{"an interval without a slot", config, []int{1, 3}, jobs, [][2]int{{1, 1}, {1, 1}, {2, 0}}, 1, 0, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var slots []*classad.Ad
			for h, i := range tt.hosts {
				slots = append(slots, sitaSlot(t, tt.cfg, fmt.Sprintf("h%d", h), i, []string{"Claimed", "Unclaimed"}[h%2]))
			}
			got := Loads(slots, tt.jobs)
			if !got.Enabled || got.Attribute != "ImageSize" || len(got.Intervals) != 3 {
				t.Fatalf("loads: %+v", got)
			}
			for i, iv := range got.Intervals {
				if c := [2]int{iv.IdleJobs, iv.RunningJobs}; c != tt.counts[i] {
					t.Errorf("interval %d: idle, running %v, want %v", i+1, c, tt.counts[i])
				}
				if tt.bounds && (iv.Lower == nil) == (iv.LowerExpr == "") && iv.Slots > 0 {
					t.Errorf("interval %d: bounds %v %q", i+1, iv.Lower, iv.LowerExpr)
				}
				if !tt.bounds && iv.UpperExpr == "" {
					t.Errorf("interval %d: no bound expression with source = job", i+1)
				}
			}
			if got.Unsized != tt.unsized || got.Unplaced != tt.unplaced || len(got.Errors) != tt.errors {
				t.Errorf("unsized %d, unplaced %d, errors %q", got.Unsized, got.Unplaced, got.Errors)
			}
		})
	}
}

func TestSitaLoadsNumbers(t *testing.T) {
	cfg := sita.HostConfig{Intervals: 2, Source: sita.SourceConfig, K: 1, P: 100, A: 1}
	slots := []*classad.Ad{sitaSlot(t, cfg, "a", 1, "Claimed"), sitaSlot(t, cfg, "b", 2, "Unclaimed"), sitaSlot(t, cfg, "c", 2, "Claimed")}
	// a = 1: the boundary is k * (p/k)^(1/2) = 10.
	got := Loads(slots, ads(t, `[ JobStatus = 1; ImageSize = 4 ]`, `[ JobStatus = 2; ImageSize = 6 ]`, `[ JobStatus = 1; ImageSize = 10 ]`, `[ JobStatus = 2; ImageSize = 30 ]`))
	one, two := got.Intervals[0], got.Intervals[1]
	if *one.Upper != 10 || *two.Lower != 10 || one.IdleLoad != 4 || one.RunningLoad != 6 || two.IdleLoad != 10 || two.RunningLoad != 30 {
		t.Errorf("intervals: %+v %+v", one, two)
	}
	if one.Slots != 1 || one.Busy != 1 || two.Slots != 2 || two.Busy != 1 || !reflect.DeepEqual(two.Machines, []string{"b", "c"}) {
		t.Errorf("slots: %+v %+v", one, two)
	}
	if *one.MinSize != 4 || *one.MaxSize != 6 || *two.MinSize != 10 || *two.MaxSize != 30 {
		t.Errorf("sizes: %v-%v %v-%v", *one.MinSize, *one.MaxSize, *two.MinSize, *two.MaxSize)
	}
	// Loads 10 and 40: mean 25, M = 15, 60% of the mean.
	if got.MeanLoad != 25 || got.Imbalance != 15 || got.ImbalancePercent != 60 {
		t.Errorf("imbalance: %v %v %v", got.Imbalance, got.MeanLoad, got.ImbalancePercent)
	}
	if off := Loads(ads(t, `[ Name = "slot1@x"; State = "Unclaimed" ]`), nil); off.Enabled || len(off.Intervals) != 0 {
		t.Errorf("without SITA-E slots: %+v", off)
	}
}

func TestJobRow(t *testing.T) {
	got := JobRow(ad(t, `[ ClusterId = 12; ProcId = 3; Owner = "alice"; JobStatus = 5; QDate = 100; Cmd = "/bin/sleep"; Arguments = "60"; HoldReason = "via kite hold"; RequestCpus = 2; RequestMemory = 1024 ]`))
	want := Job{ID: "12.3", Owner: "alice", Status: 5, St: "H", Submitted: 100, Cmd: "/bin/sleep", Args: "60", HoldReason: "via kite hold", Cpus: 2, MemoryMiB: 1024}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestFilesAreEmbedded(t *testing.T) {
	for _, name := range []string{"index.html", "app.js", "style.css"} {
		b, err := readFile(name)
		if err != nil || len(b) < 500 {
			t.Errorf("%s: %d bytes, %v", name, len(b), err)
		}
	}
}

func readFile(name string) ([]byte, error) { return fs.ReadFile(Files(), name) }
