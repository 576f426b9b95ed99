// Package devices finds a host's custom machine resources, HTCondor's
// MACHINE_RESOURCE_<name> and MACHINE_RESOURCE_INVENTORY_<name>: a
// fungible amount declared by count, devices declared by id, devices an
// inventory command reports (as condor_gpu_discovery does, one
// Detected<name>= line and a property ad per device), and NVIDIA GPUs
// found with nvidia-smi. It also holds the rules for what a job on a
// slot with such devices sees: its environment (_CONDOR_Assigned<name>,
// CUDA_VISIBLE_DEVICES, ...) and its device files.
//
// Discovery never fails a startd: a tool that is missing or fails is
// logged and its resource has no units, as HTCondor does.
package devices

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// GPUs is the name of the built-in resource, as the ads spell it.
const GPUs = "GPUs"

// Spec is how the configuration declares one resource: exactly one of
// Count, IDs, Inventory or NvidiaSMI.
type Spec struct {
	Name      string
	Count     int64    // a fungible amount
	IDs       []string // distinct devices
	Inventory []string // a command printing Detected<Name>=... and property ads
	NvidiaSMI string   // GPUs: the nvidia-smi to run
}

// Resource is what was found of one resource.
type Resource struct {
	Name  string
	Count int64
	// IDs are the devices in order; nil for a fungible resource.
	IDs []string
	// Props are each device's properties by id (for GPUs DeviceName,
	// Capability, GlobalMemoryMb, ...); a device may have none.
	Props map[string]*classad.Ad
	// Minor is each NVIDIA GPU's device number: /dev/nvidia<Minor>.
	Minor map[string]int
	// Extra are attributes the inventory printed besides the devices,
	// published in every slot ad.
	Extra []Attr
}

// Attr is a named expression.
type Attr struct {
	Name string
	Expr ast.Expr
}

// Fungible reports whether the resource is an amount without devices.
func (r *Resource) Fungible() bool { return r.IDs == nil }

// NestedName is the slot ad attribute of a device's property ad,
// <name>_<id> with "-" and "/" made "_": GPUs_GPU_c4a646d7.
func NestedName(resource, id string) string {
	return resource + "_" + strings.NewReplacer("-", "_", "/", "_", ".", "_", ":", "_").Replace(id)
}

// fromIDs makes a resource of devices declared by id, checking that each
// is a distinct, non-empty name.
func fromIDs(name string, ids []string) (Resource, error) {
	seen := map[string]bool{}
	for _, id := range ids {
		switch {
		case strings.TrimSpace(id) == "" || strings.ContainsAny(id, ", \t"):
			return Resource{}, fmt.Errorf("%s: device id %q is empty or holds a comma or a space", name, id)
		case seen[id]:
			return Resource{}, fmt.Errorf("%s: device id %q is listed twice", name, id)
		}
		seen[id] = true
	}
	return Resource{Name: name, Count: int64(len(ids)), IDs: slices.Clone(ids)}, nil
}
