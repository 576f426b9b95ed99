package devices

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// maxInventoryLines bounds what an inventory command's output may hold.
const maxInventoryLines = 10000

// ParseInventory reads what an inventory command printed for resource
// name, in the form of condor_gpu_discovery's nested output (HTCondor
// manual, man-pages/condor_gpu_discovery.rst; admin-manual
// ep-policy-configuration.rst, MACHINE_RESOURCE_INVENTORY_<name>):
//
//	Detected<name>="id1, id2"     (or Detected<name>=N: a fungible amount)
//	Offline<name>="id2"           devices withheld
//	Common=[ Capability=8.0; ...] properties every device has
//	GPU_c4a6=[ id="GPU-c4a6"; ...] one device's properties, keyed by id
//	Other=expr                    published in the slot ads as it is
//
// Each value is a ClassAd expression. A missing Detected<name> line is an
// error.
func ParseInventory(name string, text []byte) (Resource, error) {
	r := Resource{Name: name, Props: map[string]*classad.Ad{}}
	var common *classad.Ad
	var offline []string
	props := map[string]*classad.Ad{}
	found := false
	sc := bufio.NewScanner(bytes.NewReader(text))
	for line := 0; sc.Scan(); line++ {
		if line >= maxInventoryLines {
			return Resource{}, fmt.Errorf("more than %d lines", maxInventoryLines)
		}
		key, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.HasPrefix(key, "#") {
			continue
		}
		val = strings.TrimSpace(val)
		switch {
		case strings.EqualFold(key, "Detected"+name):
			e, err := classad.ParseExpr(val)
			if err != nil {
				return Resource{}, fmt.Errorf("line %d: Detected%s: %w", line+1, name, err)
			}
			if err := r.detected(e); err != nil {
				return Resource{}, fmt.Errorf("line %d: %w", line+1, err)
			}
			found = true
		case strings.EqualFold(key, "Offline"+name):
			e, err := classad.ParseExpr(val)
			s, ok := classad.LiteralString(e)
			if err != nil || !ok {
				return Resource{}, fmt.Errorf("line %d: Offline%s is not a string of ids", line+1, name)
			}
			offline = splitIDs(s)
		case strings.HasPrefix(val, "["):
			ad, err := classad.Parse(val)
			if err != nil {
				return Resource{}, fmt.Errorf("line %d: %s: %w", line+1, key, err)
			}
			if strings.EqualFold(key, "Common") {
				common = ad
				continue
			}
			if id, ok := classad.EvalString(ad, "id"); ok {
				ad.Delete("id")
				props[id] = ad
				continue
			}
			r.Extra = append(r.Extra, Attr{key, ad.Record()})
		default:
			e, err := classad.ParseExpr(val)
			if err != nil {
				return Resource{}, fmt.Errorf("line %d: %s: %w", line+1, key, err)
			}
			r.Extra = append(r.Extra, Attr{key, e})
		}
	}
	if err := sc.Err(); err != nil {
		return Resource{}, err
	}
	if !found {
		return Resource{}, fmt.Errorf("no Detected%s line", name)
	}
	r.withhold(offline)
	r.Props = mergeProps(r.IDs, common, props)
	return r, nil
}

// detected reads Detected<name>: a count or a list of ids.
func (r *Resource) detected(e ast.Expr) error {
	if n, ok := classad.LiteralInt(e); ok && n >= 0 {
		if n == 0 {
			r.IDs = []string{}
		}
		r.Count = n
		return nil
	}
	s, ok := classad.LiteralString(e)
	if !ok {
		return fmt.Errorf("Detected%s is %s, not a count or a string of ids", r.Name, ast.String(e))
	}
	ids := splitIDs(s)
	checked, err := fromIDs(r.Name, ids)
	if err != nil {
		return err
	}
	r.IDs, r.Count = checked.IDs, checked.Count
	return nil
}

// withhold removes the offline devices.
func (r *Resource) withhold(offline []string) {
	if r.IDs == nil || len(offline) == 0 {
		return
	}
	r.IDs = slices.DeleteFunc(r.IDs, func(id string) bool { return slices.Contains(offline, id) })
	r.Count = int64(len(r.IDs))
}

// mergeProps gives each device the common properties and its own.
func mergeProps(ids []string, common *classad.Ad, own map[string]*classad.Ad) map[string]*classad.Ad {
	out := map[string]*classad.Ad{}
	for _, id := range ids {
		ad := classad.NewAd()
		if common != nil {
			ad = common.Clone()
		}
		if o := own[id]; o != nil {
			for k, e := range o.All() {
				ad.Set(k, e)
			}
		}
		if ad.Len() > 0 {
			out[id] = ad
		}
	}
	return out
}

// splitIDs splits "id1, id2" or "id1,id2".
func splitIDs(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		out = append(out, f)
	}
	return out
}
