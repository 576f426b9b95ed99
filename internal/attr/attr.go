// Package attr names the ad attributes Kite's daemons and tools share, with
// HTCondor's spellings, and the codes they hold (job states, hold reasons,
// universes). One place for them keeps the schedd, startd, negotiator and
// tools speaking of the same things.
package attr

// Ad types (MyType).
const (
	TypeJob        = "Job"
	TypeSlot       = "Machine"
	TypeScheduler  = "Scheduler"
	TypeSubmitter  = "Submitter"
	TypeNegotiator = "Negotiator"
	TypeMaster     = "DaemonMaster"
	TypeCollector  = "Collector"
)

// Attributes of every advertised ad.
const (
	MyType     = "MyType"
	TargetType = "TargetType"
	Name       = "Name"
	Machine    = "Machine"
	MyAddress  = "MyAddress" // host:port where the daemon serves the wire protocol
	// Member is the advertising daemon's gossip name: the collector drops the
	// ad when gossip reports that member dead.
	Member = "KiteMember"
	// Incarnation is the random id of the advertising daemon's start, as
	// its gossip metadata says: the collector drops on a member's death
	// only the ads of the incarnation that died.
	Incarnation = "KiteIncarnation"
	// FlockedFrom is the pool whose schedd sent a submitter ad to this
	// pool's collector by flocking; the collector sets it (docs/security.md).
	FlockedFrom      = "KiteFlockedFrom"
	DaemonStartTime  = "DaemonStartTime"
	UpdateSequence   = "UpdateSequenceNumber"
	ClassAdLifetime  = "ClassAdLifetime"
	Requirements     = "Requirements"
	Rank             = "Rank"
	CurrentTime      = "CurrentTime"
	ScheddName       = "ScheddName"
	KiteVersion      = "KiteVersion"
	LastHeardFrom    = "LastHeardFrom"
	UpdatesTotal     = "UpdatesTotal"
	Absent           = "Absent"
	ConcurrencyLimit = "ConcurrencyLimits"
)

// Job ad attributes.
const (
	ClusterID            = "ClusterId"
	ProcID               = "ProcId"
	GlobalJobID          = "GlobalJobId"
	Owner                = "Owner"
	User                 = "User" // owner@uid_domain: the accounting principal
	AcctGroup            = "AcctGroup"
	JobStatus            = "JobStatus"
	LastJobStatus        = "LastJobStatus"
	EnteredCurrentStatus = "EnteredCurrentStatus"
	QDate                = "QDate"
	JobPrio              = "JobPrio"
	// KeepClaimIdle: seconds the schedd keeps a job's claim idle after
	// it ends, for the owner's next job (DAG nodes with children).
	KeepClaimIdle        = "KeepClaimIdle"
	JobUniverse          = "JobUniverse"
	Cmd                  = "Cmd"
	Args                 = "Args"
	Arguments            = "Arguments"
	Environment          = "Environment"
	Iwd                  = "Iwd"
	In                   = "In"
	Out                  = "Out"
	Err                  = "Err"
	UserLog              = "UserLog"
	RequestCpus          = "RequestCpus"
	RequestMemory        = "RequestMemory"
	RequestDisk          = "RequestDisk"
	TransferInput        = "TransferInput"
	TransferOutput       = "TransferOutput"
	TransferOutputRemaps = "TransferOutputRemaps"
	// OutputDestination is a URL all of a job's outputs go to, through a
	// file transfer plugin (output_destination).
	OutputDestination = "OutputDestination"
	// TransferPlugins lists the plugins a job brings, "TAG=path; ...".
	TransferPlugins      = "TransferPlugins"
	ShouldTransferFiles  = "ShouldTransferFiles"
	WhenToTransferOutput = "WhenToTransferOutput"
	JobBatchName         = "JobBatchName"
	HoldReason           = "HoldReason"
	HoldReasonCode       = "HoldReasonCode"
	HoldReasonSubCode    = "HoldReasonSubCode"
	RemoveReason         = "RemoveReason"
	ReleaseReason        = "ReleaseReason"
	NumJobStarts         = "NumJobStarts"
	JobRunCount          = "JobRunCount"
	JobStartDate         = "JobStartDate"
	JobCurrentStartDate  = "JobCurrentStartDate"
	CompletionDate       = "CompletionDate"
	ExitCode             = "ExitCode"
	ExitBySignal         = "ExitBySignal"
	ExitSignal           = "ExitSignal"
	RemoteHost           = "RemoteHost"
	LastRemoteHost       = "LastRemoteHost"
	RemoteWallClockTime  = "RemoteWallClockTime"
	RemoteUserCpu        = "RemoteUserCpu"
	RemoteSysCpu         = "RemoteSysCpu"
	MemoryUsage          = "MemoryUsage"
	ImageSize            = "ImageSize"
	OnExitRemove         = "OnExitRemove"
	OnExitHold           = "OnExitHold"
	PeriodicHold         = "PeriodicHold"
	PeriodicRemove       = "PeriodicRemove"
	PeriodicRelease      = "PeriodicRelease"
	JobMaxRetries        = "JobMaxRetries" // max_retries: OnExitRemove retries a job up to it
	AutoClusterID        = "AutoClusterId"
)

