package config

import (
	"fmt"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
)

func init() { extraValidators = append(extraValidators, validateResources) }

// GPUsName is the built-in custom resource's name, as the ads spell it.
const GPUsName = "GPUs"

// ResourceDecl is one custom machine resource as the configuration
// declares it: exactly one of Count, IDs, Inventory and NvidiaSMI says
// how (the GPUs come from startd.gpus, the others from
// [startd.resources]).
type ResourceDecl struct {
	Name      string
	Count     int64    // a fungible amount
	IDs       []string // distinct devices
	Inventory []string // a command that prints Detected<Name>=...
	NvidiaSMI string   // GPUs found with this nvidia-smi
}

// builtinResources are names a custom resource may not take.
var builtinResources = []string{"cpus", "memory", "disk", "swap"}

// ResourceDecls returns the declared custom resources of a validated
// configuration: the GPUs first (unless off or none), then
// [startd.resources] by name.
func (c *Config) ResourceDecls() []ResourceDecl {
	var out []ResourceDecl
	if d, ok := c.gpuDecl(); ok {
		out = append(out, d)
	}
	for _, name := range sortedKeys(c.Startd.Resources) {
		d, err := c.resourceDecl(name, c.Startd.Resources[name])
		if err == nil {
			out = append(out, d)
		}
	}
	return out
}

// gpuDecl reads startd.gpus; ok is false when the host has no GPUs.
func (c *Config) gpuDecl() (ResourceDecl, bool) {
	d := ResourceDecl{Name: GPUsName}
	switch v := c.Startd.GPUs.(type) {
	case nil:
		return d, false
	case string:
		if !strings.EqualFold(v, "auto") {
			return d, false
		}
		d.NvidiaSMI = c.program(c.Startd.GPUDiscovery)
	case int64:
		d.IDs = []string{}
		for i := range v {
			d.IDs = append(d.IDs, fmt.Sprintf("CUDA%d", i))
		}
		return d, v > 0
	case []any:
		d.IDs, _ = idList(v)
	}
	return d, true
}

// resourceDecl reads one [startd.resources] value.
func (c *Config) resourceDecl(name string, v any) (ResourceDecl, error) {
	d := ResourceDecl{Name: name}
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return d, fmt.Errorf("a count must not be negative")
		}
		d.Count = x
	case []any:
		ids, err := idList(x)
		if err != nil {
			return d, err
		}
		d.IDs = ids
	case string:
		argv := strings.Fields(x)
		if len(argv) == 0 {
			return d, fmt.Errorf("an inventory command must not be empty")
		}
		argv[0] = c.program(argv[0])
		d.Inventory = argv
	default:
		return d, fmt.Errorf("a %T is not a count, a list of device ids or an inventory command", v)
	}
	return d, nil
}

// program resolves a program named in the configuration: a path with a
// slash against the configuration's directory, a bare name as it is (for
// PATH).
func (c *Config) program(p string) string {
	if strings.Contains(p, "/") {
		return c.Path(p)
	}
	return p
}

