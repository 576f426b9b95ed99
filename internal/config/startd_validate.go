package config

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/tomlstrict"
)

func init() { extraValidators = append(extraValidators, validateStartd) }

// startdOwned are slot ad attributes the startd sets itself; the
// [startd.attributes] table may not replace them.
var startdOwned = []string{
	"MyType", "TargetType", "Name", "Machine", "MyAddress", "KiteMember",
	"DaemonStartTime", "UpdateSequenceNumber", "State", "Activity",
	"EnteredCurrentState", "EnteredCurrentActivity", "ClaimId", "SlotID",
	"SlotType", "PartitionableSlot", "DynamicSlot", "Requirements",
	"WithinResourceLimits", "Cpus", "Memory", "Disk", "TotalCpus",
	"TotalMemory", "TotalDisk", "TotalSlotCpus", "TotalSlotMemory",
	"TotalSlotDisk", "RemoteOwner", "RemoteUser", "JobId",
	"Start", "Rank", "IsOwner", "Suspend", "Continue", "Preempt", "Kill",
	"MaxJobRetirementTime",
	// Node monitoring (daemons/startd/monitor.go).
	"KiteBenchmark", "KiteBenchmarkIndex", "KiteReliability", "KiteAvgFailedTime",
	"KiteAvgSucceededTime", "KiteAvgUptime", "KiteRuntimeDelay", "KiteLostRuntime",
	"KiteJobsCompleted", "KiteJobsAborted",
	// What the strategies read of a slot's jobs (daemons/startd/workleft.go).
	"KiteWorkLeft", "KiteQueueLength",
}

// containerRuntimes are the values of startd.container_runtime.
var containerRuntimes = []string{"auto", "podman", "docker", "apptainer", "none"}

// validateStartd checks the [startd] section.
func validateStartd(c *Config) []error {
	s := &c.Startd
	var errs []error
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			errs = append(errs, c.errorAt(key, format, args...))
		}
	}
	check(s.ExecuteDir != "", "startd.execute_dir", "the startd needs an execute directory")
	check(s.StateDir != "" || c.Pool.StateDir != "", "startd.state_dir", "the startd needs a state directory (or pool.state_dir)")
	check(s.Cpus >= 0, "startd.cpus", "must not be negative (0 detects)")
	check(s.Memory >= 0, "startd.memory", "must not be negative (0 detects)")
	check(s.Disk >= 0, "startd.disk", "must not be negative (0 detects)")
	check(s.Slots >= 1, "startd.slots", "must be at least 1")
	check(len(s.SlotTypes) == 0 || c.Origin("startd.slots").Source == "default", "startd.slots",
		"set either slots or [startd.slot_types], not both")
	check(s.SlotUser != "", "startd.slot_user", "a user name is required (jobs run as it when the startd is root)")
	for _, d := range []struct {
		key  string
		v    Duration
		zero bool
	}{
		{"startd.update_interval", s.UpdateInterval, false},
		{"startd.update_delay", s.UpdateDelay, true},
		{"startd.policy_interval", s.PolicyInterval, false},
		{"startd.claim_lease", s.ClaimLease, false},
		{"startd.kill_grace", s.KillGrace, true},
		{"startd.sample_interval", s.SampleInterval, false},
	} {
		check(d.v.Duration > 0 || d.zero && d.v.Duration == 0, d.key, "must be a positive duration")
	}
	check(s.Cgroup == "auto" || s.Cgroup == "off", "startd.cgroup", "%q is not auto or off", s.Cgroup)
	check(slices.Contains(containerRuntimes, s.ContainerRuntime), "startd.container_runtime",
		"%q is not one of %s", s.ContainerRuntime, strings.Join(containerRuntimes, ", "))
	check(s.ContainerRuntimePath == "" || s.ContainerRuntime != "auto" && s.ContainerRuntime != "none",
		"startd.container_runtime_path", "names a program for container_runtime = %q: name the runtime (podman, docker or apptainer)", s.ContainerRuntime)
	errs = append(errs, c.validateSlotTypes()...)
	for _, p := range s.PolicyExprs() {
		if _, err := classad.ParseExpr(p.Src); err != nil {
			errs = append(errs, c.exprError(p.Key, err))
		}
	}
	return append(errs, c.validateAttributes()...)
}

// validateSlotTypes checks counts and that fractions do not add up to
// more than the machine.
func (c *Config) validateSlotTypes() []error {
	var errs []error
	var sum [3]float64
	for _, name := range sortedKeys(c.Startd.SlotTypes) {
		t := c.Startd.SlotTypes[name]
		key := "startd.slot_types." + name
		if t.Count < 1 {
			errs = append(errs, c.errorAt(key+".count", "slot type %s needs a count of at least 1", name))
		}
		for i, sh := range []Share{t.Cpus, t.Memory, t.Disk} {
			sum[i] += sh.Fraction * float64(t.Count)
		}
	}
	for i, res := range []string{"cpus", "memory", "disk"} {
		if sum[i] > 1.0001 {
			errs = append(errs, c.errorAt("startd.slot_types", "the slot types' %s shares add up to %.0f%% of the machine", res, sum[i]*100))
		}
	}
	return errs
}

// validateAttributes checks [startd.attributes]: names, and values that
// must make expressions.
func (c *Config) validateAttributes() []error {
	var errs []error
	for _, name := range c.Startd.AttributeNames() {
		key := "startd.attributes." + name
		if !ast.IsPlainName(name) {
			errs = append(errs, c.errorAt(key, "%q is not a ClassAd attribute name", name))
			continue
		}
		if owned(name) {
			errs = append(errs, c.errorAt(key, "%s is set by the startd itself (the policy has its own keys: start, rank, ...)", name))
			continue
		}
		if _, err := AttributeExpr(c.Startd.Attributes[name], ""); err != nil {
			errs = append(errs, c.exprError(key, err))
		}
	}
	return errs
}

func owned(name string) bool {
	for _, o := range startdOwned {
		if strings.EqualFold(o, name) {
			return true
		}
	}
	return false
}

// exprError places an expression's syntax error at its line and column in
// the configuration file: the value's place plus the offset of the
// mistake inside it.
func (c *Config) exprError(key string, err error) error {
	var pe *classad.ParseError
	if !errors.As(err, &pe) {
		return c.errorAt(key, "%v", err)
	}
	msg := fmt.Sprintf("bad expression: %s", pe.Msg)
	o := c.Origin(key)
	if o.Source != "file" {
		return c.errorAt(key, "%s (at offset %d)", msg, pe.Offset)
	}
	pos := o.Pos
	if c.positions != nil {
		if p, ok := c.positions.InString(tomlstrict.Path(key), pe.Offset); ok {
			pos = p
		}
	}
	return &Error{Pos: pos, Key: key, Msg: msg}
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
