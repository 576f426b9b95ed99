package cli

import (
	"fmt"
	"strings"

	"github.com/kite-sched/kite/classad"
)

// gpuSlots selects the slots condor_status -gpus shows: those given GPUs
// (a partitionable slot stays while its GPUs are carved out, as
// HTCondor's (PartitionableSlot && AssignedGPUs isnt undefined) ?: Gpus
// keeps it).
const gpuSlots = "((TotalSlotGPUs ?: 0) > 0)"

// gpuName is condor_status -gpus's GPU-Name: the model the slot's GPUs
// share, else each free GPU's.
var gpuName = gpuExpr(`GPUs_DeviceName ?: join(",", evalInEachContext(DeviceName, AvailableGPUs))`)

func gpuExpr(src string) classad.Expr {
	e, err := classad.ParseExpr(src)
	if err != nil {
		panic(err)
	}
	return e
}

// gpuTable is condor_status -gpus (HTCondor's SlotGPUs print format):
// each slot with GPUs, its state and activity code, its user, how many
// GPUs it has free, their memory and their model.
func gpuTable(ads []*classad.Ad) *table {
	t := &table{
		headers: []string{"Name", "ST", "User", "GPUs", "GPU-Memory", "GPU-Name"},
		right:   []bool{false, false, false, true, true, false},
	}
	for _, ad := range ads {
		mem := "_"
		if mb, ok := classad.EvalNumber(ad, "GPUs_GlobalMemoryMb"); ok {
			mem = readableBytes(mb * 1024 * 1024)
		}
		t.add(str(ad, "Name"), activityCode(str(ad, "State"), str(ad, "Activity")), orElse(str(ad, "RemoteUser"), "_"),
			str(ad, "GPUs"), mem, orElse(evalInAd(ad, gpuName), "*"))
	}
	return t
}

// evalInAd evaluates e in ad, "" unless it is a string.
func evalInAd(ad *classad.Ad, e classad.Expr) string {
	probe := ad.Clone()
	probe.Set("KiteProbe", e)
	s, _ := classad.EvalString(probe, "KiteProbe")
	return s
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// stateLetters and activityLetters are condor_status's ST codes: Ui is
// Unclaimed/Idle, Cb Claimed/Busy, Fi Backfill/Idle.
var (
	stateLetters = map[string]string{"Owner": "O", "Unclaimed": "U", "Matched": "M", "Claimed": "C",
		"Preempting": "P", "Shutdown": "S", "Delete": "X", "Backfill": "F", "Drained": "D"}
	activityLetters = map[string]string{"Idle": "i", "Busy": "b", "Retiring": "r", "Vacating": "v",
		"Suspended": "s", "Benchmarking": "e", "Killing": "k"}
)

// activityCode is condor_status's ST: the state's letter and the
// activity's, a space for either that is unknown.
func activityCode(state, activity string) string {
	return orElse(stateLetters[state], " ") + orElse(activityLetters[activity], " ")
}

// readableBytes writes a size as condor_status does (metric_units): one
// decimal and the largest unit it exceeds, "40.0 GB".
func readableBytes(b float64) string {
	units := []string{"B ", "KB", "MB", "GB", "TB"}
	i := 0
	for b > 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", b, strings.TrimSpace(units[i]))
}
