package startd

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kite-sched/kite/daemons/startd/container"
	"github.com/kite-sched/kite/daemons/startd/devices"
	"github.com/kite-sched/kite/daemons/startd/resources"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/sita"
)

// Config is the startd's runtime configuration.
type Config struct {
	Listen     string // host:port to serve
	Name       string // the machine's name in slot names; "" is the host's
	ExecuteDir string // where job sandboxes go
	// StateDir keeps the node monitoring record across restarts; ""
	// keeps it in memory only.
	StateDir string
	// Cpus, Memory (MiB) and Disk (KiB) replace what is detected when
	// not 0.
	Cpus, Memory, Disk int64
	Layout             []slots.Type // how the machine is divided; a type's User overrides SlotUser
	SlotUser           string       // jobs' account when the startd is root; "" runs them as the startd
	// RunAsOwner lets a root startd run a job of its UidDomain as the
	// job's owner (OsUser) rather than as the slot user.
	RunAsOwner bool

	UpdateInterval, UpdateDelay time.Duration
	PolicyInterval              time.Duration
	ClaimLease                  time.Duration // default and longest lease
	KillGrace                   time.Duration
	SampleInterval              time.Duration
	HoldIfMemoryExceeded        bool
	Cgroups                     bool   // put jobs in cgroup v2 groups where possible
	CgroupParent                string // "" is the startd's own group
	ConsoleDevices              []string
	// URLTransfers lets jobs name inputs by URL; Plugins are the site's
	// file transfer plugins besides the built-in one.
	URLTransfers bool
	Plugins      []string
	// Java is the JVM for java universe jobs ("" none); JavaArgs go
	// before the job's arguments.
	Java     string
	JavaArgs []string
	// Containers says which container runtime to look for
	// (startd.container_runtime).
	Containers container.Config

	// Policy holds the policy expressions by ad attribute (Start, Rank,
	// IsOwner, Suspend, Continue, Preempt, Kill, MaxJobRetirementTime).
	Policy []config.NamedExpr
	// Resources are the custom machine resources to find, GPUs among
	// them (startd.gpus, [startd.resources]).
	Resources []devices.Spec
	// DeviceDir holds the GPUs' device files, nvidia<N>; "" is /dev
	// (tests).
	DeviceDir string
	// Attributes are the host's own attributes ([startd.attributes]).
	Attributes map[string]any
	// Sita is the SITA-E interval the slots serve.
	Sita sita.HostConfig

	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sensors reads the load and the idle times; nil reads the machine's.
	Sensors Sensors
	// Machine replaces detection when set (tests).
	Machine *resources.Machine
	// BenchmarkMs replaces the benchmark time node monitoring derives
	// from the measured speed when > 0 (tests).
	BenchmarkMs float64
	// Simulate runs jobs without processes, for scale tests: each lasts
	// its declared run time, the job attribute KiteSimRunTime (seconds),
	// and exits with KiteSimExitCode (starter/simulate.go).
	Simulate bool
}

// Sensors read what changes on the machine while the startd runs.
type Sensors interface {
	LoadAvg() float64
	// Idle returns the keyboard and console idle times at now, in seconds.
	Idle(now time.Time) (keyboard, console int64)
}

// ConfigFrom takes the startd's section of a host configuration.
func ConfigFrom(c *config.Config) Config {
	s := c.Startd
	return Config{
		Listen: s.Listen, Name: s.Name, ExecuteDir: c.Path(s.ExecuteDir), StateDir: c.StartdStateDir(),
		Cpus: int64(s.Cpus), Memory: s.Memory, Disk: s.Disk,
		Layout: layoutFrom(&s), SlotUser: s.SlotUser, RunAsOwner: s.RunAsOwner,
		UpdateInterval: s.UpdateInterval.Duration, UpdateDelay: s.UpdateDelay.Duration,
		PolicyInterval: s.PolicyInterval.Duration, ClaimLease: s.ClaimLease.Duration,
		KillGrace: s.KillGrace.Duration, SampleInterval: s.SampleInterval.Duration,
		HoldIfMemoryExceeded: s.HoldIfMemoryExceeded, Cgroups: s.Cgroup == "auto", CgroupParent: s.CgroupParent,
		ConsoleDevices: s.ConsoleDevices, Policy: s.PolicyExprs(), Attributes: s.Attributes,
		URLTransfers: s.URLTransfers, Plugins: c.Paths(s.FileTransferPlugins),
		Java: s.Java, JavaArgs: s.JavaExtraArguments,
		Containers: container.Config{Want: s.ContainerRuntime, Path: s.ContainerRuntimePath, Extra: s.ContainerExtraArguments},
		Sita:       sita.HostConfig(s.Sita), Resources: resourceSpecs(c),
		Simulate: s.Simulate,
	}
}

// resourceSpecs are the declared custom resources.
func resourceSpecs(c *config.Config) []devices.Spec {
	var out []devices.Spec
	for _, d := range c.ResourceDecls() {
		out = append(out, devices.Spec(d))
	}
	return out
}

// layoutFrom turns slots/partitionable or the slot types into a layout.
func layoutFrom(s *config.Startd) []slots.Type {
	if len(s.SlotTypes) == 0 {
		return slots.Equal(s.Slots, s.Partitionable, "")
	}
	var out []slots.Type
	for _, name := range sortedNames(s.SlotTypes) {
		t := s.SlotTypes[name]
		out = append(out, slots.Type{Name: name, Count: t.Count, Cpus: share(t.Cpus), Memory: share(t.Memory),
			Disk: share(t.Disk), Custom: customShares(t.Resources, s), Partitionable: t.Partitionable, User: t.User})
	}
	return out
}

// customShares are a slot type's shares of the custom resources, by the
// resources' names as declared.
func customShares(shares map[string]config.Share, s *config.Startd) map[string]slots.Share {
	out := map[string]slots.Share{}
	for name, sh := range shares {
		canon := name
		if strings.EqualFold(name, config.GPUsName) {
			canon = config.GPUsName
		}
		for declared := range s.Resources {
			if strings.EqualFold(declared, name) {
				canon = declared
			}
		}
		out[canon] = share(sh)
	}
	return out
}

func share(s config.Share) slots.Share {
	if !s.IsSet() {
		return nil
	}
	return s.Of
}

// check reports what is wrong with a configuration, all at once.
func (c *Config) check() error {
	switch {
	case c.Listen == "" || c.ExecuteDir == "":
		return fmt.Errorf("startd: the listen address and the execute directory are required")
	case c.UpdateInterval <= 0 || c.PolicyInterval <= 0 || c.ClaimLease <= 0 || c.SampleInterval <= 0:
		return fmt.Errorf("startd: update, policy and sample intervals and the claim lease must be positive")
	case len(c.Layout) == 0:
		return fmt.Errorf("startd: no slots")
	}
	return nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
