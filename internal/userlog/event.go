package userlog

import (
	"fmt"
	"strconv"
	"time"
)

// Code is an event number.
type Code int

// Event numbers (HTCondor's ULogEventNumber).
const (
	Submit          Code = 0
	Execute         Code = 1
	ExecutableError Code = 2
	Evicted         Code = 4
	Terminated      Code = 5
	ImageSize       Code = 6
	ShadowException Code = 7
	Generic         Code = 8
	Aborted         Code = 9
	Suspended       Code = 10
	Unsuspended     Code = 11
	Held            Code = 12
	Released        Code = 13
	RemoteError     Code = 21
	Disconnected    Code = 22
	Reconnected     Code = 23
	ReconnectFailed Code = 24
	JobAdInfo       Code = 28
	// A late-materialization cluster's events: its factory's submit and
	// removal (the cluster left the queue), a hold pausing it, a release
	// resuming it. Their job is the cluster's, proc -1.
	ClusterSubmit  Code = 35
	ClusterRemove  Code = 36
	FactoryPaused  Code = 37
	FactoryResumed Code = 38
)

var codeNames = map[Code]string{
	Submit: "Submit", Execute: "Execute", ExecutableError: "ExecutableError",
	Evicted: "JobEvicted", Terminated: "JobTerminated", ImageSize: "ImageSize",
	ShadowException: "ShadowException", Generic: "Generic", Aborted: "JobAborted",
	Suspended: "JobSuspended", Unsuspended: "JobUnsuspended", Held: "JobHeld",
	Released: "JobReleased", RemoteError: "RemoteError", Disconnected: "JobDisconnected",
	Reconnected: "JobReconnected", ReconnectFailed: "JobReconnectFailed", JobAdInfo: "JobAdInformation",
	ClusterSubmit: "ClusterSubmit", ClusterRemove: "ClusterRemove", FactoryPaused: "FactoryPaused",
	FactoryResumed: "FactoryResumed",
}

// Completion says how a factory ended (ClusterRemove), as HTCondor's
// ClusterRemoveEvent does.
type Completion int

// A factory's completions.
const (
	CompletionError      Completion = -1 // the factory failed
	CompletionIncomplete Completion = 0  // removed with procs left to make
	CompletionComplete   Completion = 1  // every proc made
	CompletionPaused     Completion = 2  // removed while held
)

// String returns the event's HTCondor name (JobTerminated, ...).
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return "Event" + strconv.Itoa(int(c))
}

// JobID names the job of an event.
type JobID struct {
	Cluster, Proc, SubProc int64
}

// String returns "cluster.proc".
func (id JobID) String() string { return fmt.Sprintf("%d.%d", id.Cluster, id.Proc) }

// Usage is CPU time of a run or of all runs, in seconds.
type Usage struct {
	User, Sys float64
}

// Resource is one line of the "Partitionable Resources" table: what a job
// used, requested and was given (Usage < 0: not known).
type Resource struct {
	Name                      string // "Cpus", "Disk (KB)", "Memory (MB)"
	Usage, Request, Allocated float64
}

// Event is one job event. Which fields count depends on Code; the others
// are zero.
type Event struct {
	Code Code
	Job  JobID
	Time time.Time

	// Host is the submit host's address (Submit) or the execute host's
	// (Execute), as "<host:port>".
	Host string
	// Slot names the slot a job executes in (Execute).
	Slot string
	// Reason says why (Aborted, Held, Released, Evicted, Disconnected,
	// ShadowException, RemoteError, ExecutableError, Generic text).
	Reason string
	// HoldCode and HoldSubCode are the hold's HoldReasonCode and
	// HoldReasonSubCode (Held).
	HoldCode, HoldSubCode int

	// Termination (Terminated; Evicted when the job was killed).
	Normal     bool // exited by itself (not by a signal)
	ReturnCode int  // exit code when Normal
	Signal     int  // the killing signal when not Normal

	// Usage (Terminated, Evicted).
	RunRemote, TotalRemote, RunLocal, TotalLocal Usage
	SentBytes, ReceivedBytes                     int64 // of this run
	TotalSent, TotalReceived                     int64
	Resources                                    []Resource

	// ImageSize (KiB), MemoryUsage (MiB) and ResidentSetSize (KiB) of an
	// ImageSize event.
	Size, MemoryMB, RSSKB int64

	// Notes is the submit event's note line (SubmitEventNotes), or a
	// ClusterRemove's notes.
	Notes string

	// A factory's progress and end (ClusterRemove): the procs it made,
	// from how many items, and how it ended.
	Materialized, Items int64
	Completion          Completion
	// PauseCode says why a factory paused (FactoryPaused: 1, a hold), with
	// the hold's code (HoldCode) and Reason.
	PauseCode int
}
