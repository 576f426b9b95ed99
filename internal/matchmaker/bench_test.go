package matchmaker

import (
	"fmt"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
)

// The benchmarks run one cycle on ads that are fresh each time (their
// expressions compiled on first use, as a live cycle's ads are). Slots come
// from hardware types like a real pool's: several memory sizes,
// architectures and OS versions, and per-slot values (names, load,
// keyboard idle time) that no job reads.

var (
	archs = []string{"X86_64", "X86_64", "X86_64", "aarch64"}
	oses  = []string{"AlmaLinux9", "Ubuntu22", "Ubuntu24"}
	mems  = []int{2048, 4096, 8192, 16384, 32768}
)

// slotText is slot i of a pool with the given number of hardware types.
func slotText(i, types int, extra string) string {
	t := i % types
	host := i / 8
	return fmt.Sprintf(`[MyType="Machine"; TargetType="Job"; Name="slot%d@host%d.example.org"; Machine="host%d.example.org";
		State="Unclaimed"; Activity="Idle"; EnteredCurrentState=1700000000; SlotID=%d; SlotType="Static"; PartitionableSlot=false;
		Cpus=1; Memory=%d; Disk=%d; TotalCpus=8; TotalMemory=%d; TotalDisk=%d;
		Arch=%q; OpSys="LINUX"; OpSysAndVer=%q; KFlops=%d; Mips=%d;
		LoadAvg=%d.%02d; KeyboardIdle=%d; ConsoleIdle=%d; HasFileTransfer=true; HasDocker=%v;
		FileSystemDomain="example.org"; UidDomain="example.org"; MyAddress="10.0.%d.%d:9618";
		KiteMember="startd@host%d"; DaemonStartTime=1700000000; UpdateSequenceNumber=%d; ClaimId="c%d#%x";
		START=true; Requirements=START; Rank=0; CurrentRank=0; %s]`,
		i%8+1, host, host, i%8+1, mems[t%len(mems)], 100000*(1+t%3), 8*mems[t%len(mems)], 800000*(1+t%3),
		archs[t%len(archs)], oses[t%len(oses)], 1000000+t*50000, 20000+t*1000,
		i%4, i%100, 600+i%3600, 600+i%3600, t%2 == 0, (host/250)%250, host%250, host, i, i, i*7919, extra)
}

// jobText is autocluster j: requirements, requests and ranks vary.
func jobText(j int, matchable bool) string {
	req := fmt.Sprintf(`(TARGET.Arch == %q) && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer)`,
		archs[j%len(archs)])
	switch j % 5 {
	case 1:
		req += fmt.Sprintf(` && (TARGET.OpSysAndVer == %q)`, oses[j%len(oses)])
	case 2:
		req += fmt.Sprintf(` && (TARGET.KFlops > %d)`, 1000000+(j%20)*40000)
	case 3:
		req += ` && (TARGET.HasDocker =!= true)`
	}
	if !matchable {
		req += ` && (TARGET.Memory >= 10000000)`
	}
	rank := "0"
	if j%3 == 0 {
		rank = "TARGET.KFlops"
	}
	return fmt.Sprintf(`[MyType="Job"; TargetType="Machine"; ClusterId=%d; ProcId=0; Owner="user%d"; User="user%d@example.org";
		JobUniverse=5; JobStatus=1; Cmd="/bin/sim"; Iwd="/home/user%d"; QDate=1700000000; JobPrio=0;
		RequestCpus=1; RequestMemory=%d; RequestDisk=%d; Requirements=%s; Rank=%s; ImageSize=%d; DiskUsage=%d]`,
		j+1, j%10, j%10, j%10, 512*(1+j%8), 1000*(1+j%50), req, rank, 1000+j, 1000+j)
}

// records parses texts once; fresh ads are made from them per cycle.
func records(b *testing.B, texts []string) []*ast.Record {
	out := make([]*ast.Record, len(texts))
	for i, s := range texts {
		ad, err := classad.Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = ad.Record()
	}
	return out
}

func fresh(recs []*ast.Record) []*classad.Ad {
	out := make([]*classad.Ad, len(recs))
	for i, r := range recs {
		out[i] = eval.FromRecord(r)
	}
	return out
}

