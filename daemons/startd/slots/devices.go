package slots

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kite-sched/kite/internal/fit"
)

// Devices are a slot's custom machine resources (HTCondor's
// MACHINE_RESOURCE_<name>), by the resource's name: how many units, and
// for a resource of distinct devices (GPUs, FPGAs by id) which ones. A
// resource declared by count alone is fungible: it has no ids.
type Devices map[string]Units

// Units are a slot's amount of one custom resource.
type Units struct {
	N   int64
	IDs []string // the devices, in the machine's order; nil when fungible
}

// Names returns the resources' names, sorted.
func (d Devices) Names() []string { return slices.Sorted(maps.Keys(d)) }

// Counts returns the amounts, for the fit rule.
func (d Devices) Counts() fit.Counts {
	out := make(fit.Counts, len(d))
	for n, u := range d {
		out[n] = u.N
	}
	return out
}

// Clone returns a copy that shares nothing with d.
func (d Devices) Clone() Devices {
	if d == nil {
		return nil
	}
	out := make(Devices, len(d))
	for n, u := range d {
		out[n] = Units{N: u.N, IDs: slices.Clone(u.IDs)}
	}
	return out
}

// Eligible says whether a device may go to the job being placed: the
// job's Require<name> (RequireGPUs) holds in the device's properties.
// nil takes any device.
type Eligible func(resource, id string) bool

// take removes req's amounts from d and returns them: for a resource of
// devices, the first eligible ones in order. It changes nothing and
// fails when d has too few (eligible) units of something.
func (d Devices) take(req fit.Counts, ok Eligible) (Devices, error) {
	out := Devices{}
	seen := map[string]bool{}
	for n := range d {
		seen[n] = true
	}
	for n := range req {
		seen[n] = true
	}
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		n := req[name]
		have := d[name]
		if n > have.N {
			return nil, fmt.Errorf("%d %s asked, %d left", n, name, have.N)
		}
		u := Units{N: n}
		if have.IDs != nil {
			u.IDs = []string{}
			for _, id := range have.IDs {
				if int64(len(u.IDs)) == n {
					break
				}
				if ok == nil || ok(name, id) {
					u.IDs = append(u.IDs, id)
				}
			}
			if int64(len(u.IDs)) < n {
				return nil, fmt.Errorf("%d %s asked, %d of those left meet the job's Require%s", n, name, len(u.IDs), name)
			}
		}
		out[name] = u
	}
	for name, u := range out {
		have := d[name]
		have.N -= u.N
		if have.IDs != nil {
			have.IDs = slices.DeleteFunc(slices.Clone(have.IDs), func(id string) bool { return slices.Contains(u.IDs, id) })
		}
		d[name] = have
	}
	return out, nil
}

// give adds back units taken from d; order gives each resource's ids in
// the machine's order.
func (d Devices) give(back Devices, order Devices) {
	for name, u := range back {
		have := d[name]
		have.N += u.N
		if u.IDs != nil {
			all := order[name].IDs
			merged := append(slices.Clone(have.IDs), u.IDs...)
			slices.SortFunc(merged, func(a, b string) int {
				return slices.Index(all, a) - slices.Index(all, b)
			})
			have.IDs = merged
		}
		d[name] = have
	}
}

// deal hands out a machine's custom resources to slots: amounts[i] of
// each to slot i, devices in order.
func deal(machine Devices, amounts []map[string]int64) []Devices {
	out := make([]Devices, len(amounts))
	next := map[string]int{}
	for i, a := range amounts {
		out[i] = Devices{}
		for _, name := range machine.Names() {
			u := Units{N: a[name]}
			if ids := machine[name].IDs; ids != nil {
				u.IDs = slices.Clone(ids[next[name] : next[name]+int(a[name])])
				next[name] += int(a[name])
			}
			out[i][name] = u
		}
	}
	return out
}
