package config

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// Startd configures the execute node: what the machine offers, how it is
// cut into slots, the owner's policy, and how jobs are run.
type Startd struct {
	// Listen is the startd's host:port; port 0 picks a free one.
	Listen string `toml:"listen"`
	// Name names the machine in its ads (slot1@Name); empty means the
	// host name.
	Name string `toml:"name"`
	// ExecuteDir holds the jobs' sandboxes, one directory per job;
	// relative to the configuration file's directory. Disk is measured
	// on its file system. When the startd is root, the slot users must be
	// able to reach it. Typically "/var/lib/kite/execute".
	ExecuteDir string `toml:"execute_dir"`
	// StateDir holds what the startd keeps across restarts: the node
	// monitoring record (reliability.json: its benchmark, how its jobs
	// ended, how long it stayed up), written before the slot ads show
	// it. Relative to the configuration file's directory; empty means
	// "startd" under the pool's state_dir. Two startds of one host need
	// one each, as they need an execute directory each.
	StateDir string `toml:"state_dir"`

	// Cpus, Memory (MiB) and Disk (KiB) override what is detected; 0
	// detects them (HTCondor's NUM_CPUS, MEMORY, DISK).
	Cpus   int   `toml:"cpus"`
	Memory int64 `toml:"memory"`
	Disk   int64 `toml:"disk"`

	// Slots is how many slots share the machine equally, unless
	// SlotTypes are given. Typically 1.
	Slots int `toml:"slots"`
	// Partitionable makes those slots partitionable: each is carved into
	// dynamic slots sized by the requests of the jobs that claim it
	// (HTCondor's default since 23.0: one partitionable slot).
	Partitionable bool `toml:"partitionable"`
	// SlotTypes gives explicit shares, by type name
	// ([startd.slot_types.NAME]); slots are numbered by type name, then
	// in order within a type.
	SlotTypes map[string]SlotType `toml:"slot_types"`

	// SlotUser is the account jobs run as when the startd runs as root
	// (HTCondor's SLOT<N>_USER); a slot type may name its own. Typically
	// "nobody". A startd that is not root runs jobs as itself.
	SlotUser string `toml:"slot_user"`
	// RunAsOwner lets a startd running as root run a job as its owner
	// (the job's OsUser, which its schedd sets) when the job's UidDomain
	// is the slot's and the account exists here and is not root; other
	// jobs run as the slot user (HTCondor's STARTER_ALLOW_RUNAS_OWNER).
	// Such a job with should_transfer_files = IF_NEEDED in the slot's
	// FileSystemDomain runs in its own directory, as on its submit host.
	// A slot's UidDomain is the host name unless [startd.attributes] sets
	// one. Typically true.
	RunAsOwner bool `toml:"run_as_owner"`

	// UpdateInterval is how often every slot ad is sent to the collector
	// even when nothing changed. HTCondor: 5m.
	UpdateInterval Duration `toml:"update_interval"`
	// UpdateDelay gathers the changes of this long into one update, so
	// a burst of state changes makes one message. Typically 250ms.
	UpdateDelay Duration `toml:"update_delay"`
	// PolicyInterval is how often SUSPEND, CONTINUE, PREEMPT, KILL and
	// the claims' leases are checked, and the load and idle times read
	// (HTCondor's POLLING_INTERVAL: 5s).
	PolicyInterval Duration `toml:"policy_interval"`
	// ClaimLease is a claim's lease when the schedd asks for none, and
	// the longest it may ask for. HTCondor: 30m (6 missed alives of 5m).
	ClaimLease Duration `toml:"claim_lease"`
	// KillGrace is how long a job has between the soft kill signal
	// (SIGTERM) and SIGKILL when it is vacated (HTCondor's
	// MachineMaxVacateTime, 10m by default). Typically 10s.
	KillGrace Duration `toml:"kill_grace"`
	// SampleInterval is how often a running job's memory and CPU use are
	// sampled. Typically 2s.
	SampleInterval Duration `toml:"sample_interval"`
	// HoldIfMemoryExceeded holds a job whose memory use goes over its
	// RequestMemory (hold code 34), as HTCondor's
	// POLICY:HOLD_IF_MEMORY_EXCEEDED does. With a cgroup memory
	// controller the kernel enforces the limit; without one the sampled
	// use does.
	HoldIfMemoryExceeded bool `toml:"hold_if_memory_exceeded"`
	// Cgroup is "auto" (put each job in its own cgroup v2 group, with
	// memory and cpu limits where the controllers are available; nothing
	// happens where cgroup v2 is not writable) or "off".
	Cgroup string `toml:"cgroup"`
	// CgroupParent is the cgroup v2 group (a path under the cgroup2
	// mount) under which job groups are made; empty means the startd's
	// own group.
	CgroupParent string `toml:"cgroup_parent"`
	// ConsoleDevices are the devices whose access times tell console
	// activity (ConsoleIdle), besides tty and pseudo-tty devices and the
	// keyboard and mouse interrupts (HTCondor's CONSOLE_DEVICES).
	ConsoleDevices []string `toml:"console_devices"`

	// URLTransfers lets jobs name input files by URL (HTCondor's
	// ENABLE_URL_TRANSFERS): http, https and file URLs through the
	// built-in plugin, other schemes through FileTransferPlugins.
	URLTransfers bool `toml:"url_transfers"`
	// FileTransferPlugins are the site's file transfer plugins (HTCondor's
	// FILETRANSFER_PLUGINS), programs speaking HTCondor's plugin protocol:
	// each is asked for its schemes (-classad) at start-up, and for a
	// scheme two serve, the later one wins (over the built-in plugin too).
	FileTransferPlugins []string `toml:"filetransfer_plugins"`

	// Java is the JVM that runs java universe jobs (HTCondor's JAVA): a
	// path, a name looked up in PATH, or "" for none. The startd runs it
	// once at start-up to learn JavaVendor, JavaVersion and JavaMFlops.
	Java string `toml:"java"`
	// JavaExtraArguments go to the JVM before the job's own (HTCondor's
	// JAVA_EXTRA_ARGUMENTS).
	JavaExtraArguments []string `toml:"java_extra_arguments"`

	// ContainerRuntime runs container jobs (docs/containers.md): "auto"
	// takes the first of podman, docker, apptainer and singularity that
	// runs a container at start-up; "podman", "docker" or "apptainer"
	// only that one (apptainer also answers to singularity); "none" runs
	// no container jobs. A runtime that fails its check is logged and not
	// advertised.
	ContainerRuntime string `toml:"container_runtime"`
	// ContainerRuntimePath is the runtime's program when it is not its
	// name looked up in PATH; it needs a runtime named, not auto.
	ContainerRuntimePath string `toml:"container_runtime_path"`
	// ContainerExtraArguments go to the runtime's command that makes a
	// job's container (podman create, docker create, apptainer exec),
	// before the image.
	ContainerExtraArguments []string `toml:"container_extra_arguments"`

	// The policy, as ClassAd expressions evaluated with the slot ad as
	// MY and the job as TARGET (HTCondor's START, RANK, IS_OWNER,
	// SUSPEND, CONTINUE, PREEMPT, KILL, MAXJOBRETIREMENTTIME).
	Start                string `toml:"start"`
	Rank                 string `toml:"rank"`
	IsOwner              string `toml:"is_owner"`
	Suspend              string `toml:"suspend"`
	Continue             string `toml:"continue"`
	Preempt              string `toml:"preempt"`
	Kill                 string `toml:"kill"`
	MaxJobRetirementTime string `toml:"max_job_retirement_time"`

	// GPUs says which NVIDIA GPU devices the machine has (docs/gpus.md):
	// "auto" finds them with GPUDiscovery (none found is not an error),
	// "off" has none, a number N declares N devices named by index
	// (CUDA0, CUDA1, ...), and a list declares them by id
	// ("GPU-c4a646d7"). The slots divide them and jobs ask with
	// request_gpus, as HTCondor's MACHINE_RESOURCE_GPUs.
	GPUs any `toml:"gpus"`
	// GPUDiscovery is the nvidia-smi that gpus = "auto" runs: a path or a
	// name looked up in PATH.
	GPUDiscovery string `toml:"gpu_discovery"`
	// Resources are the machine's custom resources ([startd.resources],
	// HTCondor's MACHINE_RESOURCE_<name>): a number is a fungible amount
	// (licenses = 4), a list names distinct devices (FPGAs = ["fpga0",
	// "fpga1"]), and a string is an inventory command that prints
	// Detected<name>=... and the devices' properties, as
	// MACHINE_RESOURCE_INVENTORY_<name> does. Jobs ask with
	// request_<name>; the slot ads carry <name>, Total<name> and
	// Assigned<name>.
	Resources map[string]any `toml:"resources"`

	// Attributes are added to every slot ad ([startd.attributes]): a
	// TOML string is a ClassAd expression (write a string literal with
	// its quotes: Lab = '"physics"'); numbers, booleans and arrays of
	// them are literals.
	Attributes map[string]any `toml:"attributes"`

	// Sita is the SITA-E size interval this host serves.
	Sita Sita `toml:"sita"`

	// Simulate runs jobs without a process or a sandbox, for scale tests
	// (docs/scale.md): a job lasts the run time its ad declares
	// (KiteSimRunTime, seconds) and exits with KiteSimExitCode. Never on
	// a host that runs real jobs: their programs do not run. Typically
	// false.
	Simulate bool `toml:"simulate"`
}

