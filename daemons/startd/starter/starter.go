package starter

import (
	"context"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/cgroups"
	"github.com/kite-sched/kite/daemons/startd/container"
	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/wire"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// Transfer moves a job's files between its sandbox and its schedd.
type Transfer interface {
	// Fetch writes the input file the job ad names name to w and returns
	// the SHA-256 (hex) the schedd announced for it.
	Fetch(ctx context.Context, name string, w io.Writer) (sum string, err error)
	// Send sends the output file name with its SHA-256 (hex).
	Send(ctx context.Context, name string, r io.Reader, size int64, sum string) error
}

// User is the account a job runs as.
type User struct {
	Name     string
	UID, GID int
	Groups   []uint32 // its supplementary groups; none for a slot user
	// Owner says the account is the job's own (its OsUser): the job may
	// then run in its own directory on a shared file system.
	Owner bool
}

// account is the user as runas acts as it.
func (u *User) account() *runas.Account {
	return &runas.Account{Name: u.Name, UID: uint32(u.UID), GID: uint32(u.GID), Groups: u.Groups}
}

// Config is what a starter needs from its startd.
type Config struct {
	ExecuteDir string
	Slot       string // the slot's name, for the job's environment
	// User is the job's account; nil runs it as the startd. Files the
	// starter opens outside the sandbox for the job are opened as it.
	User *User
	// Cgroups makes the job's group; nil runs it without one.
	Cgroups *cgroups.Manager
	// Cpus and MemoryMiB are the slot's size: the job's limits.
	Cpus, MemoryMiB int64
	// AssignedResources are the slot's devices of each custom machine
	// resource, by the resource's name ("GPUs": ids as in AssignedGPUs,
	// "GPU-c4a646d7"); ResourceEnv the variables that name them for the
	// job (_CONDOR_AssignedGPUs, CUDA_VISIBLE_DEVICES, ...), set over the
	// job's own; DeviceFiles the GPUs' device files (/dev/nvidia3), for
	// what confines the job to them. All from daemons/startd/devices.
	AssignedResources map[string][]string
	ResourceEnv       map[string]string
	DeviceFiles       []string
	// DeviceGroup, when set, starts the job's process where it cannot
	// open the machine's other GPUs (devices.go).
	DeviceGroup DeviceGroup
	// HoldIfMemoryExceeded holds a job that uses more than MemoryMiB.
	HoldIfMemoryExceeded bool
	// KillGrace is the time between the soft kill signal and SIGKILL.
	KillGrace time.Duration
	// SampleInterval is how often memory and cpu use are sampled.
	SampleInterval time.Duration
	Transfer       Transfer
	// Report sends a job event to the schedd; the starter waits for it.
	Report func(ctx context.Context, u wire.JobUpdate) error
	// Keep, when set, is told the last event of a job that ran as soon as
	// it is known, before anything that may wait on the schedd (its start
	// still on its way): the startd keeps it, so that a startd killed
	// before the event reaches the schedd reports it after its restart.
	Keep func(u wire.JobUpdate)
	// Ended, when set, is told the job's last event once the job is gone
	// and cleaned up, before the event is reported: a schedd that hears
	// of the end may use the slot again at once.
	Ended func(u wire.JobUpdate)
	// FoldStarted: a job that ends within this time of starting is
	// reported once, its start folded into its last event
	// (JobUpdate.StartedAt), which halves the reports of short jobs. Zero
	// reports the start at once.
	FoldStarted time.Duration
	// Timing, when set, is told how long each of a job's phases besides
	// running took (PhaseSandbox, PhaseInput, PhaseOutput), for metrics.
	Timing func(phase string, d time.Duration)
	// MachineAd is written to the sandbox for the job (without secrets).
	MachineAd *classad.Ad
	// MachineAdText, when set, is the slot's: what the slot's last job's
	// machine ad was written as, reused where the ad is unchanged (adtext.go).
	MachineAdText *AdText
	// Spare is a sandbox the claim's previous job parked (spare.go),
	// used instead of a new one; nil makes one.
	Spare *sandbox.Dir
	// Recycle, when set, takes the sandbox of a job that left nothing in
	// it but its ads, parked, for the claim's next job; it removes it
	// when no job will use it.
	Recycle func(*sandbox.Dir)
	// Plugins fetch the job's input files named by URL; nil: the machine
	// takes no URLs.
	Plugins *xferplugin.Set
	// JVM runs java universe jobs; nil: the machine runs none.
	JVM *JVM
	// Containers runs container jobs (container.go); nil: the machine
	// runs none, and holds any it is given. ContainerPrefix begins the
	// names of the startd's containers.
	Containers      *container.Runtime
	ContainerPrefix string
	// Checkpoints keeps self-checkpointing jobs' checkpoints; nil: the
	// machine runs no such job (checkpoint.go).
	Checkpoints CheckpointStore
	Log         *slog.Logger
	Now         func() time.Time

	// Simulate runs the job without a process, for scale tests: it lasts
	// its declared run time (simulate.go).
	Simulate bool
}

// The phases Config.Timing measures.
const (
	PhaseSandbox = "sandbox" // making the job's directory and writing its ads
	PhaseInput   = "input"   // fetching its input files
	PhaseOutput  = "output"  // sending its output files
)

// Job is the job to run.
type Job struct {
	ID      string // "cluster.proc"
	ClaimID string
	Ad      *classad.Ad
}

// Starter runs one job.
type Starter struct {
	cfg Config
	job Job
	log *slog.Logger

	ctx    context.Context // cancelled by a vacate: stops transfers
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	cmd       *exec.Cmd
	group     *cgroups.Group
	box       *sandbox.Dir
	vacate    string // why the job is being vacated; "" if it is not
	fast      bool
	suspended bool
	exited    bool   // the process ended: no more signals
	memHold   string // why the job goes over its memory, once seen
	usage     Usage
	result    wire.JobUpdate
	ckpt      int             // the job's last committed checkpoint
	ctr       *container.Spec // the job's container, once made (container.go)
	ctrEnd    *container.State

	shells shellSet      // condor_ssh_to_job's shells (shell.go)
	xfer   transferStats // the run's file transfers (xferstats.go)
}

// Start begins running job; Done is closed when it is over.
func Start(cfg Config, job Job) *Starter {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Starter{cfg: cfg, job: job, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		log: cfg.Log.With("job", job.ID, "slot", cfg.Slot)}
	go s.run()
	return s
}

// Done is closed once the job is over, reported and cleaned up.
func (s *Starter) Done() <-chan struct{} { return s.done }

// Result is the last event reported (valid after Done).
func (s *Starter) Result() wire.JobUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.result
}

