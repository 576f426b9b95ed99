package startd

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/pooltest"
)

// Slot types share the GPUs and custom resources of a host file (HTCondor
// manual, admin-manual/ep-policy-configuration.rst: SLOT_TYPE_<N> =
// gpus=..., and MACHINE_RESOURCE_<name>), names matched without regard to
// case, and each slot ad says what it has.
func TestSlotTypesShareCustomResources(t *testing.T) {
	smi, err := filepath.Abs("devices/testdata/nvidia-smi-a100x4")
	if err != nil {
		t.Fatal(err)
	}
	c := loadConfig(t, fmt.Sprintf(`
[startd]
slot_user = "nobody"
gpu_discovery = %q
[startd.resources]
FPGAs = ["f0", "f1", "f2"]
licenses = 5
[startd.slot_types.a_gpu]
count = 1
cpus = 2
resources = { gpus = 3, fpgas = "1/3" }
[startd.slot_types.b_cpu]
count = 2
cpus = 1
resources = { GPUs = 0 }
`, smi))
	cfg := ConfigFrom(c)
	cfg.ExecuteDir, cfg.Machine = reachableDir(t), &testMachine
	s, err := New(pooltest.New(t).Env("startd"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`slot1@test | 3 GPU-c4a646d7,GPU-6a96bd13,GPU-1f2e3d4c | 1 f0 | 2 | Cpus Memory Disk GPUs FPGAs licenses`,
		`slot2@test | 0  | 1 f1 | 2 | Cpus Memory Disk GPUs FPGAs licenses`,
		`slot3@test | 0  | 1 f2 | 1 | Cpus Memory Disk GPUs FPGAs licenses`,
	}
	for i, st := range s.slots {
		ad := s.slotAd(st)
		got := fmt.Sprintf("%s | %s %s | %s %s | %s | %s", st.name, get(ad, "GPUs"), get(ad, "AssignedGPUs"),
			get(ad, "FPGAs"), get(ad, "AssignedFPGAs"), get(ad, "licenses"), get(ad, "MachineResources"))
		if i >= len(want) || got != want[i] {
			t.Errorf("slot %d: %s\nwant     %s", i+1, got, want[min(i, len(want)-1)])
		}
	}
}

func get(ad *classad.Ad, name string) string {
	v, _ := classad.EvalAttr(ad, name, nil)
	if s, ok := v.StringValue(); ok {
		return s
	}
	return v.String()
}