// Slot ad attributes.
const (
	State                  = "State"
	Activity               = "Activity"
	EnteredCurrentState    = "EnteredCurrentState"
	EnteredCurrentActivity = "EnteredCurrentActivity"
	Cpus                   = "Cpus"
	Memory                 = "Memory"
	Disk                   = "Disk"
	TotalCpus              = "TotalCpus"
	TotalMemory            = "TotalMemory"
	TotalDisk              = "TotalDisk"
	Arch                   = "Arch"
	OpSys                  = "OpSys"
	OpSysAndVer            = "OpSysAndVer"
	LoadAvg                = "LoadAvg"
	KeyboardIdle           = "KeyboardIdle"
	ConsoleIdle            = "ConsoleIdle"
	KFlops                 = "KFlops"
	Mips                   = "Mips"
	Start                  = "Start"
	SlotID                 = "SlotID"
	SlotType               = "SlotType" // Static, Partitionable, Dynamic
	PartitionableSlot      = "PartitionableSlot"
	SlotWeight             = "SlotWeight"
	FileSystemDomain       = "FileSystemDomain"
	UIDDomain              = "UidDomain"
	// OsUser is the local account a job's files are opened as and the job
	// runs as where its UidDomain is the machine's: the schedd maps the
	// owner's identity to it at submit.
	OsUser = "OsUser"
	// RunAsOwner false asks that the job run as a slot user even where it
	// could run as its owner.
	RunAsOwner      = "RunAsOwner"
	HasFileTransfer = "HasFileTransfer"
	// HasFileTransferPluginMethods lists the URL schemes a machine's
	// file transfer plugins serve, comma separated.
	HasFileTransferPluginMethods = "HasFileTransferPluginMethods"
	// HasJobTransferPlugins says a machine runs the plugins jobs bring.
	HasJobTransferPlugins = "HasJobTransferPlugins"
	// HasSelfCheckpointTransfers says a machine runs self-checkpointing
	// jobs: it sends their checkpoints and restarts them.
	HasSelfCheckpointTransfers = "HasSelfCheckpointTransfers"

	// The record of a job's matches and runs (HTCondor's manual, "Job
	// ClassAd Attributes"; the schedd's jobattrs.go).
	FirstJobMatchDate            = "FirstJobMatchDate"
	CpusProvisioned              = "CpusProvisioned"
	MemoryProvisioned            = "MemoryProvisioned"
	DiskProvisioned              = "DiskProvisioned"
	JobCurrentStartExecutingDate = "JobCurrentStartExecutingDate"
	LastRemoteWallClockTime      = "LastRemoteWallClockTime"
	CumulativeSlotTime           = "CumulativeSlotTime"
	CommittedTime                = "CommittedTime"
	CommittedSlotTime            = "CommittedSlotTime"
	CumulativeRemoteUserCpu      = "CumulativeRemoteUserCpu"
	CumulativeRemoteSysCpu       = "CumulativeRemoteSysCpu"
	ResidentSetSize              = "ResidentSetSize"
	ExitStatus                   = "ExitStatus"
	NumShadowStarts              = "NumShadowStarts"
	NumRestarts                  = "NumRestarts"
	// The last run's activation, its phases (seconds), and the file
	// transfers of all runs: bytes the job sent and received (from the
	// job's side: output and input) and the statistics by method.
	ActivationDuration          = "ActivationDuration"
	ActivationSetupDuration     = "ActivationSetupDuration"
	ActivationExecutionDuration = "ActivationExecutionDuration"
	ActivationTeardownDuration  = "ActivationTeardownDuration"
	BytesSent                   = "BytesSent"
	BytesRecvd                  = "BytesRecvd"
	TransferInputStats          = "TransferInputStats"
	TransferOutputStats         = "TransferOutputStats"

	// Self-checkpointing (checkpoint_exit_code): the exit code that means
	// "checkpoint taken", that the job wants its files sent then, the
	// files of a checkpoint (TransferCheckpoint; default: its outputs),
	// the last committed checkpoint's number and files, and when.
	SuccessCheckpointExitCode = "SuccessCheckpointExitCode"
	WantFTOnCheckpoint        = "WantFTOnCheckpoint"
	TransferCheckpoint        = "TransferCheckpoint"
	CheckpointNumber          = "CheckpointNumber"
	CheckpointFiles           = "KiteCheckpointFiles"
	JobLastCheckpointTime     = "JobLastCheckpointTime"

	RemoteOwner = "RemoteOwner"
	RemoteUser  = "RemoteUser"
	JobID       = "JobId"
	// ClaimID is the slot's current claim id, a secret: the collector
	// returns it only to DAEMON-level callers (the negotiator).
	ClaimID = "ClaimId"
)

