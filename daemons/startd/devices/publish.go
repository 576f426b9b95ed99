package devices

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// Share is a slot's holding of a resource: all it was given (Total) and
// what it has free (Free; for a partitionable slot what is left to carve,
// for the others the same as Total). IDs are nil for a fungible resource.
type Share struct {
	TotalN, FreeN     int64
	TotalIDs, FreeIDs []string
}

// Publish sets a slot ad's attributes for the resource, as the HTCondor
// 25 startd publishes them (HTCondor manual, admin-manual
// ep-policy-configuration.rst, "Configuring GPUs" and custom resources;
// classad-attributes/machine-classad-attributes.rst):
//
//	<name>             what the slot has free
//	TotalSlot<name>    what the slot was given
//	Total<name>        what the machine has
//	Assigned<name>     the free devices' ids, "GPU-c4a646d7,GPU-6a96bd13"
//	Available<name>    { <name>_<id>, ... }: the free devices' property ads
//	<name>_<id>        one device's property ad: [ Id = "..."; DeviceName = ...; ]
//	<name>_<prop>      a property every free device shares (GPUs_DeviceName, ...)
//
// plus what the inventory printed besides its devices.
func (r *Resource) Publish(ad *classad.Ad, s Share) {
	ad.Set(r.Name, ast.Int(s.FreeN))
	ad.Set("TotalSlot"+r.Name, ast.Int(s.TotalN))
	ad.Set("Total"+r.Name, ast.Int(r.Count))
	for _, a := range r.Extra {
		ad.Set(a.Name, a.Expr)
	}
	if r.Fungible() {
		return
	}
	ad.Set("Assigned"+r.Name, ast.Str(strings.Join(s.FreeIDs, ",")))
	avail := &ast.List{At: ast.NoPos}
	for _, id := range s.FreeIDs {
		name := NestedName(r.Name, id)
		ad.Set(name, r.deviceAd(id).Record())
		avail.Elems = append(avail.Elems, &ast.AttrRef{At: ast.NoPos, Name: name})
	}
	ad.Set("Available"+r.Name, avail)
	for _, p := range r.common(s.FreeIDs) {
		ad.Set(r.Name+"_"+p.Name, p.Expr)
	}
}

// deviceAd is a device's properties with its Id.
func (r *Resource) deviceAd(id string) *classad.Ad {
	ad := classad.NewAd()
	ad.Set("Id", ast.Str(id))
	if p := r.Props[id]; p != nil {
		for k, e := range p.All() {
			ad.Set(k, e)
		}
	}
	return ad
}

// common returns the properties all of ids have with the same value,
// sorted by name; none for no ids.
func (r *Resource) common(ids []string) []Attr {
	if len(ids) == 0 || r.Props[ids[0]] == nil {
		return nil
	}
	var out []Attr
	for k, e := range r.Props[ids[0]].All() {
		text := ast.String(e)
		same := true
		for _, id := range ids[1:] {
			p := r.Props[id]
			if p == nil {
				same = false
				break
			}
			if o, ok := p.Lookup(k); !ok || ast.String(o) != text {
				same = false
				break
			}
		}
		if same {
			out = append(out, Attr{k, e})
		}
	}
	slices.SortFunc(out, func(a, b Attr) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Device returns a device's property ad (with its Id), for a job's
// Require<name> to be evaluated in.
func (r *Resource) Device(id string) *classad.Ad { return r.deviceAd(id) }

// Find returns the resource of the name in rs, or nil.
func Find(rs []Resource, name string) *Resource {
	for i := range rs {
		if strings.EqualFold(rs[i].Name, name) {
			return &rs[i]
		}
	}
	return nil
}

// Names returns the resources' names in order, for MachineResources.
func Names(rs []Resource) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}

// String describes the resource for the log.
func (r *Resource) String() string {
	if r.Fungible() {
		return fmt.Sprintf("%s: %d", r.Name, r.Count)
	}
	return fmt.Sprintf("%s: %d (%s)", r.Name, r.Count, strings.Join(r.IDs, ","))
}