// benchCycle runs cycles of slots × autoclusters of jobsPerAC jobs from 10
// submitters.
func benchCycle(b *testing.B, slotTexts, jobTexts []string, jobsPerAC int) {
	slotRecs, jobRecs := records(b, slotTexts), records(b, jobTexts)
	b.ReportAllocs()
	b.ResetTimer()
	var res Result
	for b.Loop() {
		b.StopTimer()
		jobs := fresh(jobRecs)
		snap := &Snapshot{Slots: fresh(slotRecs), Now: time.Unix(1700000000, 0)}
		snap.Submitters = make([]Submitter, 10)
		for s := range snap.Submitters {
			snap.Submitters[s] = Submitter{Name: fmt.Sprintf("user%d@example.org", s), Schedd: "schedd:1", Priority: 500 + float64(s)}
		}
		for j, ad := range jobs {
			s := &snap.Submitters[j%10]
			s.Requests = append(s.Requests, Request{ID: fmt.Sprint(j), Count: jobsPerAC, Ad: ad})
		}
		b.StartTimer()
		res = Cycle(snap, &Policy{Seed: 1})
	}
	b.ReportMetric(float64(len(res.Matches)), "matches")
	b.ReportMetric(float64(res.Stats.Classes), "classes")
	b.ReportMetric(float64(res.Stats.Evaluations), "evals")
}

func texts(n int, f func(int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// 100 000 idle jobs in 1 000 autoclusters against 10 000 slots (target < 1 s).
func BenchmarkCycle100kJobs10kSlots(b *testing.B) {
	benchCycle(b, texts(10000, func(i int) string { return slotText(i, 30, "") }),
		texts(1000, func(j int) string { return jobText(j, true) }), 100)
}

// 1 000 000 idle jobs in 10 000 autoclusters against 100 000 slots (target < 10 s).
func BenchmarkCycle1MJobs100kSlots(b *testing.B) {
	benchCycle(b, texts(100000, func(i int) string { return slotText(i, 30, "") }),
		texts(10000, func(j int) string { return jobText(j, true) }), 100)
}

// HTCondor's measured setup: 2 000 static slots against 100 000 idle jobs
// in 1 000 autoclusters whose Requirements no slot meets (HTCondor
// 25.14: 9.9–13.7 s; target < 0.2 s).
func BenchmarkCycleUnmatchable2kSlots(b *testing.B) {
	benchCycle(b, texts(2000, func(i int) string { return slotText(i, 30, "") }),
		texts(1000, func(j int) string { return jobText(j, false) }), 100)
}

// The same with every slot its own class (each slot's START reads its own
// load and keyboard idle time, as on a desktop grid): no memoization across
// slots, 2 000 000 request-slot evaluations.
func BenchmarkCycleUnmatchable2kSlotsAllDistinct(b *testing.B) {
	benchCycle(b, texts(2000, func(i int) string {
		return slotText(i, 30, "START = KeyboardIdle > 300 && LoadAvg < 3.5")
	}), texts(1000, func(j int) string { return jobText(j, false) }), 100)
}

// How a cycle grows with jobs (slots fixed at 10 000) and with slots (jobs
// fixed at 100 000), 100 jobs per autocluster; every slot gets a job.
func BenchmarkCycleScale(b *testing.B) {
	for _, c := range []struct{ jobs, slots int }{
		{10000, 10000}, {100000, 10000}, {1000000, 10000},
		{100000, 1000}, {100000, 100000},
	} {
		b.Run(fmt.Sprintf("jobs=%d/slots=%d", c.jobs, c.slots), func(b *testing.B) {
			benchCycle(b, texts(c.slots, func(i int) string { return slotText(i, 30, "") }),
				texts(c.jobs/100, func(j int) string { return jobText(j, true) }), 100)
		})
	}
}

// Partitionable slots: 1 250 machines of 8 cores, each one slot carved by
// the jobs, against 100 000 jobs in 1 000 autoclusters.
func BenchmarkCyclePartitionable(b *testing.B) {
	benchCycle(b, texts(1250, func(i int) string {
		return slotText(i, 30, `Cpus=8; SlotType="Partitionable"; PartitionableSlot=true; Memory=65536; Disk=10000000`)
	}), texts(1000, func(j int) string { return jobText(j, true) }), 100)
}