// Slot ad attributes the startd adds about its slots, its machine and its
// policy (HTCondor's names).
const (
	TotalSlotCpus        = "TotalSlotCpus"   // a slot's size; Cpus is what it has left
	TotalSlotMemory      = "TotalSlotMemory" // MiB
	TotalSlotDisk        = "TotalSlotDisk"   // KiB
	DynamicSlot          = "DynamicSlot"     // true in a slot carved from a partitionable one
	WithinResourceLimits = "WithinResourceLimits"
	OpSysName            = "OpSysName"     // Ubuntu, Debian, RedHat, ...
	OpSysMajorVer        = "OpSysMajorVer" // 22 for Ubuntu 22.04
	OpSysVer             = "OpSysVer"      // 2204 for Ubuntu 22.04
	OpSysLongName        = "OpSysLongName"
	KernelVersion        = "KernelVersion" // the kernel's release
	TotalLoadAvg         = "TotalLoadAvg"
	CondorLoadAvg        = "CondorLoadAvg" // the load of the slot's job
	LastBenchmark        = "LastBenchmark" // when KFlops and Mips were measured
	ClockMin             = "ClockMin"      // minutes since local midnight
	ClockDay             = "ClockDay"      // day of the week, Sunday = 0
	JobStart             = "JobStart"      // when the slot's job started
	Draining             = "Draining"
	MachineMaxVacateTime = "MachineMaxVacateTime" // seconds between the soft kill and SIGKILL
	// The policy expressions besides Start, Rank and Requirements.
	IsOwner              = "IsOwner"
	Suspend              = "Suspend"
	Continue             = "Continue"
	Preempt              = "Preempt"
	Kill                 = "Kill"
	MaxJobRetirementTime = "MaxJobRetirementTime"
)

// Submitter and scheduler ad attributes.
const (
	IdleJobs         = "IdleJobs"
	RunningJobs      = "RunningJobs"
	HeldJobs         = "HeldJobs"
	TotalIdleJobs    = "TotalIdleJobs"
	TotalRunningJobs = "TotalRunningJobs"
	TotalHeldJobs    = "TotalHeldJobs"
	TotalJobAds      = "TotalJobAds"
)

// JobStatus values (HTCondor's).
const (
	Idle               = 1
	Running            = 2
	Removed            = 3
	Completed          = 4
	Held               = 5
	TransferringOutput = 6
	Suspended          = 7
)

// StatusLetter is condor_q's ST column for a JobStatus.
func StatusLetter(status int64) string {
	switch status {
	case Idle:
		return "I"
	case Running:
		return "R"
	case Removed:
		return "X"
	case Completed:
		return "C"
	case Held:
		return "H"
	case TransferringOutput:
		return ">"
	case Suspended:
		return "S"
	}
	return "?"
}

