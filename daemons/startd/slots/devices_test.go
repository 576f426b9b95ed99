package slots

import (
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/fit"
)

var machineGPUs = Devices{
	"GPUs":     {N: 4, IDs: []string{"GPU-a", "GPU-b", "GPU-c", "GPU-d"}},
	"Licenses": {N: 3},
}

// Static slots divide the custom resources as they divide cpus (HTCondor
// manual, admin-manual/ep-policy-configuration.rst, "Custom and
// Fungible Resources": SLOT_TYPE_<N> = gpus=..., by count or share, the
// rest equally, what does not divide to the first slots), devices dealt
// out in order.
func TestLayoutDevices(t *testing.T) {
	machine := Resources{Cpus: 8, Memory: 8000, Disk: 80000}
	tests := []struct {
		name  string
		types []Type
		want  []Devices
		err   string
	}{
		{"equal", Equal(2, false, ""), []Devices{
			{"GPUs": {N: 2, IDs: []string{"GPU-a", "GPU-b"}}, "Licenses": {N: 2}},
			{"GPUs": {N: 2, IDs: []string{"GPU-c", "GPU-d"}}, "Licenses": {N: 1}},
		}, ""},
		{"one partitionable slot has all", Equal(1, true, ""), []Devices{machineGPUs}, ""},
		{"shares", []Type{
			{Name: "gpu", Count: 1, Custom: map[string]Share{"GPUs": func(int64) int64 { return 3 }}},
			{Name: "cpu", Count: 2, Custom: map[string]Share{"GPUs": func(int64) int64 { return 0 }}},
		}, []Devices{
			{"GPUs": {N: 3, IDs: []string{"GPU-a", "GPU-b", "GPU-c"}}, "Licenses": {N: 1}},
			{"GPUs": {N: 0, IDs: []string{}}, "Licenses": {N: 1}},
			{"GPUs": {N: 0, IDs: []string{}}, "Licenses": {N: 1}},
		}, ""},
		{"too many", []Type{{Name: "gpu", Count: 2, Custom: map[string]Share{"GPUs": func(int64) int64 { return 3 }}}},
			nil, "slot types ask for 6 GPUs; the machine has 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Layout(machine, machineGPUs, tc.types, t0)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d slots, want %d", len(got), len(tc.want))
			}
			for i, s := range got {
				if !equalDevices(s.Devices, tc.want[i]) || !equalDevices(s.FreeDevices, tc.want[i]) {
					t.Errorf("slot%d: %v (free %v), want %v", i+1, s.Devices, s.FreeDevices, tc.want[i])
				}
			}
		})
	}
}

// A partitionable slot gives each dynamic slot exactly the devices its
// job asks for, the first free ones its Require<name> accepts, and takes
// them back when the dynamic slot goes.
func TestCarveDevices(t *testing.T) {
	laid, err := Layout(Resources{Cpus: 8, Memory: 8000, Disk: 80000}, machineGPUs, Equal(1, true, ""), t0)
	if err != nil {
		t.Fatal(err)
	}
	p := laid[0]
	req := Resources{Cpus: 1, Memory: 128, Disk: 1024}
	d1, err := p.CarveDevices(req, fit.Counts{"GPUs": 2}, nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	notB := func(_, id string) bool { return id != "GPU-c" }
	d2, err := p.CarveDevices(req, fit.Counts{"GPUs": 1, "Licenses": 2}, notB, t0)
	if err != nil {
		t.Fatal(err)
	}
	if ids := d1.Devices["GPUs"].IDs; !slices.Equal(ids, []string{"GPU-a", "GPU-b"}) {
		t.Errorf("first job's GPUs %v, want GPU-a GPU-b", ids)
	}
	if ids := d2.Devices["GPUs"].IDs; !slices.Equal(ids, []string{"GPU-d"}) {
		t.Errorf("second job's GPUs %v, want GPU-d (GPU-c not eligible)", ids)
	}
	if d2.Devices["Licenses"].N != 2 || d1.Devices["Licenses"].N != 0 {
		t.Errorf("licenses %d and %d, want 0 and 2", d1.Devices["Licenses"].N, d2.Devices["Licenses"].N)
	}
	if free := p.FreeDevices["GPUs"]; free.N != 1 || !slices.Equal(free.IDs, []string{"GPU-c"}) {
		t.Errorf("left %v, want GPU-c", free)
	}
	for _, tc := range []struct {
		ask  fit.Counts
		ok   Eligible
		want string
	}{
		{fit.Counts{"GPUs": 2}, nil, "2 GPUs asked, 1 left"},
		{fit.Counts{"GPUs": 1}, notB, "1 GPUs asked, 0 of those left meet the job's RequireGPUs"},
		{fit.Counts{"FPGAs": 1}, nil, "1 FPGAs asked, 0 left"},
	} {
		before := p.FreeDevices.Clone()
		if _, err := p.CarveDevices(req, tc.ask, tc.ok, t0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("asking %v: %v, want %q", tc.ask, err, tc.want)
		}
		if !equalDevices(p.FreeDevices, before) {
			t.Errorf("a refused carve changed what is free: %v, was %v", p.FreeDevices, before)
		}
	}
	d1.Release()
	if free := p.FreeDevices["GPUs"]; free.N != 3 || !slices.Equal(free.IDs, []string{"GPU-a", "GPU-b", "GPU-c"}) {
		t.Errorf("after release %v, want GPU-a GPU-b GPU-c in the machine's order", free)
	}
	d2.Release()
	if !equalDevices(p.FreeDevices, machineGPUs) {
		t.Errorf("after both releases %v, want all of %v", p.FreeDevices, machineGPUs)
	}
}

func equalDevices(a, b Devices) bool {
	if len(a) != len(b) {
		return false
	}
	for n, u := range a {
		v, ok := b[n]
		if !ok || u.N != v.N || (u.IDs == nil) != (v.IDs == nil) || !slices.Equal(u.IDs, v.IDs) {
			return false
		}
	}
	return true
}
