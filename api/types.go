package api

import (
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// The protocol's request and answer types: the daemons' own, so that
// client and daemons cannot disagree on a field.
type (
	// JobSelection picks jobs as condor_q does: IDs ("12", "12.3") and
	// Owners, or-ed among themselves, and a Constraint.
	JobSelection = wire.JobSelection
	// JobQuery asks a schedd for job ads (constraint, projection, limit).
	JobQuery = wire.JobQuery
	// HistoryQuery asks a schedd for jobs that left the queue.
	HistoryQuery = wire.HistoryQuery
	// Act removes, holds, releases or vacates jobs.
	Act = wire.Act
	// ActResult says what an Act or an Edit did.
	ActResult = wire.ActResult
	// Edit sets attributes of jobs (condor_qedit).
	Edit = wire.Edit
	// SubmitResult says what a submit queued.
	SubmitResult = wire.SubmitResult
	// QueueTotals counts a schedd's jobs, in all and by owner.
	QueueTotals = wire.QueueTotals
	// StatusCounts counts jobs by JobStatus.
	StatusCounts = wire.StatusCounts
	// Batch is condor_q's summary of one batch of jobs.
	Batch = wire.Batch
	// AdQuery asks the collector for ads.
	AdQuery = wire.Query
	// Priority is one user's fair-share account (condor_userprio).
	Priority = wire.Priority
	// Priorities lists the accountant's users.
	Priorities = wire.Priorities
	// Error is how a daemon refuses a request: an HTTP status, a code
	// (CodeBadRequest, ...) and a message.
	Error = wire.Error
	// Network is a transport: TCP (nil) or an in-memory network in tests.
	Network = wire.Network
)

// Job actions (Act.Action).
const (
	ActRemove  = wire.ActRemove
	ActHold    = wire.ActHold
	ActRelease = wire.ActRelease
	ActVacate  = wire.ActVacate
)

// Error codes (Error.Code).
const (
	CodeBadRequest      = wire.CodeBadRequest
	CodeUnauthenticated = wire.CodeUnauthenticated
	CodeForbidden       = wire.CodeForbidden
	CodeNotFound        = wire.CodeNotFound
	CodeConflict        = wire.CodeConflict
	CodeTooLarge        = wire.CodeTooLarge
	CodeUnavailable     = wire.CodeUnavailable
	CodeInternal        = wire.CodeInternal
)

// ErrUnreachable wraps the failures to reach a daemon at all.
var ErrUnreachable = wire.ErrUnreachable

// IsCode reports whether err is a daemon's refusal with the given code.
func IsCode(err error, code string) bool { return wire.IsCode(err, code) }

// Job events, as the job event log (HTCondor's "user log") records them.
type (
	// Event is one job event.
	Event = userlog.Event
	// EventCode is an event's number (HTCondor's ULogEventNumber).
	EventCode = userlog.Code
	// EventJob names an event's job.
	EventJob = userlog.JobID
)

// Event codes.
const (
	EventSubmit          = userlog.Submit
	EventExecute         = userlog.Execute
	EventExecutableError = userlog.ExecutableError
	EventEvicted         = userlog.Evicted
	EventTerminated      = userlog.Terminated
	EventImageSize       = userlog.ImageSize
	EventAborted         = userlog.Aborted
	EventHeld            = userlog.Held
	EventReleased        = userlog.Released
)

// Ad types (MyType) of the collector's ads.
const (
	AdSlot       = attr.TypeSlot
	AdScheduler  = attr.TypeScheduler
	AdSubmitter  = attr.TypeSubmitter
	AdNegotiator = attr.TypeNegotiator
	AdMaster     = attr.TypeMaster
	AdCollector  = attr.TypeCollector
)