// HoldReasonCode values (HTCondor's hold table).
const (
	HoldUserRequest        = 1
	HoldJobPolicy          = 3
	HoldJobPolicyUndefined = 5
	HoldStartingJob        = 6
	HoldTransferOutput     = 12
	HoldTransferInput      = 13
	HoldSubmittedOnHold    = 15
	HoldStartdHeldJob      = 21
	HoldSystemPolicy       = 26
	HoldJobOutOfResources  = 34
)

// Universe numbers: Kite runs the vanilla and java universes at startds,
// and the scheduler and local universes at the schedd itself.
const (
	UniverseScheduler = 7
	UniverseVanilla   = 5
	UniverseJava      = 10
	UniverseLocal     = 12
)

// The schedd's ad as its local and scheduler universe jobs see it
// (HTCondor's names): the START expressions and the counts they read.
const (
	StartLocalUniverse        = "StartLocalUniverse"
	StartSchedulerUniverse    = "StartSchedulerUniverse"
	TotalLocalJobsRunning     = "TotalLocalJobsRunning"
	TotalLocalJobsIdle        = "TotalLocalJobsIdle"
	TotalSchedulerJobsRunning = "TotalSchedulerJobsRunning"
	TotalSchedulerJobsIdle    = "TotalSchedulerJobsIdle"
)

// Attributes of scheduling policies and the simulator (internal/sim): what
// a host publishes about its queue and speed, and what a job says of its
// size and kind. Strategies such as least-work-left read them from slot
// ads; the simulator and the startds (daemons/startd/workleft.go) write
// them.
const (
	// KiteWork is a job's size in work units (the simulator runs it for
	// KiteWork / KiteSpeed seconds).
	KiteWork = "KiteWork"
	// KiteJobType names a job's kind for per-type metrics and strategies
	// that balance types (JoSchKa's jobType).
	KiteJobType = "KiteJobType"
	// KiteBatch names the batch (a job of paper 002: a set of tasks) a
	// job belongs to.
	KiteBatch = "KiteBatch"
	// KiteArrival is a job's arrival time in seconds from the start of a
	// simulation (files of job ads for the simulator).
	KiteArrival = "KiteArrival"
	// KiteSpeed is a host's current speed in work units per second.
	KiteSpeed = "KiteSpeed"
	// KiteWorkLeft is the work, in work units, a host still has to do:
	// what remains of its running jobs and its queued jobs.
	KiteWorkLeft = "KiteWorkLeft"
	// KiteQueueLength counts the jobs queued on a host, running or not.
	KiteQueueLength = "KiteQueueLength"
	// KiteBenchmark is a host's benchmark time in milliseconds (JoSchKa's
	// rB: smaller is faster).
	KiteBenchmark = "KiteBenchmark"
	// KiteJobsCompleted and KiteJobsAborted count the jobs a host finished
	// and lost; KiteWorkTimeCompleted and KiteWorkTimeAborted are the
	// seconds it worked on them. Differences between two ads give a
	// strategy each job's outcome.
	KiteJobsCompleted     = "KiteJobsCompleted"
	KiteJobsAborted       = "KiteJobsAborted"
	KiteWorkTimeCompleted = "KiteWorkTimeCompleted"
	KiteWorkTimeAborted   = "KiteWorkTimeAborted"
	// KiteRestarts counts a host's failures; KiteUptimeTotal is the
	// seconds it was up before them (mean uptime = total / restarts).
	KiteRestarts    = "KiteRestarts"
	KiteUptimeTotal = "KiteUptimeTotal"
)

// Job attributes the schedd keeps about a job's life.
const (
	NumHolds           = "NumHolds"
	LastHoldReason     = "LastHoldReason"
	LastHoldReasonCode = "LastHoldReasonCode"
	NumJobCompletions  = "NumJobCompletions"
	NumJobMatches      = "NumJobMatches"
	LastMatchTime      = "LastMatchTime"
	LastVacateTime     = "LastVacateTime"
	// TotalSubmitProcs is how many jobs the job's cluster was submitted
	// with (condor_q's TOTAL and DONE).
	TotalSubmitProcs = "TotalSubmitProcs"
	SubmitEventNotes = "SubmitEventNotes"
	// AccountingGroup is group.user: the submitter a job is accounted
	// to when it names an accounting group.
	AccountingGroup = "AccountingGroup"
)

