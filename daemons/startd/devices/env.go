package devices

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
)

// unassigned is the value of a GPU variable for a job given no GPU on a
// machine that has some: a device number no machine has (HTCondor's
// ENVIRONMENT_VALUE_FOR_UnAssignedGPUs = 10000).
const unassigned = "10000"

// Environment returns the variables that name a job's devices, given the
// ids assigned to its slot by resource (HTCondor manual,
// users-manual/env-of-job.rst, and the defaults of `use feature : GPUs`):
//
//   - _CONDOR_Assigned<name>: the ids, comma-joined, for each resource
//     of devices;
//   - for GPUs, CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES: the
//     devices' full uuids (GPU-c4a646d7-...), as HTCondor 25 sets both
//     (AUTO_SET_NVIDIA_VISIBLE_DEVICES); a device declared by id without
//     a uuid is named by its id with "CUDA" removed (CUDA1 is 1);
//     GPU_DEVICE_ORDINAL: the ids with CUDA or OCL removed. A job given
//     no GPU gets 10000 (NVIDIA_VISIBLE_DEVICES=none), so that it sees
//     none of the machine's.
func Environment(rs []Resource, assigned map[string][]string) map[string]string {
	env := map[string]string{}
	for i := range rs {
		r := &rs[i]
		if r.Fungible() {
			continue
		}
		ids := assigned[r.Name]
		if len(ids) > 0 {
			env["_CONDOR_Assigned"+r.Name] = strings.Join(ids, ",")
		}
		if r.Name != GPUs {
			continue
		}
		if len(ids) == 0 {
			env["_CONDOR_AssignedGPUs"] = unassigned
			env["CUDA_VISIBLE_DEVICES"], env["GPU_DEVICE_ORDINAL"], env["NVIDIA_VISIBLE_DEVICES"] = unassigned, unassigned, "none"
			continue
		}
		visible, ordinal := make([]string, len(ids)), make([]string, len(ids))
		for j, id := range ids {
			visible[j] = r.cudaName(id)
			ordinal[j] = strings.NewReplacer("CUDA", "", "OCL", "").Replace(id)
		}
		env["CUDA_VISIBLE_DEVICES"] = strings.Join(visible, ",")
		env["NVIDIA_VISIBLE_DEVICES"] = env["CUDA_VISIBLE_DEVICES"]
		env["GPU_DEVICE_ORDINAL"] = strings.Join(ordinal, ",")
	}
	return env
}

// cudaName is how CUDA names a device: GPU-<full uuid> when it is known.
func (r *Resource) cudaName(id string) string {
	if p := r.Props[id]; p != nil {
		if e, ok := p.Lookup("DeviceUuid"); ok {
			if u, ok := classad.LiteralString(e); ok && u != "" {
				if strings.HasPrefix(id, "MIG-") {
					return u
				}
				return "GPU-" + u
			}
		}
	}
	return strings.ReplaceAll(id, "CUDA", "")
}

// DeviceFiles returns the device files of a job's GPUs, /dev/nvidia<N>
// by each GPU's minor number (from nvidia-smi -q), for what confines the
// job to them (a container's --device). Devices without a known number
// (declared by id) have none.
func DeviceFiles(rs []Resource, assigned map[string][]string) []string {
	r := Find(rs, GPUs)
	if r == nil {
		return nil
	}
	var out []string
	for _, id := range assigned[r.Name] {
		if n, ok := r.Minor[id]; ok {
			out = append(out, fmt.Sprintf("/dev/nvidia%d", n))
		}
	}
	return out
}

// DeniedFiles returns the device files of the machine's GPUs that a job
// was not given, those present in dev (/dev): what its devices group
// denies it.
func DeniedFiles(rs []Resource, assigned map[string][]string, dev string) []string {
	r := Find(rs, GPUs)
	if r == nil {
		return nil
	}
	var out []string
	for _, id := range r.IDs {
		n, ok := r.Minor[id]
		if !ok || slices.Contains(assigned[r.Name], id) {
			continue
		}
		path := filepath.Join(dev, fmt.Sprintf("nvidia%d", n))
		if _, err := os.Stat(path); err == nil {
			out = append(out, path)
		}
	}
	return out
}
