package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/daemons/startd/cgroups"
	"github.com/kite-sched/kite/daemons/startd/devices"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
)

// unconfinable says why a startd here cannot keep jobs from devices, ""
// when it can (with job cgroups on): a cgroup v1 devices controller, or
// eBPF device programs and a writable cgroup v2.
func unconfinable() string {
	c, err := devices.DetectConfiner()
	switch {
	case err != nil:
		return fmt.Sprintf("jobs cannot be confined here: %v", err)
	case c.V1():
		return ""
	}
	m, err := cgroups.Detect("", fmt.Sprintf("kite_test_probe_%d", os.Getpid()))
	if err != nil {
		return fmt.Sprintf("no cgroup v1 devices controller, and no cgroup v2 for job groups: %v", err)
	}
	if err := m.Close(); err != nil {
		return err.Error()
	}
	return ""
}

// The A100s the fake nvidia-smi of daemons/startd/devices/testdata
// reports, by full uuid.
var a100s = []string{
	"GPU-c4a646d7-aa11-4b4c-9d3e-0123456789ab", "GPU-6a96bd13-bb22-4b4c-9d3e-0123456789ab",
	"GPU-1f2e3d4c-cc33-4b4c-9d3e-0123456789ab", "GPU-9a8b7c6d-dd44-4b4c-9d3e-0123456789ab",
}

// fakeSMI is the path of a fake nvidia-smi.
func fakeSMI(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "daemons", "startd", "devices", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// gpuHost makes a startd one partitionable slot of 4 cpus with the GPUs
// a fake nvidia-smi reports.
func gpuHost(t *testing.T, tools map[string]string) func(name string, c *startd.Config) {
	return func(name string, c *startd.Config) {
		c.Cpus, c.Memory = 4, 2048
		c.Layout = slots.Equal(1, true, "")
		c.Resources = []devices.Spec{{Name: devices.GPUs, NvidiaSMI: fakeSMI(t, tools[name])}}
	}
}

// gpuJob is a job that prints the GPU variables HTCondor's starter sets
// (HTCondor manual, users-manual/env-of-job.rst) and, when gate is not
// "", stays until the file gate exists, so that jobs overlap.
func gpuJob(gate, extra string) string {
	wait := ""
	if gate != "" {
		wait = fmt.Sprintf("; while [ ! -e %s ]; do sleep 0.05; done", gate)
	}
	return fmt.Sprintf(`executable = /bin/sh
arguments = "-c 'echo $CUDA_VISIBLE_DEVICES $_CONDOR_AssignedGPUs $GPU_DEVICE_ORDINAL%s'"
output = out.$(Cluster).$(Process)
request_cpus = 1
request_memory = 128
%s
`, wait, extra)
}

// printed reads what job cluster.proc printed: its CUDA_VISIBLE_DEVICES,
// _CONDOR_AssignedGPUs and GPU_DEVICE_ORDINAL.
func printed(t *testing.T, dir string, cluster int64, proc int) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out.%d.%d", cluster, proc)))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		t.Fatalf("job %d.%d printed %q, want three words", cluster, proc, b)
	}
	return f
}

