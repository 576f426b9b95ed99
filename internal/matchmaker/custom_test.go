package matchmaker

import (
	"testing"

	"github.com/kite-sched/kite/classad"
)

// The cycle takes a job's custom resources (GPUs, ...) from a
// partitionable slot as the startd will (fit.Counts: exactly Request<name>,
// none when missing), so it matches no more GPU jobs to a slot than it
// has GPUs (HTCondor manual, admin-manual/ep-policy-configuration.rst,
// "Configuring GPUs"; the slot's MachineResources names its resources).
func TestPartitionableSlotCustomResources(t *testing.T) {
	tests := []struct {
		name, job string
		matches   int
	}{
		{"two GPUs each out of four", `RequestGPUs = 2`, 2},
		{"one GPU each", `RequestGPUs = 1`, 4},
		{"fractions round up", `RequestGPUs = 1.5`, 2},
		{"no GPUs: cpus run out", ``, 8},
		{"more than the slot has", `RequestGPUs = 5`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := slotAd(t, "slot1@gpu", `Cpus=8; Memory=8192; Disk=1000000; GPUs=4; MachineResources="Cpus Memory Disk GPUs";
				PartitionableSlot=true; SlotType="Partitionable"; Requirements=START && (TARGET.RequestGPUs ?: 0) <= MY.GPUs`)
			job := ad(t, `[MyType="Job"; Requirements=true; RequestCpus=1; RequestMemory=128; `+tc.job+`]`)
			res := Cycle(&Snapshot{Slots: []*classad.Ad{p},
				Submitters: []Submitter{submitter("a", 0.5, Request{ID: "1", Count: 10, Ad: job})}}, &Policy{})
			if len(res.Matches) != tc.matches {
				t.Fatalf("%d matches, want %d", len(res.Matches), tc.matches)
			}
		})
	}
}