// Node monitoring and job-type statistics (internal/reliability, JoSchKa's
// papers 000 and 001), and replication: what the pool learns of each
// machine and job type, published in slot and request ads so that
// strategies, Rank and Requirements expressions can use it. Times are
// seconds.
const (
	// KiteBenchmarkIndex is a host's benchmark class B in {-4, -2, 0, 2,
	// 4}, from KiteBenchmark (faster is higher).
	KiteBenchmarkIndex = "KiteBenchmarkIndex"
	// KiteReliability is a host's reliability index R in [-5, 5]: half
	// the sum of its last 10 job outcomes (+1 done, -1 lost), starting
	// from B.
	KiteReliability = "KiteReliability"
	// KiteAvgFailedTime (avF) and KiteAvgSucceededTime (avS) are the
	// mean work times of a host's last 5 lost and last 5 finished jobs;
	// KiteAvgUptime (avU) the mean of its last 5 periods up. Absent while
	// there is none.
	KiteAvgFailedTime    = "KiteAvgFailedTime"
	KiteAvgSucceededTime = "KiteAvgSucceededTime"
	KiteAvgUptime        = "KiteAvgUptime"
	// KiteRuntimeDelay is paper 004's d_j: how much longer than expected
	// (KiteWork / KiteSpeed) a host's finished jobs ran, on average;
	// KiteLostRuntime its p_j: the expected runtimes of its lost jobs,
	// summed.
	KiteRuntimeDelay = "KiteRuntimeDelay"
	KiteLostRuntime  = "KiteLostRuntime"
	// KiteTypeJobs, KiteTypeDone and KiteTypeRunning count the jobs of a
	// request's job type: submitted, finished and running. KiteTypeRuntime
	// is the type's mean runtime avT (absent while none finished) and
	// KiteTypeRuntimeIndex its runtime index avTI in {-8, -5, -3, 0, 3, 5,
	// 8}.
	KiteTypeJobs         = "KiteTypeJobs"
	KiteTypeDone         = "KiteTypeDone"
	KiteTypeRunning      = "KiteTypeRunning"
	KiteTypeRuntime      = "KiteTypeRuntime"
	KiteTypeRuntimeIndex = "KiteTypeRuntimeIndex"
	// KiteReplica marks a request for more instances of running jobs
	// (replication): only strategies that replicate are offered it.
	KiteReplica = "KiteReplica"
	// KiteBatchWork is the total work of a job's batch (paper 002: a
	// job's size is the sum of its tasks').
	KiteBatchWork = "KiteBatchWork"
)

// Keep-alive requeue and replication in the live pool (the schedd, issue
// 10): what a job and a submitter say of lost machines and of extra
// instances.
const (
	// KiteAborts counts the times a job's machine was lost under it
	// (gossip found its startd dead, or its claim lease ran out) since it
	// was submitted or last released: JoSchKa's nrzerocountdowns.
	KiteAborts = "KiteAborts"
	// KiteMaxAborts is a job's own bound on KiteAborts (the schedd's
	// max_aborts otherwise): one more loss holds the job.
	KiteMaxAborts = "KiteMaxAborts"
	// KiteReplicas is how many extra instances of a job may run at once
	// when slots are left over (the schedd's replicas otherwise; 0: none).
	KiteReplicas = "KiteReplicas"
	// KiteReplicaRuns counts the extra instances a job started;
	// KiteWinner is the slot of the instance whose result was kept and
	// KiteWinnerInstance which instance that was (0: the first, k: the
	// k-th replica). Set on jobs that had replicas.
	KiteReplicaRuns    = "KiteReplicaRuns"
	KiteWinner         = "KiteWinner"
	KiteWinnerInstance = "KiteWinnerInstance"
	// KiteReplicable counts a submitter's running jobs that may start
	// another instance now: the negotiator asks a submitter with such
	// jobs for requests even when it has no idle job.
	KiteReplicable = "KiteReplicable"
)

// Job-dependent host speed (paper 004's expected execution times when
// hosts are faster at some jobs than at others).
const (
	// KitePower is a host's speed for a job, in work units per second: an
	// expression of the job (TARGET), such as KiteSpeed * (TARGET.Vector ?
	// 3 : 1). The batch heuristics read it with power = "KitePower"; the
	// simulator publishes it for machines with an affinity.
	KitePower = "KitePower"
)