// Two request_gpus = 2 jobs on a 4-GPU partitionable slot run at once,
// each given its own two GPUs (HTCondor manual,
// admin-manual/ep-policy-configuration.rst, "Configuring GPUs": each
// dynamic slot takes RequestGPUs of the p-slot's devices, never shared);
// a job asking for a fifth GPU waits, matching no slot, until they end,
// then runs on GPUs they gave back.
func TestGPUJobsGetDisjointDevices(t *testing.T) {
	pl := newPool(t, 1)
	pl.addStartd("a", poolOpts{startd: gpuHost(t, map[string]string{"a": "nvidia-smi-a100x4"})})
	dir := t.TempDir()
	gate := filepath.Join(dir, "release")
	c1 := pl.submit(dir, gpuJob(gate, "request_gpus = 2\nqueue 2"))
	pl.waitStatus(fmt.Sprintf("%d.0", c1), attr.Running)
	pl.waitStatus(fmt.Sprintf("%d.1", c1), attr.Running)

	c2 := pl.submit(dir, gpuJob("", "request_gpus = 1\nqueue"))
	pslot := pl.waitSlot("slot1@a", "0 4 4", "GPUs", "TotalSlotGPUs", "TotalGPUs")
	waiting := pl.job(fmt.Sprintf("%d.0", c2))
	if status(waiting) != attr.Idle {
		t.Fatalf("the fifth GPU's job is %d, want idle", status(waiting))
	}
	if eval.NewState(waiting, pslot).EvalAttr(attr.Requirements).IsTrue() {
		t.Fatalf("the waiting job matches the p-slot with no GPU left: %v", pslot)
	}

	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for proc := range 2 {
		pl.waitStatus(fmt.Sprintf("%d.%d", c1, proc), attr.Completed)
		f := printed(t, dir, c1, proc)
		visible := strings.Split(f[0], ",")
		if len(visible) != 2 || len(strings.Split(f[1], ",")) != 2 {
			t.Errorf("job %d: CUDA_VISIBLE_DEVICES %s, AssignedGPUs %s; want two GPUs", proc, f[0], f[1])
		}
		for _, u := range visible {
			if !slices.Contains(a100s, u) || slices.Contains(seen, u) {
				t.Errorf("job %d was given %s: not one of the host's or given twice (%v)", proc, u, seen)
			}
			seen = append(seen, u)
		}
	}
	// It may run on a claim the others leave, whose dynamic slot has two
	// GPUs: a dynamic slot keeps its size for the claim's next jobs.
	pl.waitStatus(fmt.Sprintf("%d.0", c2), attr.Completed)
	for _, u := range strings.Split(printed(t, dir, c2, 0)[0], ",") {
		if !slices.Contains(a100s, u) {
			t.Errorf("the fifth GPU's job got %q, not one of the A100s", u)
		}
	}
}

// require_gpus and the gpus_* limits choose hosts and devices by the
// GPUs' properties (HTCondor manual, users-manual, "Jobs That Require
// GPUs": condor_submit makes RequireGPUs, and Requirements counts the
// matching devices with countMatches): host a has four A100s (8.0, 40
// GiB), host b a T4 (7.5, 15 GiB) and a V100 (7.0, 16 GiB).
func TestRequireGPUs(t *testing.T) {
	pl := newPool(t, 1)
	hosts := map[string]string{"a": "nvidia-smi-a100x4", "b": "nvidia-smi-mixed"}
	pl.addStartd("a", poolOpts{startd: gpuHost(t, hosts)})
	pl.addStartd("b", poolOpts{startd: gpuHost(t, hosts)})
	dir := t.TempDir()
	tests := []struct {
		name, sub, host, visible string
	}{
		{"capability", "request_gpus = 1\ngpus_minimum_capability = 8.0", "a", ""},
		{"memory and capability pick the V100 over the T4",
			"request_gpus = 1\nrequire_gpus = Capability < 8.0\ngpus_minimum_memory = 16000M", "b",
			"GPU-5e6f7a8b-1111-2222-3333-444455556666"},
		{"two of enough memory", "request_gpus = 2\ngpus_minimum_memory = 16G", "a", ""},
		{"the T4 by name", "request_gpus = 1\nrequire_gpus = DeviceName == \"Tesla T4\"", "b",
			"GPU-0a1b2c3d-1111-2222-3333-444455556666"},
	}
	for _, tc := range tests {
		c := pl.submit(dir, gpuJob("", tc.sub+"\nqueue"))
		ad := pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed)
		if host := str(ad, attr.LastRemoteHost); !strings.HasSuffix(host, "@"+tc.host) {
			t.Errorf("%s: ran on %s, want host %s", tc.name, host, tc.host)
		}
		if f := printed(t, dir, c, 0); tc.visible != "" && f[0] != tc.visible {
			t.Errorf("%s: CUDA_VISIBLE_DEVICES %s, want %s", tc.name, f[0], tc.visible)
		}
	}
}

