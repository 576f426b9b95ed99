package devices

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for the fake discovery tools")
	}
	return p
}

// The GPUs nvidia-smi reports, named and described as HTCondor 25's
// condor_gpu_discovery -properties -extra does by default (HTCondor
// manual, man-pages/condor_gpu_discovery.rst: -short-uuid ids
// GPU-xxxxxxxx; DeviceName, DeviceUuid, DevicePciBusId, Capability,
// GlobalMemoryMb, ECCEnabled, DriverVersion, MaxSupportedVersion,
// ClockMhz).
func TestNvidiaGPUs(t *testing.T) {
	tests := []struct {
		tool  string
		ids   []string
		minor []int
		props map[string]any // of the first GPU; nil: not published
	}{
		{"nvidia-smi-a100x4", []string{"GPU-c4a646d7", "GPU-6a96bd13", "GPU-1f2e3d4c", "GPU-9a8b7c6d"}, []int{0, 1, 2, 3},
			map[string]any{"DeviceName": "NVIDIA A100-SXM4-40GB", "DeviceUuid": "c4a646d7-aa11-4b4c-9d3e-0123456789ab",
				"DevicePciBusId": "0000:07:00.0", "Capability": 8.0, "GlobalMemoryMb": 40960.0, "ECCEnabled": true,
				"DriverVersion": 12.2, "MaxSupportedVersion": 12020.0, "ClockMhz": 1410.0}},
		{"nvidia-smi-mixed", []string{"GPU-0a1b2c3d", "GPU-5e6f7a8b"}, []int{1, 0},
			map[string]any{"DeviceName": "Tesla T4", "Capability": 7.5, "GlobalMemoryMb": 15360.0,
				"ECCEnabled": false, "DriverVersion": 11.4, "MaxSupportedVersion": 11040.0, "ClockMhz": nil}},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			r := NvidiaGPUs(context.Background(), tool(t, tc.tool), quiet)
			if !slices.Equal(r.IDs, tc.ids) || r.Count != int64(len(tc.ids)) {
				t.Fatalf("ids %v (count %d), want %v", r.IDs, r.Count, tc.ids)
			}
			for i, id := range tc.ids {
				if r.Minor[id] != tc.minor[i] {
					t.Errorf("%s: minor %d, want %d", id, r.Minor[id], tc.minor[i])
				}
			}
			checkProps(t, r.Props[tc.ids[0]], tc.props)
		})
	}
}

// checkProps compares an ad's attributes with strings, numbers and
// booleans; nil wants the attribute missing.
func checkProps(t *testing.T, ad *classad.Ad, want map[string]any) {
	t.Helper()
	for k, w := range want {
		var got any
		var ok bool
		switch w.(type) {
		case nil:
			if _, found := ad.Lookup(k); found {
				t.Errorf("%s is published, want it left out", k)
			}
			continue
		case string:
			got, ok = classad.EvalString(ad, k)
		case float64:
			got, ok = classad.EvalNumber(ad, k)
		case bool:
			got, ok = classad.EvalBool(ad, k)
		}
		if !ok || got != w {
			t.Errorf("%s = %v (%v), want %v", k, got, ok, w)
		}
	}
}

// No GPUs is not an error: a missing or failing nvidia-smi gives none,
// and Discover then leaves the GPUs out altogether.
func TestNvidiaGPUsNone(t *testing.T) {
	for _, path := range []string{tool(t, "nvidia-smi-failing"), filepath.Join(t.TempDir(), "no-such-nvidia-smi")} {
		r := NvidiaGPUs(context.Background(), path, quiet)
		if r.Count != 0 || len(r.IDs) != 0 {
			t.Errorf("%s: %v, want no GPUs", path, r.String())
		}
		got, err := Discover(context.Background(), []Spec{{Name: GPUs, NvidiaSMI: path}}, quiet)
		if err != nil || len(got) != 0 {
			t.Errorf("%s: Discover = %v, %v; want nothing", path, got, err)
		}
	}
}