// StartdStateDir returns the startd's state directory, resolved.
func (c *Config) StartdStateDir() string {
	if c.Startd.StateDir != "" {
		return c.Path(c.Startd.StateDir)
	}
	return filepath.Join(c.Path(c.Pool.StateDir), "startd")
}

// SlotType is one kind of slot and its share of the machine.
type SlotType struct {
	// Count is how many slots of this type there are. Typically 1.
	Count int `toml:"count"`
	// Cpus, Memory (MiB) and Disk (KiB) are each slot's share: a number,
	// or a fraction of the machine as "25%" or "1/4". Unset shares
	// divide what the other types leave equally.
	Cpus   Share `toml:"cpus"`
	Memory Share `toml:"memory"`
	Disk   Share `toml:"disk"`
	// Resources are each slot's shares of the custom resources and GPUs,
	// by name ({ GPUs = 1, FPGAs = "50%" }); a resource left out is
	// divided equally among the slots that leave it out.
	Resources map[string]Share `toml:"resources"`
	// Partitionable makes each slot of the type partitionable.
	Partitionable bool `toml:"partitionable"`
	// User overrides slot_user for slots of this type.
	User string `toml:"user"`
}

// Share is an amount of a resource: absolute (Amount) or a fraction of
// the machine (Fraction, in (0, 1]). The zero Share is unset.
type Share struct {
	Amount   float64
	Fraction float64
	Text     string // as written
}