// idList reads a list of distinct device ids.
func idList(v []any) ([]string, error) {
	seen := map[string]bool{}
	ids := []string{}
	for _, item := range v {
		id, ok := item.(string)
		switch {
		case !ok:
			return nil, fmt.Errorf("device ids are strings, not %T", item)
		case strings.TrimSpace(id) == "" || strings.ContainsAny(id, ", \t"):
			return nil, fmt.Errorf("device id %q is empty or holds a comma or a space", id)
		case seen[id]:
			return nil, fmt.Errorf("device id %q is listed twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids, nil
}

// validateResources checks startd.gpus, [startd.resources] and the slot
// types' shares of them.
func validateResources(c *Config) []error {
	s := &c.Startd
	var errs []error
	switch v := s.GPUs.(type) {
	case string:
		if !strings.EqualFold(v, "auto") && !strings.EqualFold(v, "off") {
			errs = append(errs, c.errorAt("startd.gpus", "%q is not auto, off, a count or a list of ids", v))
		} else if strings.EqualFold(v, "auto") && strings.TrimSpace(s.GPUDiscovery) == "" {
			errs = append(errs, c.errorAt("startd.gpu_discovery", "gpus = \"auto\" needs the nvidia-smi to run"))
		}
	case int64:
		if v < 0 {
			errs = append(errs, c.errorAt("startd.gpus", "a count must not be negative"))
		}
	case []any:
		if _, err := idList(v); err != nil {
			errs = append(errs, c.errorAt("startd.gpus", "%v", err))
		}
	case nil:
	default:
		errs = append(errs, c.errorAt("startd.gpus", "a %T is not auto, off, a count or a list of ids", v))
	}
	names := map[string]string{strings.ToLower(GPUsName): GPUsName}
	for _, name := range sortedKeys(s.Resources) {
		key := "startd.resources." + name
		lower := strings.ToLower(name)
		switch {
		case !ast.IsPlainName(name) || len(name) < 2 || strings.HasPrefix(name, "_"):
			errs = append(errs, c.errorAt(key, "%q is not a resource name (a ClassAd name of two or more characters, not beginning with _)", name))
			continue
		case lower == "gpus":
			errs = append(errs, c.errorAt(key, "GPUs are declared with startd.gpus"))
			continue
		case containsFold(builtinResources, lower):
			errs = append(errs, c.errorAt(key, "%s is a built-in resource, not a custom one", name))
			continue
		case names[lower] != "":
			errs = append(errs, c.errorAt(key, "%s is declared twice (names are not case-sensitive)", name))
			continue
		}
		names[lower] = name
		if _, err := c.resourceDecl(name, s.Resources[name]); err != nil {
			errs = append(errs, c.errorAt(key, "%v", err))
		}
	}
	errs = append(errs, c.validateResourceShares(names)...)
	return append(errs, c.validateResourceAttrs(names)...)
}

// validateResourceShares checks that the slot types name declared
// resources and that their fractions of each add up to at most all.
func (c *Config) validateResourceShares(names map[string]string) []error {
	var errs []error
	sum := map[string]float64{}
	for _, tn := range sortedKeys(c.Startd.SlotTypes) {
		t := c.Startd.SlotTypes[tn]
		for _, rn := range sortedKeys(t.Resources) {
			key := "startd.slot_types." + tn + ".resources." + rn
			canon := names[strings.ToLower(rn)]
			if canon == "" {
				errs = append(errs, c.errorAt(key, "%s is not a resource of this host (startd.gpus or [startd.resources])", rn))
				continue
			}
			sum[canon] += t.Resources[rn].Fraction * float64(max(t.Count, 1))
		}
	}
	for _, rn := range sortedKeys(sum) {
		if sum[rn] > 1.0001 {
			errs = append(errs, c.errorAt("startd.slot_types", "the slot types' %s shares add up to %.0f%% of the machine", rn, sum[rn]*100))
		}
	}
	return errs
}

// validateResourceAttrs keeps [startd.attributes] from replacing what the
// startd publishes for a resource.
func (c *Config) validateResourceAttrs(names map[string]string) []error {
	var errs []error
	for _, a := range c.Startd.AttributeNames() {
		for _, rn := range sortedKeys(names) {
			rn = names[rn]
			for _, prefix := range []string{"", "Total", "TotalSlot", "Assigned", "Available"} {
				if strings.EqualFold(a, prefix+rn) {
					errs = append(errs, c.errorAt("startd.attributes."+a, "%s is set by the startd itself for the resource %s", a, rn))
				}
			}
		}
		if strings.EqualFold(a, "MachineResources") {
			errs = append(errs, c.errorAt("startd.attributes."+a, "%s is set by the startd itself", a))
		}
	}
	return errs
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