// An inventory command in condor_gpu_discovery's nested form (HTCondor
// manual, admin-manual/ep-policy-configuration.rst,
// MACHINE_RESOURCE_INVENTORY_<name>): offline devices are withheld,
// Common goes into each device's ad, and other lines are published as
// they are.
func TestInventory(t *testing.T) {
	got, err := Discover(context.Background(), []Spec{{Name: "FPGAs", Inventory: []string{tool(t, "inventory-fpgas")}}}, quiet)
	if err != nil || len(got) != 1 {
		t.Fatalf("Discover = %v, %v", got, err)
	}
	r := got[0]
	if !slices.Equal(r.IDs, []string{"fpga0", "fpga1"}) || r.Count != 2 {
		t.Fatalf("ids %v count %d, want fpga0 fpga1 (fpga2 offline)", r.IDs, r.Count)
	}
	if m := classad.EvalStringOr(r.Props["fpga1"], "Model", ""); m != "U280" {
		t.Errorf("fpga1 Model %q, want its own U280", m)
	}
	if m := classad.EvalStringOr(r.Props["fpga0"], "Model", ""); m != "U250" {
		t.Errorf("fpga0 Model %q, want the common U250", m)
	}
	if len(r.Extra) != 1 || r.Extra[0].Name != "FPGAsFirmware" {
		t.Errorf("extra %v, want FPGAsFirmware", r.Extra)
	}
}

func TestParseInventoryErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"OtherThing=1\n", "no DetectedFPGAs line"},
		{"DetectedFPGAs=\"a, a\"\n", "listed twice"},
		{"DetectedFPGAs=true\n", "not a count or a string of ids"},
		{"DetectedFPGAs=(\n", "line 1"},
	} {
		if _, err := ParseInventory("FPGAs", []byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.text, err, tc.want)
		}
	}
	r, err := ParseInventory("Licenses", []byte("DetectedLicenses=5\n"))
	if err != nil || !r.Fungible() || r.Count != 5 {
		t.Errorf("a count: %v, %v; want 5 fungible", r.String(), err)
	}
}

// A failing inventory leaves its resource empty; the startd still runs.
func TestDiscoverFailingInventory(t *testing.T) {
	got, err := Discover(context.Background(), []Spec{{Name: "FPGAs", Inventory: []string{tool(t, "nvidia-smi-failing")}}}, quiet)
	if err != nil || len(got) != 1 || got[0].Count != 0 {
		t.Fatalf("Discover = %v, %v; want FPGAs with none", got, err)
	}
}

// What a slot ad carries of a resource (HTCondor manual,
// admin-manual/ep-policy-configuration.rst, "Configuring GPUs"), and that
// countMatches over Available<name> counts the devices meeting a
// job's RequireGPUs.
func TestPublish(t *testing.T) {
	r := NvidiaGPUs(context.Background(), tool(t, "nvidia-smi-mixed"), quiet)
	ad := classad.NewAd()
	r.Publish(ad, Share{TotalN: 2, FreeN: 2, TotalIDs: r.IDs, FreeIDs: r.IDs})
	checkProps(t, ad, map[string]any{
		"GPUs": 2.0, "TotalGPUs": 2.0, "TotalSlotGPUs": 2.0, "AssignedGPUs": "GPU-0a1b2c3d,GPU-5e6f7a8b",
		"GPUs_DriverVersion": 11.4, "GPUs_MaxSupportedVersion": 11040.0,
	})
	if got := classad.String(mustLookup(t, ad, "AvailableGPUs")); got != "{ GPUs_GPU_0a1b2c3d,GPUs_GPU_5e6f7a8b }" {
		t.Errorf("AvailableGPUs = %s", got)
	}
	nested, err := classad.Parse(classad.String(mustLookup(t, ad, "GPUs_GPU_5e6f7a8b")))
	if err != nil {
		t.Fatal(err)
	}
	checkProps(t, nested, map[string]any{"Id": "GPU-5e6f7a8b", "DeviceName": "Tesla V100-SXM2-16GB", "Capability": 7.0})
	for _, differs := range []string{"GPUs_DeviceName", "GPUs_Capability"} {
		if _, ok := ad.Lookup(differs); ok {
			t.Errorf("%s published though the devices differ", differs)
		}
	}
	for expr, want := range map[string]int64{
		"countMatches(Capability >= 7.5, AvailableGPUs)":          1,
		"countMatches(GlobalMemoryMb >= 15000, AvailableGPUs)":    2,
		"countMatches(DeviceName == \"Tesla T4\", AvailableGPUs)": 1,
	} {
		e, err := classad.ParseExpr(expr)
		if err != nil {
			t.Fatal(err)
		}
		ad.Set("Probe", e)
		if n, ok := classad.EvalInt(ad, "Probe"); !ok || n != want {
			t.Errorf("%s = %d (%v), want %d", expr, n, ok, want)
		}
	}
}

