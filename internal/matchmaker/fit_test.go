package matchmaker

import (
	"testing"

	"github.com/kite-sched/kite/classad"
)

// The cycle carves a partitionable slot as the startd will (the fit
// package's rule): a job without requests takes 1 cpu, 128 MiB and
// 1024 KiB, and requests are rounded up to whole quanta while they fit.
func TestPartitionableSlotCarvedAsTheStartdCarves(t *testing.T) {
	tests := []struct {
		name, slot, job string
		matches         int
		first           [3]float64 // cpus, memory, disk of the first match
	}{
		{"no requests: memory runs out", `Cpus=4; Memory=300; Disk=100000`, ``, 2, [3]float64{1, 128, 1024}},
		{"no requests: disk runs out", `Cpus=4; Memory=4096; Disk=2500`, ``, 2, [3]float64{1, 128, 1024}},
		{"rounded up while it fits", `Cpus=4; Memory=4096; Disk=100000`, `RequestMemory=1000; RequestDisk=1000; RequestCpus=1.5`, 2, [3]float64{2, 1024, 1024}},
		{"as asked when rounding would not fit", `Cpus=1; Memory=100; Disk=1000`, `RequestMemory=100; RequestDisk=1000`, 1, [3]float64{1, 100, 1000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := slotAd(t, "slot1@fat", tc.slot+`; PartitionableSlot=true; SlotType="Partitionable"`)
			job := ad(t, `[MyType="Job"; Requirements=true; `+tc.job+`]`)
			res := Cycle(&Snapshot{Slots: []*classad.Ad{p},
				Submitters: []Submitter{submitter("a", 0.5, Request{ID: "1", Count: 4, Ad: job})}}, &Policy{})
			if len(res.Matches) != tc.matches {
				t.Fatalf("%d matches, want %d", len(res.Matches), tc.matches)
			}
			m := res.Matches[0]
			if got := [3]float64{m.Cpus, m.Memory, m.Disk}; got != tc.first {
				t.Errorf("the first match takes %v, want %v", got, tc.first)
			}
		})
	}
}
