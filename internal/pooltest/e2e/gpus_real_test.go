package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/daemons/startd/devices"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
)

// gpuLine is a line of nvidia-smi -L: "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1d2c...)".
var gpuLine = regexp.MustCompile(`(?m)^GPU \d+: .* \(UUID: (GPU-[0-9a-f-]+)\)$`)

// On a machine with an NVIDIA GPU (docs/gpus.md, "Checking on a real
// GPU"): the startd finds the GPUs with the real nvidia-smi, and a job
// with request_gpus = 1 is given exactly one of them: its
// CUDA_VISIBLE_DEVICES holds one full uuid, which nvidia-smi -L, run by
// the job, lists, alone where the job is confined to its GPU (cgroup v1
// devices, or eBPF on cgroup v2) or the host has one. Where nvidia-smi -L does not work the
// test is skipped, saying so.
func TestRealGPU(t *testing.T) {
	out, err := exec.Command("nvidia-smi", "-L").CombinedOutput()
	if err != nil {
		t.Skipf("no NVIDIA GPU here: nvidia-smi -L: %v %s", err, strings.TrimSpace(string(out)))
	}
	host := gpuLine.FindAllStringSubmatch(string(out), -1)
	if len(host) == 0 {
		t.Skipf("nvidia-smi -L lists no GPU: %s", out)
	}
	pl := newPool(t, 1)
	pl.addStartd("gpu", poolOpts{startd: func(_ string, c *startd.Config) {
		c.Cpus, c.Memory = 2, 2048
		c.Layout = slots.Equal(1, true, "")
		c.Resources = []devices.Spec{{Name: devices.GPUs, NvidiaSMI: "nvidia-smi"}}
		c.Cgroups = true
	}})
	dir := t.TempDir()
	c := pl.submit(dir, `executable = /bin/sh
arguments = "-c 'echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; nvidia-smi -L'"
output = out
error = err
getenv = PATH
request_gpus = 1
queue
`)
	ad := pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed)
	b, _ := os.ReadFile(filepath.Join(dir, "out"))
	e, _ := os.ReadFile(filepath.Join(dir, "err"))
	if str(ad, attr.ExitCode) != "0" {
		t.Fatalf("the job failed (%s): %s %s", str(ad, attr.ExitCode), b, e)
	}
	visible, _, _ := strings.Cut(strings.TrimPrefix(string(b), "CUDA_VISIBLE_DEVICES="), "\n")
	if strings.Contains(visible, ",") || !strings.HasPrefix(visible, "GPU-") {
		t.Fatalf("CUDA_VISIBLE_DEVICES = %q, want one GPU's uuid", visible)
	}
	seen := gpuLine.FindAllStringSubmatch(string(b), -1)
	var listed []string
	for _, m := range seen {
		listed = append(listed, m[1])
	}
	if !strings.Contains(strings.Join(listed, " "), visible) {
		t.Errorf("the job's GPU %s is not among those nvidia-smi -L lists to it: %v", visible, listed)
	}
	// Where the job is kept from the other GPUs (cgroup v1 devices, or an
	// eBPF device program on its cgroup v2 group), nvidia-smi lists only
	// its own; so too on a one-GPU host.
	if (len(host) == 1 || unconfinable() == "") && (len(listed) != 1 || listed[0] != visible) {
		t.Errorf("the job sees %v, want exactly %s", listed, visible)
	}
	t.Logf("the job was given %s; nvidia-smi -L in the job lists %v (the host has %d)", visible, listed, len(host))
}