// Usage is the job's use so far.
func (s *Starter) Usage() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Vacate stops the job: it gets its soft kill signal, then SIGKILL after
// the grace (at once when fast), and is reported evicted with reason. A
// second call may only make it faster.
func (s *Starter) Vacate(reason string, fast bool) {
	s.mu.Lock()
	first := s.vacate == ""
	if first {
		s.vacate = reason
	}
	faster := fast && !s.fast
	s.fast = s.fast || fast
	cmd := s.cmd
	s.mu.Unlock()
	s.cancel()
	if cmd == nil || cmd.Process == nil {
		return // not started: run sees the vacate
	}
	switch {
	case faster:
		s.signalTree(syscall.SIGKILL)
	case first:
		s.signalTree(killSignal(s.job.Ad))
		s.signalTree(syscall.SIGCONT)
		time.AfterFunc(s.cfg.KillGrace, func() { s.signalTree(syscall.SIGKILL) })
	}
}

// Suspend stops the job's processes (SIGSTOP).
func (s *Starter) Suspend() error { return s.setSuspended(true) }

// Continue resumes a suspended job (SIGCONT).
func (s *Starter) Continue() error { return s.setSuspended(false) }

func (s *Starter) setSuspended(on bool) error {
	s.mu.Lock()
	running := s.cmd != nil && s.cmd.Process != nil && s.vacate == ""
	if running {
		s.suspended = on
	}
	s.mu.Unlock()
	if !running {
		return errNotRunning
	}
	if on {
		return s.signalTree(syscall.SIGSTOP)
	}
	return s.signalTree(syscall.SIGCONT)
}

// vacating returns the vacate reason, "" if the job is not vacated.
func (s *Starter) vacating() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vacate
}