// MarshalText writes the share as it was written.
func (s Share) MarshalText() ([]byte, error) { return []byte(s.Text), nil }

// IsSet reports whether the share was given.
func (s Share) IsSet() bool { return s.Text != "" }

// Of returns the share of a machine total, rounded down.
func (s Share) Of(total int64) int64 {
	if s.Fraction > 0 {
		return int64(math.Floor(s.Fraction * float64(total)))
	}
	return int64(s.Amount)
}

// UnmarshalTOML reads a share: a number, or "25%", "1/4", "512".
func (s *Share) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		*s = Share{Amount: float64(x), Text: strconv.FormatInt(x, 10)}
	case float64:
		*s = Share{Amount: x, Text: strconv.FormatFloat(x, 'g', -1, 64)}
	case string:
		sh, err := ParseShare(x)
		if err != nil {
			return err
		}
		*s = sh
	default:
		return fmt.Errorf("a share is a number or a fraction such as \"25%%\" or \"1/4\", not %T", v)
	}
	if s.Amount < 0 {
		return fmt.Errorf("share %s is negative", s.Text)
	}
	return nil
}

// ParseShare reads "25%", "1/4" or a plain number.
func ParseShare(text string) (Share, error) {
	t := strings.TrimSpace(text)
	bad := fmt.Errorf("share %q is not a number, a percentage (25%%) or a fraction (1/4)", text)
	switch {
	case strings.HasSuffix(t, "%"):
		p, err := strconv.ParseFloat(strings.TrimSpace(t[:len(t)-1]), 64)
		if err != nil || p <= 0 || p > 100 {
			return Share{}, bad
		}
		return Share{Fraction: p / 100, Text: t}, nil
	case strings.Contains(t, "/"):
		n, d, _ := strings.Cut(t, "/")
		num, err1 := strconv.ParseFloat(strings.TrimSpace(n), 64)
		den, err2 := strconv.ParseFloat(strings.TrimSpace(d), 64)
		if err1 != nil || err2 != nil || num <= 0 || den <= 0 || num > den {
			return Share{}, bad
		}
		return Share{Fraction: num / den, Text: t}, nil
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || x < 0 {
		return Share{}, bad
	}
	return Share{Amount: x, Text: t}, nil
}

// NamedExpr is a policy expression with the ad attribute it becomes and
// the configuration key it comes from.
type NamedExpr struct {
	Attr string // attribute in the slot ad, e.g. "Start"
	Key  string // configuration key, e.g. "startd.start"
	Src  string // the expression's text
}

// PolicyExprs returns the policy expressions in a fixed order.
func (s *Startd) PolicyExprs() []NamedExpr {
	return []NamedExpr{
		{"Start", "startd.start", s.Start},
		{"Rank", "startd.rank", s.Rank},
		{"IsOwner", "startd.is_owner", s.IsOwner},
		{"Suspend", "startd.suspend", s.Suspend},
		{"Continue", "startd.continue", s.Continue},
		{"Preempt", "startd.preempt", s.Preempt},
		{"Kill", "startd.kill", s.Kill},
		{"MaxJobRetirementTime", "startd.max_job_retirement_time", s.MaxJobRetirementTime},
	}
}

// AttributeNames returns the names of [startd.attributes], sorted.
func (s *Startd) AttributeNames() []string { return sortedKeys(s.Attributes) }

// AttributeExpr turns a [startd.attributes] value into an expression: a
// string is parsed as ClassAd, numbers and booleans are literals, arrays
// are lists. filename names the source in parse errors.
func AttributeExpr(v any, filename string) (ast.Expr, error) {
	switch x := v.(type) {
	case string:
		return classad.ParseExpr(x, classad.Filename(filename))
	case int64:
		return ast.Int(x), nil
	case float64:
		return ast.Real(x), nil
	case bool:
		return ast.Bool(x), nil
	case []any:
		list := &ast.List{At: ast.NoPos}
		for _, item := range x {
			e, err := AttributeExpr(item, filename)
			if err != nil {
				return nil, err
			}
			list.Elems = append(list.Elems, e)
		}
		return list, nil
	}
	return nil, fmt.Errorf("a %T cannot be an attribute value (use a string holding a ClassAd expression, a number, a boolean or an array)", v)
}