// A custom resource declared by device ids ([startd.resources], HTCondor's
// MACHINE_RESOURCE_<name> = id, id): static slots divide the devices,
// each slot ad names its own, and a job that asks with request_<name>
// runs where one is and sees its device in _CONDOR_Assigned<name>.
func TestCustomResourceDevices(t *testing.T) {
	pl := newPool(t, 1)
	pl.addStartd("a", poolOpts{startd: func(_ string, c *startd.Config) {
		c.Cpus, c.Memory = 3, 1536
		c.Layout = slots.Equal(3, false, "")
		c.Resources = []devices.Spec{{Name: "FPGAs", IDs: []string{"fpga0", "fpga1"}}}
	}})
	for slot, want := range map[string]string{"slot1@a": "1 fpga0", "slot2@a": "1 fpga1", "slot3@a": "0 "} {
		pl.waitSlot(slot, want, "FPGAs", "AssignedFPGAs")
	}
	dir := t.TempDir()
	gate := filepath.Join(dir, "release")
	c := pl.submit(dir, fmt.Sprintf(`executable = /bin/sh
arguments = "-c 'echo $_CONDOR_AssignedFPGAs; while [ ! -e %s ]; do sleep 0.05; done'"
output = out.$(Process)
request_FPGAs = 1
queue 2
`, gate))
	ads, outs := pl.releaseTogether(c, 2, gate, dir)
	var got []string
	for proc, ad := range ads {
		if host := str(ad, attr.LastRemoteHost); host == "slot3@a" {
			t.Errorf("job %d ran on slot3, which has no FPGA", proc)
		}
		got = append(got, strings.TrimSpace(outs[proc]))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"fpga0", "fpga1"}) {
		t.Errorf("the jobs saw %v, want fpga0 and fpga1", got)
	}
}

// A job is kept from the GPUs it was not given (HTCondor's
// STARTER_HIDE_GPU_DEVICES), where the host lets the startd: a cgroup v1
// devices group the job is born in, or an eBPF device program on its
// cgroup v2 group. The fake GPUs' device files stand for real ones:
// nvidia0 is /dev/null, nvidia1 /dev/zero, nvidia2 /dev/full, nvidia3
// /dev/urandom; a job given one GPU may open its file and none of the
// three others.
func TestGPUJobsKeptFromOtherGPUs(t *testing.T) {
	if why := unconfinable(); why != "" {
		t.Skip(why)
	}
	dev := t.TempDir()
	files := []string{"null", "zero", "full", "urandom"}
	for i, f := range files {
		if err := os.Symlink("/dev/"+f, filepath.Join(dev, fmt.Sprintf("nvidia%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	pl := newPool(t, 1)
	pl.addStartd("a", poolOpts{startd: func(name string, cfg *startd.Config) {
		gpuHost(t, map[string]string{"a": "nvidia-smi-a100x4"})(name, cfg)
		cfg.DeviceDir, cfg.Cgroups = dev, true
	}})
	dir := t.TempDir()
	gate := filepath.Join(dir, "release")
	cl := pl.submit(dir, fmt.Sprintf(`executable = /bin/sh
arguments = "-c 'echo $_CONDOR_AssignedGPUs; for d in %s; do if true < /dev/$d; then echo $d ok; else echo $d denied; fi; done; while [ ! -e %s ]; do sleep 0.05; done'"
output = out.$(Process)
request_gpus = 1
queue 2
`, strings.Join(files, " "), gate))
	_, outs := pl.releaseTogether(cl, 2, gate, dir)
	minor := map[string]int{"GPU-c4a646d7": 0, "GPU-6a96bd13": 1, "GPU-1f2e3d4c": 2, "GPU-9a8b7c6d": 3}
	for proc, out := range outs {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		mine, ok := minor[lines[0]]
		if !ok {
			t.Fatalf("job %d: AssignedGPUs %q", proc, lines[0])
		}
		for i, f := range files {
			want := f + " denied"
			if i == mine {
				want = f + " ok"
			}
			if !slices.ContainsFunc(lines, func(l string) bool { return l == want }) {
				t.Errorf("job %d (GPU %s): want %q in %q", proc, lines[0], want, lines[1:])
			}
		}
	}
}

// releaseTogether waits until procs 0 to n-1 of cluster c run at the same
// time, then creates the file gate that they wait for, and returns each
// proc's ad once it has completed and the text of its output file,
// dir/out.PROC.
func (pl *pool) releaseTogether(c int64, n int, gate, dir string) (ads []*classad.Ad, outs []string) {
	pl.t.Helper()
	for proc := range n {
		pl.waitStatus(fmt.Sprintf("%d.%d", c, proc), attr.Running)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		pl.t.Fatal(err)
	}
	for proc := range n {
		ads = append(ads, pl.waitStatus(fmt.Sprintf("%d.%d", c, proc), attr.Completed))
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out.%d", proc)))
		if err != nil {
			pl.t.Fatal(err)
		}
		outs = append(outs, string(b))
	}
	return ads, outs
}