func mustLookup(t *testing.T, ad *classad.Ad, name string) classad.Expr {
	t.Helper()
	e, ok := ad.Lookup(name)
	if !ok {
		t.Fatalf("%s missing", name)
	}
	return e
}

// The job's environment names its devices as HTCondor's starter does
// (HTCondor manual, users-manual/env-of-job.rst; use feature : GPUs).
func TestEnvironment(t *testing.T) {
	gpus := NvidiaGPUs(context.Background(), tool(t, "nvidia-smi-a100x4"), quiet)
	byIndex := Resource{Name: GPUs, Count: 2, IDs: []string{"CUDA0", "CUDA1"}}
	fpgas := Resource{Name: "FPGAs", Count: 2, IDs: []string{"fpga0", "fpga1"}}
	lic := Resource{Name: "Licenses", Count: 4}
	tests := []struct {
		name     string
		rs       []Resource
		assigned map[string][]string
		want     map[string]string
	}{
		{"two A100s", []Resource{gpus}, map[string][]string{GPUs: {"GPU-6a96bd13", "GPU-9a8b7c6d"}}, map[string]string{
			"_CONDOR_AssignedGPUs":   "GPU-6a96bd13,GPU-9a8b7c6d",
			"CUDA_VISIBLE_DEVICES":   "GPU-6a96bd13-bb22-4b4c-9d3e-0123456789ab,GPU-9a8b7c6d-dd44-4b4c-9d3e-0123456789ab",
			"NVIDIA_VISIBLE_DEVICES": "GPU-6a96bd13-bb22-4b4c-9d3e-0123456789ab,GPU-9a8b7c6d-dd44-4b4c-9d3e-0123456789ab",
			"GPU_DEVICE_ORDINAL":     "GPU-6a96bd13,GPU-9a8b7c6d"}},
		{"none on a GPU host", []Resource{gpus}, nil, map[string]string{
			"_CONDOR_AssignedGPUs": "10000", "CUDA_VISIBLE_DEVICES": "10000", "GPU_DEVICE_ORDINAL": "10000", "NVIDIA_VISIBLE_DEVICES": "none"}},
		{"by index", []Resource{byIndex}, map[string][]string{GPUs: {"CUDA1"}}, map[string]string{
			"_CONDOR_AssignedGPUs": "CUDA1", "CUDA_VISIBLE_DEVICES": "1", "NVIDIA_VISIBLE_DEVICES": "1", "GPU_DEVICE_ORDINAL": "1"}},
		{"a custom resource", []Resource{fpgas, lic}, map[string][]string{"FPGAs": {"fpga1"}}, map[string]string{
			"_CONDOR_AssignedFPGAs": "fpga1"}},
		{"no devices", nil, nil, map[string]string{}},
	}
	for _, tc := range tests {
		if got := Environment(tc.rs, tc.assigned); !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := DeviceFiles([]Resource{gpus}, map[string][]string{GPUs: {"GPU-1f2e3d4c"}}); !slices.Equal(got, []string{"/dev/nvidia2"}) {
		t.Errorf("device files %v, want /dev/nvidia2", got)
	}
}
