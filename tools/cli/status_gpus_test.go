package cli

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// condor_status -gpus's rows (HTCondor's SlotGPUs print format): the ST
// code, _ for no user, the memory as metric_units writes it, and the
// model the GPUs share or each free GPU's.
func TestGPUTable(t *testing.T) {
	ads := []*classad.Ad{
		mustAd(t, `[Name = "slot1@a"; State = "Claimed"; Activity = "Busy"; RemoteUser = "alice@x"; GPUs = 1;
			GPUs_GlobalMemoryMb = 40960; GPUs_DeviceName = "NVIDIA A100-SXM4-40GB"]`),
		mustAd(t, `[Name = "slot1@b"; State = "Unclaimed"; Activity = "Benchmarking"; GPUs = 2;
			AvailableGPUs = { GPUs_GPU_a, GPUs_GPU_b }; GPUs_GPU_a = [ DeviceName = "Tesla T4" ]; GPUs_GPU_b = [ DeviceName = "Tesla V100" ]]`),
		mustAd(t, `[Name = "slot1@c"; State = "Backfill"; Activity = "Idle"; GPUs = 0; GPUs_GlobalMemoryMb = 1024]`),
	}
	var b strings.Builder
	if err := gpuTable(ads).write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"slot1@a Cb alice@x    1    40.0 GB NVIDIA A100-SXM4-40GB\n",
		"slot1@b Ue _          2          _ Tesla T4,Tesla V100\n",
		"slot1@c Fi _          0  1024.0 MB *\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line %q in\n%s", want, b.String())
		}
	}
}

func mustAd(t *testing.T, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}
